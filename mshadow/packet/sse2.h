// mshadow/packet/sse2.h: Packet<float, kSSE2> (4 lanes) and Packet<double, kSSE2> (2 lanes).
#ifndef MSHADOW_PACKET_SSE2_H_
#define MSHADOW_PACKET_SSE2_H_

#include "mshadow/packet/arch.h"
#include "mshadow/packet/plain.h"

#if MSHADOW_PACKET_HAS_SSE2
#include <emmintrin.h>
#include <sleef.h>

namespace mshadow {
namespace packet {

template <>
struct Packet<float, kSSE2> {
  static constexpr index_t kSize = 4;
  __m128 data_;

  Packet() = default;
  explicit Packet(__m128 data) : data_(data) {}

  MSHADOW_CINLINE static Packet Fill(float s) { return Packet(_mm_set1_ps(s)); }
  MSHADOW_CINLINE static Packet Load(const float* src) { return Packet(_mm_load_ps(src)); }
  MSHADOW_CINLINE static Packet LoadUnAligned(const float* src) { return Packet(_mm_loadu_ps(src)); }
  MSHADOW_CINLINE void Store(float* dst) const { _mm_store_ps(dst, data_); }
  MSHADOW_CINLINE void StoreUnAligned(float* dst) const { _mm_storeu_ps(dst, data_); }
  MSHADOW_CINLINE void StoreStreaming(float* dst) const { _mm_stream_ps(dst, data_); }
  MSHADOW_CINLINE float Sum() const {
    const __m128 pairs = _mm_add_ps(data_, _mm_movehl_ps(data_, data_));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1)));
  }
  MSHADOW_CINLINE Packet& operator=(float s) {
    data_ = _mm_set1_ps(s);
    return *this;
  }
};

template <>
struct Packet<double, kSSE2> {
  static constexpr index_t kSize = 2;
  __m128d data_;

  Packet() = default;
  explicit Packet(__m128d data) : data_(data) {}

  MSHADOW_CINLINE static Packet Fill(double s) { return Packet(_mm_set1_pd(s)); }
  MSHADOW_CINLINE static Packet Load(const double* src) { return Packet(_mm_load_pd(src)); }
  MSHADOW_CINLINE static Packet LoadUnAligned(const double* src) { return Packet(_mm_loadu_pd(src)); }
  MSHADOW_CINLINE void Store(double* dst) const { _mm_store_pd(dst, data_); }
  MSHADOW_CINLINE void StoreUnAligned(double* dst) const { _mm_storeu_pd(dst, data_); }
  MSHADOW_CINLINE void StoreStreaming(double* dst) const { _mm_stream_pd(dst, data_); }
  MSHADOW_CINLINE double Sum() const {
    return _mm_cvtsd_f64(_mm_add_sd(data_, _mm_unpackhi_pd(data_, data_)));
  }
  MSHADOW_CINLINE Packet& operator=(double s) {
    data_ = _mm_set1_pd(s);
    return *this;
  }
};

#define MSHADOW_SSE2_OPERATOR(symbol, ps, pd)                                              \
  MSHADOW_CINLINE Packet<float, kSSE2> operator symbol(Packet<float, kSSE2> a,             \
                                                       Packet<float, kSSE2> b) {           \
    return Packet<float, kSSE2>(ps(a.data_, b.data_));                                     \
  }                                                                                        \
  MSHADOW_CINLINE Packet<double, kSSE2> operator symbol(Packet<double, kSSE2> a,           \
                                                        Packet<double, kSSE2> b) {         \
    return Packet<double, kSSE2>(pd(a.data_, b.data_));                                    \
  }
MSHADOW_SSE2_OPERATOR(+, _mm_add_ps, _mm_add_pd)
MSHADOW_SSE2_OPERATOR(-, _mm_sub_ps, _mm_sub_pd)
MSHADOW_SSE2_OPERATOR(*, _mm_mul_ps, _mm_mul_pd)
MSHADOW_SSE2_OPERATOR(/, _mm_div_ps, _mm_div_pd)
#undef MSHADOW_SSE2_OPERATOR

// ---- Math, by the names every arch provides (mshadow/packet/math_ops.h builds the
// operators from them). Transcendentals are SLEEF's 1.0-ULP functions, except float exp,
// expm1 and tanh (and the composite sigmoid and softrelu), which mshadow/packet/float_math.h
// computes inline.

