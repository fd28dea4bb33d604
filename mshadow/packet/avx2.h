// mshadow/packet/avx2.h: Packet<float, kAVX2> (8 lanes) and Packet<double, kAVX2> (4 lanes).
// Compiled when the build enables AVX2 and FMA.
#ifndef MSHADOW_PACKET_AVX2_H_
#define MSHADOW_PACKET_AVX2_H_

#include "mshadow/packet/arch.h"
#include "mshadow/packet/plain.h"

#if MSHADOW_PACKET_HAS_AVX2
#include "mshadow/packet/x86_intrinsics.h"

namespace mshadow {
namespace packet {

template <>
struct Packet<float, kAVX2> {
  static constexpr index_t kSize = 8;
  __m256 data_;

  Packet() = default;
  explicit Packet(__m256 data) : data_(data) {}

  MSHADOW_CINLINE static Packet Fill(float s) { return Packet(_mm256_set1_ps(s)); }
  MSHADOW_CINLINE static Packet Load(const float* src) { return Packet(_mm256_load_ps(src)); }
  MSHADOW_CINLINE static Packet LoadUnAligned(const float* src) {
    return Packet(_mm256_loadu_ps(src));
  }
  MSHADOW_CINLINE void Store(float* dst) const { _mm256_store_ps(dst, data_); }
  MSHADOW_CINLINE void StoreUnAligned(float* dst) const { _mm256_storeu_ps(dst, data_); }
  MSHADOW_CINLINE void StoreStreaming(float* dst) const { _mm256_stream_ps(dst, data_); }
  MSHADOW_CINLINE float Sum() const {
    const __m128 half = _mm_add_ps(_mm256_castps256_ps128(data_), _mm256_extractf128_ps(data_, 1));
    const __m128 pairs = _mm_add_ps(half, _mm_movehl_ps(half, half));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1)));
  }
  MSHADOW_CINLINE Packet& operator=(float s) {
    data_ = _mm256_set1_ps(s);
    return *this;
  }
};

template <>
struct Packet<double, kAVX2> {
  static constexpr index_t kSize = 4;
  __m256d data_;

  Packet() = default;
  explicit Packet(__m256d data) : data_(data) {}

  MSHADOW_CINLINE static Packet Fill(double s) { return Packet(_mm256_set1_pd(s)); }
  MSHADOW_CINLINE static Packet Load(const double* src) { return Packet(_mm256_load_pd(src)); }
  MSHADOW_CINLINE static Packet LoadUnAligned(const double* src) {
    return Packet(_mm256_loadu_pd(src));
  }
  MSHADOW_CINLINE void Store(double* dst) const { _mm256_store_pd(dst, data_); }
  MSHADOW_CINLINE void StoreUnAligned(double* dst) const { _mm256_storeu_pd(dst, data_); }
  MSHADOW_CINLINE void StoreStreaming(double* dst) const { _mm256_stream_pd(dst, data_); }
  MSHADOW_CINLINE double Sum() const {
    const __m128d half =
        _mm_add_pd(_mm256_castpd256_pd128(data_), _mm256_extractf128_pd(data_, 1));
    return _mm_cvtsd_f64(_mm_add_sd(half, _mm_unpackhi_pd(half, half)));
  }
  MSHADOW_CINLINE Packet& operator=(double s) {
    data_ = _mm256_set1_pd(s);
    return *this;
  }
};

#define MSHADOW_AVX2_OPERATOR(symbol, ps, pd)                                              \
  MSHADOW_CINLINE Packet<float, kAVX2> operator symbol(Packet<float, kAVX2> a,             \
                                                       Packet<float, kAVX2> b) {           \
    return Packet<float, kAVX2>(ps(a.data_, b.data_));                                     \
  }                                                                                        \
  MSHADOW_CINLINE Packet<double, kAVX2> operator symbol(Packet<double, kAVX2> a,           \
                                                        Packet<double, kAVX2> b) {         \
    return Packet<double, kAVX2>(pd(a.data_, b.data_));                                    \
  }
