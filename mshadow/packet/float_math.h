// mshadow/packet/float_math.h: the project's own float exp, expm1, tanh, sigmoid and softrelu
// (log(1 + e^x)) for the SIMD arches, written once over five primitives each arch header
// provides (MulAdd, NegMulSub, ClampBelow, ClampAbove, Pow2FromRounded; AVX-512 adds
// ScaleByPow2). They are inline, so a map over a tensor runs without a call per packet, and
// each stays within about 3 ULP of a double-precision reference over the whole float range,
// with std::'s results for inf, nan, overflow, underflow and denormals. Worst over all 2^32
// floats: exp 1.32; expm1 1.83 on SSE2, 1.71 on AVX2 and AVX-512; tanh 2.52 on SSE2, 2.50 on
// AVX2 and AVX-512; sigmoid 2.64; softrelu 3.03 (its e^-|x| carries exp's error into a result
// that can lie in the binade below). mshadow/packet_math_test.cc measures them on a dense
// sweep; //mshadow:float_math_exhaustive tries every float (about 2.5 minutes per function
// and arch here; :float_math_exhaustive_avx512_emulated adds AVX-512 without the hardware).
//
//   Packet<float, kAVX2> y = Exp(x);   // also Expm1(x), Tanh(x), Sigmoid(x), SoftReLU(x)
//
// Double packets and kPlain keep SLEEF and the C library (see the arch headers).
//
// Method: x = n ln2 + r with |r| <= ln2/2 (Cody-Waite, ln2 in two parts), e^r - 1 from a
// degree-6 polynomial, and 2^n built in the exponent bits. The polynomial's coefficients are
// a Chebyshev fit of (e^r - 1 - r) / r^2 on [-0.35, 0.35] (error 7e-8, 0.1 ULP after
// scaling by r^2), computed for this project with mpmath. softrelu's log(1 + t) is
// 2 atanh(t / (2 + t)), the same kind of fit in the square of the argument.
#ifndef MSHADOW_PACKET_FLOAT_MATH_H_
#define MSHADOW_PACKET_FLOAT_MATH_H_

#include <type_traits>

#include "mshadow/packet/arch.h"
#include "mshadow/packet/avx2.h"
#include "mshadow/packet/avx512.h"
#include "mshadow/packet/plain.h"
#include "mshadow/packet/sse2.h"

