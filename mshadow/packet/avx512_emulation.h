// mshadow/packet/avx512_emulation.h: lets the kAVX512 packets run, for tests, on a machine
// without AVX-512 (CI's machine and most development machines).
//
// Force-included (-include) ahead of everything else in a test built without -mavx512f, it
//  - maps each AVX-512 intrinsic that mshadow/packet/avx512.h calls onto SIMDe's portable
//    implementation (Debian's libsimde-dev), and the vector types onto SIMDe's;
//  - supplies the few intrinsics SIMDe 0.7 lacks (stream, reduce_add), with the same lane
//    order as GCC's own;
//  - supplies the SLEEF avx512f functions avx512.h calls, as SLEEF's scalar function applied
//    lane by lane (both within 1 ULP; they need not agree bit for bit);
//  - declares the arch available (MSHADOW_PACKET_HAS_AVX512).
// The emulated instructions are IEEE single/double arithmetic like the real ones, so what
// this checks is the kAVX512 code path itself: 16- and 8-lane bodies and tails, 64-byte
// alignment, mask blends, vscalefps in exp, and the float kernels' accuracy. It says
// nothing about speed. Where the build enables AVX-512F itself this header does nothing and
// the real instructions run.
#ifndef MSHADOW_PACKET_AVX512_EMULATION_H_
#define MSHADOW_PACKET_AVX512_EMULATION_H_

#if !defined(__AVX512F__)

// The compiler's own __m512 typedefs must be seen before the macros below rename the type.
#include <immintrin.h>
#include <sleef.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#define SIMDE_X86_AVX512F_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

#define __m512 simde__m512
#define __m512d simde__m512d
#define __m512i simde__m512i

namespace mshadow_avx512_emulation {

template <typename Lane, typename Vector>
struct Lanes {
  static constexpr int kCount = sizeof(Vector) / sizeof(Lane);
  Lane value[kCount];
  explicit Lanes(Vector v) { std::memcpy(value, &v, sizeof(v)); }
  Vector ToVector() const {
    Vector v;
    std::memcpy(&v, value, sizeof(v));
    return v;
  }
};

template <typename Lane, typename F, typename Vector, std::size_t... k>
inline Lane OneLane(F f, const Lanes<Lane, Vector>* operands, int lane,
                    std::index_sequence<k...>) {
  return f(operands[k].value[lane]...);
}

// f applied lane by lane: lane i of the result is f(x[i], more[i]...). F may be a SLEEF
// scalar function, whose type carries GCC's const attribute (hence not a function pointer).
template <typename Lane, typename F, typename Vector, typename... More>
inline Vector EachLane(F f, Vector x, More... more) {
  const Lanes<Lane, Vector> operands[] = {Lanes<Lane, Vector>(x), Lanes<Lane, Vector>(more)...};
  Lanes<Lane, Vector> result(x);
  for (int i = 0; i < result.kCount; ++i) {
    result.value[i] = OneLane(f, operands, i, std::index_sequence_for<Vector, More...>{});
  }
  return result.ToVector();
}

// vscalefps: x * 2^floor(n) rounded once, as std::ldexp does, also where the result
// overflows or is denormal. (SIMDe multiplies by exp2f(n), which is already inf at n = 128.)
inline float ScaleByPow2(float x, float n) {
  if (std::isnan(x) || std::isnan(n)) return x + n;
  if (std::isinf(n)) return n > 0 ? x * n : x / -n;  // 0 * inf and inf / inf give NaN
  return std::ldexp(x, static_cast<int>(std::fmax(-400.0f, std::fmin(400.0f, std::floor(n)))));
}

// vfnmsub: -(a * b) - c rounded once, with its signs of zero results (-(a * b + c) would give
// -0 where a * b is -0 and c is +0; expm1(+0) is +0 through it).
inline float NegMulSub(float a, float b, float c) { return std::fma(-a, b, -c); }

// GCC's _mm512_reduce_add_*: add the upper half onto the lower, repeatedly, down to one lane.
template <typename Lane, typename Vector>
inline Lane ReduceAddByHalves(Vector x) {
  Lanes<Lane, Vector> lanes(x);
  for (int width = lanes.kCount / 2; width >= 1; width /= 2) {
    for (int i = 0; i < width; ++i) lanes.value[i] += lanes.value[i + width];
  }
  return lanes.value[0];
}

}  // namespace mshadow_avx512_emulation