MSHADOW_CINLINE Packet<double, kSSE2> Exp(Packet<double, kSSE2> x) { return Packet<double, kSSE2>(Sleef_expd2_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<float, kSSE2> Log(Packet<float, kSSE2> x) { return Packet<float, kSSE2>(Sleef_logf4_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<double, kSSE2> Log(Packet<double, kSSE2> x) {
  return Packet<double, kSSE2>(Sleef_logd2_u10sse2(x.data_));
}
MSHADOW_CINLINE Packet<double, kSSE2> Expm1(Packet<double, kSSE2> x) {
  return Packet<double, kSSE2>(Sleef_expm1d2_u10sse2(x.data_));
}
MSHADOW_CINLINE Packet<float, kSSE2> Log1p(Packet<float, kSSE2> x) { return Packet<float, kSSE2>(Sleef_log1pf4_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<double, kSSE2> Log1p(Packet<double, kSSE2> x) { return Packet<double, kSSE2>(Sleef_log1pd2_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<float, kSSE2> Erf(Packet<float, kSSE2> x) { return Packet<float, kSSE2>(Sleef_erff4_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<double, kSSE2> Erf(Packet<double, kSSE2> x) { return Packet<double, kSSE2>(Sleef_erfd2_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<float, kSSE2> Sin(Packet<float, kSSE2> x) { return Packet<float, kSSE2>(Sleef_sinf4_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<double, kSSE2> Sin(Packet<double, kSSE2> x) { return Packet<double, kSSE2>(Sleef_sind2_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<float, kSSE2> Cos(Packet<float, kSSE2> x) { return Packet<float, kSSE2>(Sleef_cosf4_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<double, kSSE2> Cos(Packet<double, kSSE2> x) { return Packet<double, kSSE2>(Sleef_cosd2_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<float, kSSE2> Atan(Packet<float, kSSE2> x) { return Packet<float, kSSE2>(Sleef_atanf4_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<double, kSSE2> Atan(Packet<double, kSSE2> x) { return Packet<double, kSSE2>(Sleef_atand2_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<float, kSSE2> Cbrt(Packet<float, kSSE2> x) { return Packet<float, kSSE2>(Sleef_cbrtf4_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<double, kSSE2> Cbrt(Packet<double, kSSE2> x) { return Packet<double, kSSE2>(Sleef_cbrtd2_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<float, kSSE2> Log2(Packet<float, kSSE2> x) { return Packet<float, kSSE2>(Sleef_log2f4_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<double, kSSE2> Log2(Packet<double, kSSE2> x) { return Packet<double, kSSE2>(Sleef_log2d2_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<float, kSSE2> Log10(Packet<float, kSSE2> x) { return Packet<float, kSSE2>(Sleef_log10f4_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<double, kSSE2> Log10(Packet<double, kSSE2> x) { return Packet<double, kSSE2>(Sleef_log10d2_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<double, kSSE2> Tanh(Packet<double, kSSE2> x) { return Packet<double, kSSE2>(Sleef_tanhd2_u10sse2(x.data_)); }
MSHADOW_CINLINE Packet<float, kSSE2> Pow(Packet<float, kSSE2> x, Packet<float, kSSE2> y) { return Packet<float, kSSE2>(Sleef_powf4_u10sse2(x.data_, y.data_)); }
MSHADOW_CINLINE Packet<double, kSSE2> Pow(Packet<double, kSSE2> x, Packet<double, kSSE2> y) { return Packet<double, kSSE2>(Sleef_powd2_u10sse2(x.data_, y.data_)); }
MSHADOW_CINLINE Packet<float, kSSE2> Hypot(Packet<float, kSSE2> x, Packet<float, kSSE2> y) { return Packet<float, kSSE2>(Sleef_hypotf4_u05sse2(x.data_, y.data_)); }
MSHADOW_CINLINE Packet<double, kSSE2> Hypot(Packet<double, kSSE2> x, Packet<double, kSSE2> y) { return Packet<double, kSSE2>(Sleef_hypotd2_u05sse2(x.data_, y.data_)); }
MSHADOW_CINLINE Packet<float, kSSE2> Sqrt(Packet<float, kSSE2> x) { return Packet<float, kSSE2>(_mm_sqrt_ps(x.data_)); }
MSHADOW_CINLINE Packet<double, kSSE2> Sqrt(Packet<double, kSSE2> x) { return Packet<double, kSSE2>(_mm_sqrt_pd(x.data_)); }
// |x|: the sign bit cleared.
MSHADOW_CINLINE Packet<float, kSSE2> Abs(Packet<float, kSSE2> x) { return Packet<float, kSSE2>(_mm_andnot_ps(_mm_set1_ps(-0.0f), x.data_)); }
MSHADOW_CINLINE Packet<double, kSSE2> Abs(Packet<double, kSSE2> x) { return Packet<double, kSSE2>(_mm_andnot_pd(_mm_set1_pd(-0.0), x.data_)); }
// -x: the sign bit flipped.
MSHADOW_CINLINE Packet<float, kSSE2> Negate(Packet<float, kSSE2> x) { return Packet<float, kSSE2>(_mm_xor_ps(_mm_set1_ps(-0.0f), x.data_)); }
MSHADOW_CINLINE Packet<double, kSSE2> Negate(Packet<double, kSSE2> x) { return Packet<double, kSSE2>(_mm_xor_pd(_mm_set1_pd(-0.0), x.data_)); }
// if_true where mask's lanes are set, if_false elsewhere (SSE2 has no blend instruction).
MSHADOW_CINLINE Packet<float, kSSE2> SelectByMask(__m128 mask, Packet<float, kSSE2> if_true, Packet<float, kSSE2> if_false) {
  return Packet<float, kSSE2>(_mm_or_ps(_mm_and_ps(mask, if_true.data_), _mm_andnot_ps(mask, if_false.data_)));
}
MSHADOW_CINLINE Packet<double, kSSE2> SelectByMask(__m128d mask, Packet<double, kSSE2> if_true, Packet<double, kSSE2> if_false) {
  return Packet<double, kSSE2>(_mm_or_pd(_mm_and_pd(mask, if_true.data_), _mm_andnot_pd(mask, if_false.data_)));
}
// if_true where x >= 0 (not NaN), if_false elsewhere.
MSHADOW_CINLINE Packet<float, kSSE2> SelectNonNegative(Packet<float, kSSE2> x, Packet<float, kSSE2> if_true, Packet<float, kSSE2> if_false) { return SelectByMask(_mm_cmpge_ps(x.data_, _mm_setzero_ps()), if_true, if_false); }
MSHADOW_CINLINE Packet<double, kSSE2> SelectNonNegative(Packet<double, kSSE2> x, Packet<double, kSSE2> if_true, Packet<double, kSSE2> if_false) { return SelectByMask(_mm_cmpge_pd(x.data_, _mm_setzero_pd()), if_true, if_false); }
// if_true where x > 0 (not NaN), if_false elsewhere.
MSHADOW_CINLINE Packet<float, kSSE2> SelectPositive(Packet<float, kSSE2> x, Packet<float, kSSE2> if_true, Packet<float, kSSE2> if_false) { return SelectByMask(_mm_cmpgt_ps(x.data_, _mm_setzero_ps()), if_true, if_false); }
MSHADOW_CINLINE Packet<double, kSSE2> SelectPositive(Packet<double, kSSE2> x, Packet<double, kSSE2> if_true, Packet<double, kSSE2> if_false) { return SelectByMask(_mm_cmpgt_pd(x.data_, _mm_setzero_pd()), if_true, if_false); }
// if_true where a < b, a <= b, a == b (ordered: false where either is NaN), if_false elsewhere.
MSHADOW_CINLINE Packet<float, kSSE2> SelectLess(Packet<float, kSSE2> a, Packet<float, kSSE2> b, Packet<float, kSSE2> if_true, Packet<float, kSSE2> if_false) { return SelectByMask(_mm_cmplt_ps(a.data_, b.data_), if_true, if_false); }
MSHADOW_CINLINE Packet<double, kSSE2> SelectLess(Packet<double, kSSE2> a, Packet<double, kSSE2> b, Packet<double, kSSE2> if_true, Packet<double, kSSE2> if_false) { return SelectByMask(_mm_cmplt_pd(a.data_, b.data_), if_true, if_false); }
MSHADOW_CINLINE Packet<float, kSSE2> SelectLessEqual(Packet<float, kSSE2> a, Packet<float, kSSE2> b, Packet<float, kSSE2> if_true, Packet<float, kSSE2> if_false) { return SelectByMask(_mm_cmple_ps(a.data_, b.data_), if_true, if_false); }
MSHADOW_CINLINE Packet<double, kSSE2> SelectLessEqual(Packet<double, kSSE2> a, Packet<double, kSSE2> b, Packet<double, kSSE2> if_true, Packet<double, kSSE2> if_false) { return SelectByMask(_mm_cmple_pd(a.data_, b.data_), if_true, if_false); }
MSHADOW_CINLINE Packet<float, kSSE2> SelectEqual(Packet<float, kSSE2> a, Packet<float, kSSE2> b, Packet<float, kSSE2> if_true, Packet<float, kSSE2> if_false) { return SelectByMask(_mm_cmpeq_ps(a.data_, b.data_), if_true, if_false); }
MSHADOW_CINLINE Packet<double, kSSE2> SelectEqual(Packet<double, kSSE2> a, Packet<double, kSSE2> b, Packet<double, kSSE2> if_true, Packet<double, kSSE2> if_false) { return SelectByMask(_mm_cmpeq_pd(a.data_, b.data_), if_true, if_false); }
// The larger (Max) or smaller (Min) operand; NaN if either is NaN.
MSHADOW_CINLINE Packet<float, kSSE2> Max(Packet<float, kSSE2> a, Packet<float, kSSE2> b) {
  const __m128 nan = _mm_cmpunord_ps(a.data_, b.data_);
  return Packet<float, kSSE2>(_mm_or_ps(_mm_max_ps(a.data_, b.data_), _mm_and_ps(nan, _mm_add_ps(a.data_, b.data_))));
}
MSHADOW_CINLINE Packet<double, kSSE2> Max(Packet<double, kSSE2> a, Packet<double, kSSE2> b) {
  const __m128d nan = _mm_cmpunord_pd(a.data_, b.data_);
  return Packet<double, kSSE2>(_mm_or_pd(_mm_max_pd(a.data_, b.data_), _mm_and_pd(nan, _mm_add_pd(a.data_, b.data_))));
}
MSHADOW_CINLINE Packet<float, kSSE2> Min(Packet<float, kSSE2> a, Packet<float, kSSE2> b) {
  const __m128 nan = _mm_cmpunord_ps(a.data_, b.data_);
  return Packet<float, kSSE2>(_mm_or_ps(_mm_min_ps(a.data_, b.data_), _mm_and_ps(nan, _mm_add_ps(a.data_, b.data_))));
}
MSHADOW_CINLINE Packet<double, kSSE2> Min(Packet<double, kSSE2> a, Packet<double, kSSE2> b) {
  const __m128d nan = _mm_cmpunord_pd(a.data_, b.data_);
  return Packet<double, kSSE2>(_mm_or_pd(_mm_min_pd(a.data_, b.data_), _mm_and_pd(nan, _mm_add_pd(a.data_, b.data_))));
}

// ---- Float primitives of the project's own kernels (mshadow/packet/float_math.h).

// a * b + c (two roundings: SSE2 has no fused multiply-add).
MSHADOW_CINLINE Packet<float, kSSE2> MulAdd(Packet<float, kSSE2> a, Packet<float, kSSE2> b, Packet<float, kSSE2> c) { return a * b + c; }
// max(x, lo) and min(x, hi) that keep a NaN x (SSE returns the second operand when unordered).
MSHADOW_CINLINE Packet<float, kSSE2> ClampBelow(Packet<float, kSSE2> x, Packet<float, kSSE2> lo) { return Packet<float, kSSE2>(_mm_max_ps(lo.data_, x.data_)); }
MSHADOW_CINLINE Packet<float, kSSE2> ClampAbove(Packet<float, kSSE2> x, Packet<float, kSSE2> hi) { return Packet<float, kSSE2>(_mm_min_ps(hi.data_, x.data_)); }
// -(a * b) - c, with the signs of zeros a fused negative multiply-subtract gives: -0 where
// a * b is +0 and c is -0 (float_math.h's tanh relies on it for tanh(+-0)).
MSHADOW_CINLINE Packet<float, kSSE2> NegMulSub(Packet<float, kSSE2> a, Packet<float, kSSE2> b, Packet<float, kSSE2> c) { return Negate(a * b) - c; }
// 2^(n + bias - 127) for rounded = 1.5 * 2^23 + n (the form float_math.h rounds n in):
// the low bits of `rounded` hold n, so adding the bias and shifting them into the exponent
// field builds the power directly. n + bias must lie in [1, 254].
MSHADOW_CINLINE Packet<float, kSSE2> Pow2FromRounded(Packet<float, kSSE2> rounded, int bias) {
  const __m128i biased = _mm_add_epi32(_mm_castps_si128(rounded.data_), _mm_set1_epi32(bias));
  return Packet<float, kSSE2>(_mm_castsi128_ps(_mm_slli_epi32(biased, 23)));
}

}  // namespace packet
}  // namespace mshadow

#endif  // MSHADOW_PACKET_HAS_SSE2
#endif  // MSHADOW_PACKET_SSE2_H_