namespace mshadow {
namespace packet {
namespace float_math {

// Adding 1.5 * 2^23 rounds any |v| < 2^22 to an integer and leaves it in the low mantissa
// bits, where Pow2FromRounded reads it.
constexpr float kRoundingMagic = 12582912.0f;
constexpr float kLog2e = 1.44269504f;
// ln2 = kLn2Hi + kLn2Lo; kLn2Hi has 12 significant bits, so n * kLn2Hi is exact for the
// |n| <= 150 that occur, with or without fused multiply-add.
constexpr float kLn2Hi = 0.693115234375f;
constexpr float kLn2Lo = 3.19461849e-5f;
constexpr int kExponentBias = 127;

// The arches that use these kernels; kPlain keeps the C library's functions.
template <PacketArch Arch>
using EnableForSimd = std::enable_if_t<Arch != kPlain, int>;

// x = n ln2 + r with |r| <= ln2/2, for the kernels below.
template <PacketArch Arch>
struct ReducedExp {
  Packet<float, Arch> rounded_n;  // kRoundingMagic + n
  Packet<float, Arch> n;
  Packet<float, Arch> r;
};

// Needs |x| < 2^21 (the callers clamp far below that). NaN gives NaN in r.
template <PacketArch Arch>
MSHADOW_CINLINE ReducedExp<Arch> ReduceExp(Packet<float, Arch> x) {
  using P = Packet<float, Arch>;
  const P rounded_n = MulAdd(x, P::Fill(kLog2e), P::Fill(kRoundingMagic));
  const P n = rounded_n - P::Fill(kRoundingMagic);
  const P r = MulAdd(n, P::Fill(-kLn2Hi), x);
  return {rounded_n, n, MulAdd(n, P::Fill(-kLn2Lo), r)};
}

// Coefficients of q(r) = sum of kExpTail[k] r^k ~ (e^r - 1 - r) / r^2 on |r| <= ln2/2.
constexpr float kExpTail[] = {0.5f, 0.166665733f, 0.0416665487f, 0.00836377405f, 0.00139269268f};

// Coefficients of g(z) ~ (atanh(s) / s - 1) / z with z = s^2 <= 1/9 (error 3e-8 relative).
constexpr float kAtanhTail[] = {0.333333343f, 0.199998528f, 0.142961785f, 0.108532876f,
                                0.11612165f};

// q(r) in Estrin's form: the kernels are bound by latency more than by operation count, and
// this form is 2 steps shorter than Horner's.
template <PacketArch Arch>
MSHADOW_CINLINE Packet<float, Arch> ExpTail(Packet<float, Arch> r) {
  using P = Packet<float, Arch>;
  const P r2 = r * r;
  const P low = MulAdd(P::Fill(kExpTail[1]), r, P::Fill(kExpTail[0]));
  const P high = MulAdd(P::Fill(kExpTail[3]), r, P::Fill(kExpTail[2]));
  return MulAdd(MulAdd(P::Fill(kExpTail[4]), r2, high), r2, low);
}

// e^r = (1 + r) + r^2 q(r).
template <PacketArch Arch>
MSHADOW_CINLINE Packet<float, Arch> ExpOfReduced(Packet<float, Arch> r) {
  using P = Packet<float, Arch>;
  return MulAdd(r * r, ExpTail(r), r + P::Fill(1.0f));
}

// -(e^(2h) - 1) / 2 = -(h + h^2 q'(h)) with q'(h) = 2 q(2h): ExpTail's coefficients times
// powers of 2, so no accuracy is lost. For |h| <= ln2/4. Negated because the fused
// negative multiply-subtract keeps the sign of a zero h (-0 gives +0 and +0 gives -0), where
// h + h^2 q'(h) would turn -0 into +0.
template <PacketArch Arch>
MSHADOW_CINLINE Packet<float, Arch> NegHalfExpm1OfDoubled(Packet<float, Arch> h) {
  using P = Packet<float, Arch>;
  const P h2 = h * h;
  const P low = MulAdd(P::Fill(4 * kExpTail[1]), h, P::Fill(2 * kExpTail[0]));
  const P high = MulAdd(P::Fill(16 * kExpTail[3]), h, P::Fill(8 * kExpTail[2]));
  return NegMulSub(h2, MulAdd(MulAdd(P::Fill(32 * kExpTail[4]), h2, high), h2, low), h);
}

// e^x = e^r 2^n from x's reduction, for n in [-150, 128], or in [-150, 0] when
// kNonPositive (x <= 0). The product rounds once, also where it is denormal, and 2^128
// overflows to inf.
template <bool kNonPositive, PacketArch Arch>
MSHADOW_CINLINE Packet<float, Arch> ScaleReduced(const ReducedExp<Arch>& e) {
  using P = Packet<float, Arch>;
  const P mantissa = ExpOfReduced(e.r);
  if constexpr (Arch == kAVX512) {
    return ScaleByPow2(mantissa, e.n);  // one instruction over the whole range
  } else if constexpr (kNonPositive) {
    // 2^(n + 64) is a normal float; the final scaling by 2^-64 does the one rounding.
    constexpr float kPow2Minus64 = 5.42101086e-20f;
    return mantissa * Pow2FromRounded(e.rounded_n, kExponentBias + 64) * P::Fill(kPow2Minus64);
  } else {
    // n is beyond the exponent field: 2^n = 2^h 2^(n - h) with h = round(n / 2).
    const P rounded_half = MulAdd(e.rounded_n, P::Fill(0.5f), P::Fill(0.5f * kRoundingMagic));
    const P rounded_rest = (e.rounded_n - rounded_half) + P::Fill(kRoundingMagic);
    return mantissa * Pow2FromRounded(rounded_half, kExponentBias) *
           Pow2FromRounded(rounded_rest, kExponentBias);
  }
}

}  // namespace float_math

// e^x. Inputs above 88.8 (e^x overflows from 88.73) and below -104 (e^x rounds to 0 from
// -103.98) are clamped, which keeps those answers (inf and 0) and keeps NaN.
template <PacketArch Arch, float_math::EnableForSimd<Arch> = 0>
MSHADOW_CINLINE Packet<float, Arch> Exp(Packet<float, Arch> x) {
  using P = Packet<float, Arch>;
  using namespace float_math;  // NOLINT(build/namespaces): the kernel's constants
  return ScaleReduced</*kNonPositive=*/false>(
      ReduceExp(ClampAbove(ClampBelow(x, P::Fill(-104.0f)), P::Fill(88.8f))));
}

// e^x - 1 = 2 (2^(n-1) e1 + (2^(n-1) - 1/2)) with x = n ln2 + r and e1 = e^r - 1 = r + r^2 q(r):
// the one rounding is the fused sum's, and 2^(n-1) - 1/2 is exact for n in [-24, 24], where
// the sum cancels; near 0 (n = 0) the result is e1 itself, so there is no cancellation at
// all. Written with 2^(n-1) rather than 2^n so that n = 128 (x up to 88.72, still finite)
// stays within the exponent field; the doubling at the end overflows only where e^x does.
// Below -18, e^x - 1 rounds to -1 in float, so x is clamped there, and above at 88.8 as in Exp.
// Negated terms, as in tanh, keep the sign of a zero x.
template <PacketArch Arch, float_math::EnableForSimd<Arch> = 0>
MSHADOW_CINLINE Packet<float, Arch> Expm1(Packet<float, Arch> x) {
  using P = Packet<float, Arch>;
  using namespace float_math;  // NOLINT(build/namespaces)
  const ReducedExp<Arch> e = ReduceExp(ClampAbove(ClampBelow(x, P::Fill(-18.0f)), P::Fill(88.8f)));
  const P neg_e1 = NegMulSub(e.r * e.r, ExpTail(e.r), e.r);
  const P pow2_n_minus_1 = Pow2FromRounded(e.rounded_n, kExponentBias - 1);
  const P half = NegMulSub(pow2_n_minus_1, neg_e1, P::Fill(0.5f) - pow2_n_minus_1);
  return half + half;
}

// tanh(x) = m / (m + 2) with m = e^(2x) - 1, for either sign of x, so no absolute value and
// no sign to restore. From |x| = 9.1 on, tanh rounds to +-1 in float, so x is clamped there;
// then |n| <= 27, and ln2 in one part is accurate enough: its error, 2e-9 n, moves tanh by
// 2e-9 n / sinh(2|x|), under 0.1 ULP. With 2x = n ln2 + 2h, m = 2^(n+1) e1 - (1 - 2^n),
// where e1 = (e^(2h) - 1) / 2: nothing cancels near 0, and x = -0 gives m = -0.
template <PacketArch Arch, float_math::EnableForSimd<Arch> = 0>
MSHADOW_CINLINE Packet<float, Arch> Tanh(Packet<float, Arch> x) {
  using P = Packet<float, Arch>;
  using namespace float_math;  // NOLINT(build/namespaces)
  const P clamped = ClampAbove(ClampBelow(x, P::Fill(-9.1f)), P::Fill(9.1f));
  // The rounding constant carries the exponent bias of 2^(n+1), so one shift builds it.
  constexpr float kRoundingMagicWithBias = kRoundingMagic + (kExponentBias + 1);
  const P rounded_n = MulAdd(clamped, P::Fill(2.0f * kLog2e), P::Fill(kRoundingMagicWithBias));
  const P n = rounded_n - P::Fill(kRoundingMagicWithBias);
  const P h = MulAdd(n, P::Fill(-0.5f * 0.693147182f), clamped);
  const P pow2_n_plus_1 = Pow2FromRounded(rounded_n, 0);
  const P one_minus_pow2_n = MulAdd(pow2_n_plus_1, P::Fill(-0.5f), P::Fill(1.0f));
  const P m = NegMulSub(pow2_n_plus_1, NegHalfExpm1OfDoubled(h), one_minus_pow2_n);
  return m / (m + P::Fill(2.0f));
}

// sigmoid(x) = 1 / (1 + t) for x >= 0 and t / (1 + t) for x < 0, with t = e^-|x|: no
// overflow, and relative accuracy for large negative x, where the result is tiny or denormal.
template <PacketArch Arch, float_math::EnableForSimd<Arch> = 0>
MSHADOW_CINLINE Packet<float, Arch> Sigmoid(Packet<float, Arch> x) {
  using P = Packet<float, Arch>;
  using namespace float_math;  // NOLINT(build/namespaces)
  const P t = ScaleReduced</*kNonPositive=*/true>(
      ReduceExp(ClampBelow(Negate(Abs(x)), P::Fill(-104.0f))));
  const P one = P::Fill(1.0f);
  return SelectNonNegative(x, one, t) / (one + t);
}

// softrelu(x) = log(1 + e^x) = max(x, 0) + log(1 + t) with t = e^-|x| in (0, 1]: no overflow,
// and relative accuracy for large negative x, where the result is about t, tiny or denormal.
// log(1 + t) = 2 atanh(s) = 2s (1 + s^2 g(s^2)) with s = t / (2 + t) <= 1/3; 2s is formed as
// 2t / (2 + t), one rounding, and exact for a denormal t. No 1 + t is ever rounded, which is
// what makes log(1 + t) inaccurate for small t.
template <PacketArch Arch, float_math::EnableForSimd<Arch> = 0>
MSHADOW_CINLINE Packet<float, Arch> SoftReLU(Packet<float, Arch> x) {
  using P = Packet<float, Arch>;
  using namespace float_math;  // NOLINT(build/namespaces)
  const P t =
      ScaleReduced</*kNonPositive=*/true>(ReduceExp(ClampBelow(Negate(Abs(x)), P::Fill(-104.0f))));
  const P two_s = (t + t) / (t + P::Fill(2.0f));
  const P z = P::Fill(0.25f) * two_s * two_s;  // s^2
  const P z2 = z * z;
  const P low = MulAdd(P::Fill(kAtanhTail[1]), z, P::Fill(kAtanhTail[0]));
  const P high = MulAdd(P::Fill(kAtanhTail[3]), z, P::Fill(kAtanhTail[2]));
  const P g = MulAdd(MulAdd(P::Fill(kAtanhTail[4]), z2, high), z2, low);
  return Max(x, P::Fill(0.0f)) + MulAdd(two_s * z, g, two_s);
}

// The same formula for double packets and kPlain, with their arch's Exp.
template <typename DType, PacketArch Arch>
MSHADOW_CINLINE Packet<DType, Arch> Sigmoid(Packet<DType, Arch> x) {
  using P = Packet<DType, Arch>;
  const P t = Exp(Negate(Abs(x)));
  const P one = P::Fill(DType(1));
  return SelectNonNegative(x, one, t) / (one + t);
}

// The same formula for double packets and kPlain, with their arch's Exp and Log1p.
template <typename DType, PacketArch Arch>
MSHADOW_CINLINE Packet<DType, Arch> SoftReLU(Packet<DType, Arch> x) {
  return Max(x, Packet<DType, Arch>::Fill(DType(0))) + Log1p(Exp(Negate(Abs(x))));
}

}  // namespace packet
}  // namespace mshadow

#endif  // MSHADOW_PACKET_FLOAT_MATH_H_