#define _mm512_reduce_add_ps(x) mshadow_avx512_emulation::ReduceAddByHalves<float>(x)
#define _mm512_reduce_add_pd(x) mshadow_avx512_emulation::ReduceAddByHalves<double>(x)
// Fused multiply-adds round once; SIMDe rounds twice where the build lacks FMA.
#undef _mm512_fmadd_ps
#undef _mm512_fnmsub_ps
#undef _mm512_scalef_ps
#define _mm512_fmadd_ps(a, b, c) \
  mshadow_avx512_emulation::EachLane<float>(static_cast<float (*)(float, float, float)>(std::fma), a, b, c)
#define _mm512_fnmsub_ps(a, b, c) \
  mshadow_avx512_emulation::EachLane<float>(mshadow_avx512_emulation::NegMulSub, a, b, c)
#define _mm512_scalef_ps(x, n) \
  mshadow_avx512_emulation::EachLane<float>(mshadow_avx512_emulation::ScaleByPow2, x, n)
// A streaming store is an aligned store with a cache hint; the emulation keeps the alignment
// requirement and drops the hint.
#define _mm512_stream_ps(dst, x) simde_mm512_store_ps(dst, x)
#define _mm512_stream_pd(dst, x) simde_mm512_store_pd(dst, x)

#define MSHADOW_EMULATED_SLEEF_UNARY(name, scalar, vector, lane)                      \
  inline vector name(vector x) { return mshadow_avx512_emulation::EachLane<lane>(scalar, x); }
#define MSHADOW_EMULATED_SLEEF_BINARY(name, scalar, vector, lane)                      \
  inline vector name(vector x, vector y) {                                            \
    return mshadow_avx512_emulation::EachLane<lane>(scalar, x, y);                    \
  }
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_expd8_u10avx512f, Sleef_exp_u10, simde__m512d, double)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_logf16_u10avx512f, Sleef_logf_u10, simde__m512, float)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_logd8_u10avx512f, Sleef_log_u10, simde__m512d, double)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_expm1d8_u10avx512f, Sleef_expm1_u10, simde__m512d, double)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_log1pf16_u10avx512f, Sleef_log1pf_u10, simde__m512, float)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_log1pd8_u10avx512f, Sleef_log1p_u10, simde__m512d, double)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_tanhd8_u10avx512f, Sleef_tanh_u10, simde__m512d, double)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_erff16_u10avx512f, Sleef_erff_u10, simde__m512, float)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_erfd8_u10avx512f, Sleef_erf_u10, simde__m512d, double)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_sinf16_u10avx512f, Sleef_sinf_u10, simde__m512, float)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_sind8_u10avx512f, Sleef_sin_u10, simde__m512d, double)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_cosf16_u10avx512f, Sleef_cosf_u10, simde__m512, float)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_cosd8_u10avx512f, Sleef_cos_u10, simde__m512d, double)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_atanf16_u10avx512f, Sleef_atanf_u10, simde__m512, float)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_atand8_u10avx512f, Sleef_atan_u10, simde__m512d, double)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_cbrtf16_u10avx512f, Sleef_cbrtf_u10, simde__m512, float)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_cbrtd8_u10avx512f, Sleef_cbrt_u10, simde__m512d, double)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_log2f16_u10avx512f, Sleef_log2f_u10, simde__m512, float)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_log2d8_u10avx512f, Sleef_log2_u10, simde__m512d, double)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_log10f16_u10avx512f, Sleef_log10f_u10, simde__m512, float)
MSHADOW_EMULATED_SLEEF_UNARY(Sleef_log10d8_u10avx512f, Sleef_log10_u10, simde__m512d, double)
MSHADOW_EMULATED_SLEEF_BINARY(Sleef_powf16_u10avx512f, Sleef_powf_u10, simde__m512, float)
MSHADOW_EMULATED_SLEEF_BINARY(Sleef_powd8_u10avx512f, Sleef_pow_u10, simde__m512d, double)
MSHADOW_EMULATED_SLEEF_BINARY(Sleef_hypotf16_u05avx512f, Sleef_hypotf_u05, simde__m512, float)
MSHADOW_EMULATED_SLEEF_BINARY(Sleef_hypotd8_u05avx512f, Sleef_hypot_u05, simde__m512d, double)
#undef MSHADOW_EMULATED_SLEEF_UNARY
#undef MSHADOW_EMULATED_SLEEF_BINARY

#define MSHADOW_PACKET_HAS_AVX512 1

#endif  // !defined(__AVX512F__)
#endif  // MSHADOW_PACKET_AVX512_EMULATION_H_