MSHADOW_AVX2_OPERATOR(+, _mm256_add_ps, _mm256_add_pd)
MSHADOW_AVX2_OPERATOR(-, _mm256_sub_ps, _mm256_sub_pd)
MSHADOW_AVX2_OPERATOR(*, _mm256_mul_ps, _mm256_mul_pd)
MSHADOW_AVX2_OPERATOR(/, _mm256_div_ps, _mm256_div_pd)
#undef MSHADOW_AVX2_OPERATOR

// ---- Math, by the names every arch provides (see sse2.h).

MSHADOW_CINLINE Packet<double, kAVX2> Exp(Packet<double, kAVX2> x) { return Packet<double, kAVX2>(Sleef_expd4_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> Log(Packet<float, kAVX2> x) { return Packet<float, kAVX2>(Sleef_logf8_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX2> Log(Packet<double, kAVX2> x) {
  return Packet<double, kAVX2>(Sleef_logd4_u10avx2(x.data_));
}
MSHADOW_CINLINE Packet<double, kAVX2> Expm1(Packet<double, kAVX2> x) {
  return Packet<double, kAVX2>(Sleef_expm1d4_u10avx2(x.data_));
}
MSHADOW_CINLINE Packet<float, kAVX2> Log1p(Packet<float, kAVX2> x) { return Packet<float, kAVX2>(Sleef_log1pf8_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX2> Log1p(Packet<double, kAVX2> x) { return Packet<double, kAVX2>(Sleef_log1pd4_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> Erf(Packet<float, kAVX2> x) { return Packet<float, kAVX2>(Sleef_erff8_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX2> Erf(Packet<double, kAVX2> x) { return Packet<double, kAVX2>(Sleef_erfd4_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> Sin(Packet<float, kAVX2> x) { return Packet<float, kAVX2>(Sleef_sinf8_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX2> Sin(Packet<double, kAVX2> x) { return Packet<double, kAVX2>(Sleef_sind4_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> Cos(Packet<float, kAVX2> x) { return Packet<float, kAVX2>(Sleef_cosf8_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX2> Cos(Packet<double, kAVX2> x) { return Packet<double, kAVX2>(Sleef_cosd4_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> Atan(Packet<float, kAVX2> x) { return Packet<float, kAVX2>(Sleef_atanf8_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX2> Atan(Packet<double, kAVX2> x) { return Packet<double, kAVX2>(Sleef_atand4_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> Cbrt(Packet<float, kAVX2> x) { return Packet<float, kAVX2>(Sleef_cbrtf8_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX2> Cbrt(Packet<double, kAVX2> x) { return Packet<double, kAVX2>(Sleef_cbrtd4_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> Log2(Packet<float, kAVX2> x) { return Packet<float, kAVX2>(Sleef_log2f8_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX2> Log2(Packet<double, kAVX2> x) { return Packet<double, kAVX2>(Sleef_log2d4_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> Log10(Packet<float, kAVX2> x) { return Packet<float, kAVX2>(Sleef_log10f8_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX2> Log10(Packet<double, kAVX2> x) { return Packet<double, kAVX2>(Sleef_log10d4_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX2> Tanh(Packet<double, kAVX2> x) { return Packet<double, kAVX2>(Sleef_tanhd4_u10avx2(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> Pow(Packet<float, kAVX2> x, Packet<float, kAVX2> y) { return Packet<float, kAVX2>(Sleef_powf8_u10avx2(x.data_, y.data_)); }
MSHADOW_CINLINE Packet<double, kAVX2> Pow(Packet<double, kAVX2> x, Packet<double, kAVX2> y) { return Packet<double, kAVX2>(Sleef_powd4_u10avx2(x.data_, y.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> Hypot(Packet<float, kAVX2> x, Packet<float, kAVX2> y) { return Packet<float, kAVX2>(Sleef_hypotf8_u05avx2(x.data_, y.data_)); }
MSHADOW_CINLINE Packet<double, kAVX2> Hypot(Packet<double, kAVX2> x, Packet<double, kAVX2> y) { return Packet<double, kAVX2>(Sleef_hypotd4_u05avx2(x.data_, y.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> Sqrt(Packet<float, kAVX2> x) { return Packet<float, kAVX2>(_mm256_sqrt_ps(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX2> Sqrt(Packet<double, kAVX2> x) { return Packet<double, kAVX2>(_mm256_sqrt_pd(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> Abs(Packet<float, kAVX2> x) { return Packet<float, kAVX2>(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX2> Abs(Packet<double, kAVX2> x) { return Packet<double, kAVX2>(_mm256_andnot_pd(_mm256_set1_pd(-0.0), x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> Negate(Packet<float, kAVX2> x) { return Packet<float, kAVX2>(_mm256_xor_ps(_mm256_set1_ps(-0.0f), x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX2> Negate(Packet<double, kAVX2> x) { return Packet<double, kAVX2>(_mm256_xor_pd(_mm256_set1_pd(-0.0), x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> SelectPositive(Packet<float, kAVX2> x,
                                                    Packet<float, kAVX2> if_true,
                                                    Packet<float, kAVX2> if_false) {
  return Packet<float, kAVX2>(_mm256_blendv_ps(
      if_false.data_, if_true.data_, _mm256_cmp_ps(x.data_, _mm256_setzero_ps(), _CMP_GT_OQ)));
}
MSHADOW_CINLINE Packet<double, kAVX2> SelectPositive(Packet<double, kAVX2> x,
                                                     Packet<double, kAVX2> if_true,
                                                     Packet<double, kAVX2> if_false) {
  return Packet<double, kAVX2>(_mm256_blendv_pd(
      if_false.data_, if_true.data_, _mm256_cmp_pd(x.data_, _mm256_setzero_pd(), _CMP_GT_OQ)));
}
MSHADOW_CINLINE Packet<float, kAVX2> SelectNonNegative(Packet<float, kAVX2> x, Packet<float, kAVX2> if_true, Packet<float, kAVX2> if_false) {
  return Packet<float, kAVX2>(_mm256_blendv_ps(if_false.data_, if_true.data_, _mm256_cmp_ps(x.data_, _mm256_setzero_ps(), _CMP_GE_OQ)));
}
MSHADOW_CINLINE Packet<double, kAVX2> SelectNonNegative(Packet<double, kAVX2> x, Packet<double, kAVX2> if_true, Packet<double, kAVX2> if_false) {
  return Packet<double, kAVX2>(_mm256_blendv_pd(if_false.data_, if_true.data_, _mm256_cmp_pd(x.data_, _mm256_setzero_pd(), _CMP_GE_OQ)));
}
// if_true where a < b, a <= b, a == b (ordered: false where either is NaN), if_false elsewhere.
MSHADOW_CINLINE Packet<float, kAVX2> SelectLess(Packet<float, kAVX2> a, Packet<float, kAVX2> b, Packet<float, kAVX2> if_true, Packet<float, kAVX2> if_false) { return Packet<float, kAVX2>(_mm256_blendv_ps(if_false.data_, if_true.data_, _mm256_cmp_ps(a.data_, b.data_, _CMP_LT_OQ))); }
MSHADOW_CINLINE Packet<double, kAVX2> SelectLess(Packet<double, kAVX2> a, Packet<double, kAVX2> b, Packet<double, kAVX2> if_true, Packet<double, kAVX2> if_false) { return Packet<double, kAVX2>(_mm256_blendv_pd(if_false.data_, if_true.data_, _mm256_cmp_pd(a.data_, b.data_, _CMP_LT_OQ))); }
MSHADOW_CINLINE Packet<float, kAVX2> SelectLessEqual(Packet<float, kAVX2> a, Packet<float, kAVX2> b, Packet<float, kAVX2> if_true, Packet<float, kAVX2> if_false) { return Packet<float, kAVX2>(_mm256_blendv_ps(if_false.data_, if_true.data_, _mm256_cmp_ps(a.data_, b.data_, _CMP_LE_OQ))); }
MSHADOW_CINLINE Packet<double, kAVX2> SelectLessEqual(Packet<double, kAVX2> a, Packet<double, kAVX2> b, Packet<double, kAVX2> if_true, Packet<double, kAVX2> if_false) { return Packet<double, kAVX2>(_mm256_blendv_pd(if_false.data_, if_true.data_, _mm256_cmp_pd(a.data_, b.data_, _CMP_LE_OQ))); }
MSHADOW_CINLINE Packet<float, kAVX2> SelectEqual(Packet<float, kAVX2> a, Packet<float, kAVX2> b, Packet<float, kAVX2> if_true, Packet<float, kAVX2> if_false) { return Packet<float, kAVX2>(_mm256_blendv_ps(if_false.data_, if_true.data_, _mm256_cmp_ps(a.data_, b.data_, _CMP_EQ_OQ))); }
MSHADOW_CINLINE Packet<double, kAVX2> SelectEqual(Packet<double, kAVX2> a, Packet<double, kAVX2> b, Packet<double, kAVX2> if_true, Packet<double, kAVX2> if_false) { return Packet<double, kAVX2>(_mm256_blendv_pd(if_false.data_, if_true.data_, _mm256_cmp_pd(a.data_, b.data_, _CMP_EQ_OQ))); }
MSHADOW_CINLINE Packet<float, kAVX2> Max(Packet<float, kAVX2> a, Packet<float, kAVX2> b) {
  const __m256 nan = _mm256_cmp_ps(a.data_, b.data_, _CMP_UNORD_Q);
  return Packet<float, kAVX2>(_mm256_blendv_ps(_mm256_max_ps(a.data_, b.data_), _mm256_add_ps(a.data_, b.data_), nan));
}
MSHADOW_CINLINE Packet<double, kAVX2> Max(Packet<double, kAVX2> a, Packet<double, kAVX2> b) {
  const __m256d nan = _mm256_cmp_pd(a.data_, b.data_, _CMP_UNORD_Q);
  return Packet<double, kAVX2>(_mm256_blendv_pd(_mm256_max_pd(a.data_, b.data_), _mm256_add_pd(a.data_, b.data_), nan));
}
MSHADOW_CINLINE Packet<float, kAVX2> Min(Packet<float, kAVX2> a, Packet<float, kAVX2> b) {
  const __m256 nan = _mm256_cmp_ps(a.data_, b.data_, _CMP_UNORD_Q);
  return Packet<float, kAVX2>(_mm256_blendv_ps(_mm256_min_ps(a.data_, b.data_), _mm256_add_ps(a.data_, b.data_), nan));
}
MSHADOW_CINLINE Packet<double, kAVX2> Min(Packet<double, kAVX2> a, Packet<double, kAVX2> b) {
  const __m256d nan = _mm256_cmp_pd(a.data_, b.data_, _CMP_UNORD_Q);
  return Packet<double, kAVX2>(_mm256_blendv_pd(_mm256_min_pd(a.data_, b.data_), _mm256_add_pd(a.data_, b.data_), nan));
}

// ---- Float primitives of the project's own exp/tanh/sigmoid (see sse2.h).

MSHADOW_CINLINE Packet<float, kAVX2> MulAdd(Packet<float, kAVX2> a, Packet<float, kAVX2> b, Packet<float, kAVX2> c) { return Packet<float, kAVX2>(_mm256_fmadd_ps(a.data_, b.data_, c.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> ClampBelow(Packet<float, kAVX2> x, Packet<float, kAVX2> lo) { return Packet<float, kAVX2>(_mm256_max_ps(lo.data_, x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> ClampAbove(Packet<float, kAVX2> x, Packet<float, kAVX2> hi) { return Packet<float, kAVX2>(_mm256_min_ps(hi.data_, x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> NegMulSub(Packet<float, kAVX2> a, Packet<float, kAVX2> b, Packet<float, kAVX2> c) { return Packet<float, kAVX2>(_mm256_fnmsub_ps(a.data_, b.data_, c.data_)); }
MSHADOW_CINLINE Packet<float, kAVX2> Pow2FromRounded(Packet<float, kAVX2> rounded, int bias) {
  const __m256i biased = _mm256_add_epi32(_mm256_castps_si256(rounded.data_), _mm256_set1_epi32(bias));
  return Packet<float, kAVX2>(_mm256_castsi256_ps(_mm256_slli_epi32(biased, 23)));
}

}  // namespace packet
}  // namespace mshadow

#endif  // MSHADOW_PACKET_HAS_AVX2
#endif  // MSHADOW_PACKET_AVX2_H_
