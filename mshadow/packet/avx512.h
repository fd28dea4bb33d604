// mshadow/packet/avx512.h: Packet<float, kAVX512> (16 lanes) and Packet<double, kAVX512>
// (8 lanes). Compiled when the build enables AVX-512F.
#ifndef MSHADOW_PACKET_AVX512_H_
#define MSHADOW_PACKET_AVX512_H_

#include "mshadow/packet/arch.h"
#include "mshadow/packet/plain.h"

#if MSHADOW_PACKET_HAS_AVX512
#include "mshadow/packet/x86_intrinsics.h"

#include <cstdint>

namespace mshadow {
namespace packet {

template <>
struct Packet<float, kAVX512> {
  static constexpr index_t kSize = 16;
  __m512 data_;

  Packet() = default;
  explicit Packet(__m512 data) : data_(data) {}

  MSHADOW_CINLINE static Packet Fill(float s) { return Packet(_mm512_set1_ps(s)); }
  MSHADOW_CINLINE static Packet Load(const float* src) { return Packet(_mm512_load_ps(src)); }
  MSHADOW_CINLINE static Packet LoadUnAligned(const float* src) {
    return Packet(_mm512_loadu_ps(src));
  }
  MSHADOW_CINLINE void Store(float* dst) const { _mm512_store_ps(dst, data_); }
  MSHADOW_CINLINE void StoreUnAligned(float* dst) const { _mm512_storeu_ps(dst, data_); }
  MSHADOW_CINLINE void StoreStreaming(float* dst) const { _mm512_stream_ps(dst, data_); }
  MSHADOW_CINLINE float Sum() const { return _mm512_reduce_add_ps(data_); }
  MSHADOW_CINLINE Packet& operator=(float s) {
    data_ = _mm512_set1_ps(s);
    return *this;
  }
};

template <>
struct Packet<double, kAVX512> {
  static constexpr index_t kSize = 8;
  __m512d data_;

  Packet() = default;
  explicit Packet(__m512d data) : data_(data) {}

  MSHADOW_CINLINE static Packet Fill(double s) { return Packet(_mm512_set1_pd(s)); }
  MSHADOW_CINLINE static Packet Load(const double* src) { return Packet(_mm512_load_pd(src)); }
  MSHADOW_CINLINE static Packet LoadUnAligned(const double* src) {
    return Packet(_mm512_loadu_pd(src));
  }
  MSHADOW_CINLINE void Store(double* dst) const { _mm512_store_pd(dst, data_); }
  MSHADOW_CINLINE void StoreUnAligned(double* dst) const { _mm512_storeu_pd(dst, data_); }
  MSHADOW_CINLINE void StoreStreaming(double* dst) const { _mm512_stream_pd(dst, data_); }
  MSHADOW_CINLINE double Sum() const { return _mm512_reduce_add_pd(data_); }
  MSHADOW_CINLINE Packet& operator=(double s) {
    data_ = _mm512_set1_pd(s);
    return *this;
  }
};

#define MSHADOW_AVX512_OPERATOR(symbol, ps, pd)                                            \
  MSHADOW_CINLINE Packet<float, kAVX512> operator symbol(Packet<float, kAVX512> a,         \
                                                         Packet<float, kAVX512> b) {       \
    return Packet<float, kAVX512>(ps(a.data_, b.data_));                                   \
  }                                                                                        \
  MSHADOW_CINLINE Packet<double, kAVX512> operator symbol(Packet<double, kAVX512> a,       \
                                                          Packet<double, kAVX512> b) {     \
    return Packet<double, kAVX512>(pd(a.data_, b.data_));                                  \
  }
MSHADOW_AVX512_OPERATOR(+, _mm512_add_ps, _mm512_add_pd)
MSHADOW_AVX512_OPERATOR(-, _mm512_sub_ps, _mm512_sub_pd)
MSHADOW_AVX512_OPERATOR(*, _mm512_mul_ps, _mm512_mul_pd)
MSHADOW_AVX512_OPERATOR(/, _mm512_div_ps, _mm512_div_pd)
#undef MSHADOW_AVX512_OPERATOR

// ---- Math, by the names every arch provides (see sse2.h).

MSHADOW_CINLINE Packet<double, kAVX512> Exp(Packet<double, kAVX512> x) { return Packet<double, kAVX512>(Sleef_expd8_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> Log(Packet<float, kAVX512> x) { return Packet<float, kAVX512>(Sleef_logf16_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> Log(Packet<double, kAVX512> x) {
  return Packet<double, kAVX512>(Sleef_logd8_u10avx512f(x.data_));
}
MSHADOW_CINLINE Packet<double, kAVX512> Expm1(Packet<double, kAVX512> x) {
  return Packet<double, kAVX512>(Sleef_expm1d8_u10avx512f(x.data_));
}
MSHADOW_CINLINE Packet<float, kAVX512> Log1p(Packet<float, kAVX512> x) { return Packet<float, kAVX512>(Sleef_log1pf16_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> Log1p(Packet<double, kAVX512> x) { return Packet<double, kAVX512>(Sleef_log1pd8_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> Erf(Packet<float, kAVX512> x) { return Packet<float, kAVX512>(Sleef_erff16_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> Erf(Packet<double, kAVX512> x) { return Packet<double, kAVX512>(Sleef_erfd8_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> Sin(Packet<float, kAVX512> x) { return Packet<float, kAVX512>(Sleef_sinf16_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> Sin(Packet<double, kAVX512> x) { return Packet<double, kAVX512>(Sleef_sind8_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> Cos(Packet<float, kAVX512> x) { return Packet<float, kAVX512>(Sleef_cosf16_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> Cos(Packet<double, kAVX512> x) { return Packet<double, kAVX512>(Sleef_cosd8_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> Atan(Packet<float, kAVX512> x) { return Packet<float, kAVX512>(Sleef_atanf16_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> Atan(Packet<double, kAVX512> x) { return Packet<double, kAVX512>(Sleef_atand8_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> Cbrt(Packet<float, kAVX512> x) { return Packet<float, kAVX512>(Sleef_cbrtf16_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> Cbrt(Packet<double, kAVX512> x) { return Packet<double, kAVX512>(Sleef_cbrtd8_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> Log2(Packet<float, kAVX512> x) { return Packet<float, kAVX512>(Sleef_log2f16_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> Log2(Packet<double, kAVX512> x) { return Packet<double, kAVX512>(Sleef_log2d8_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> Log10(Packet<float, kAVX512> x) { return Packet<float, kAVX512>(Sleef_log10f16_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> Log10(Packet<double, kAVX512> x) { return Packet<double, kAVX512>(Sleef_log10d8_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> Tanh(Packet<double, kAVX512> x) { return Packet<double, kAVX512>(Sleef_tanhd8_u10avx512f(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> Pow(Packet<float, kAVX512> x, Packet<float, kAVX512> y) { return Packet<float, kAVX512>(Sleef_powf16_u10avx512f(x.data_, y.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> Pow(Packet<double, kAVX512> x, Packet<double, kAVX512> y) { return Packet<double, kAVX512>(Sleef_powd8_u10avx512f(x.data_, y.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> Hypot(Packet<float, kAVX512> x, Packet<float, kAVX512> y) { return Packet<float, kAVX512>(Sleef_hypotf16_u05avx512f(x.data_, y.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> Hypot(Packet<double, kAVX512> x, Packet<double, kAVX512> y) { return Packet<double, kAVX512>(Sleef_hypotd8_u05avx512f(x.data_, y.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> Sqrt(Packet<float, kAVX512> x) { return Packet<float, kAVX512>(_mm512_sqrt_ps(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> Sqrt(Packet<double, kAVX512> x) { return Packet<double, kAVX512>(_mm512_sqrt_pd(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> Abs(Packet<float, kAVX512> x) { return Packet<float, kAVX512>(_mm512_abs_ps(x.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> Abs(Packet<double, kAVX512> x) { return Packet<double, kAVX512>(_mm512_abs_pd(x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> Negate(Packet<float, kAVX512> x) {
  return Packet<float, kAVX512>(_mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x.data_), _mm512_set1_epi32(INT32_MIN))));
}
MSHADOW_CINLINE Packet<double, kAVX512> Negate(Packet<double, kAVX512> x) {
  return Packet<double, kAVX512>(_mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(x.data_), _mm512_set1_epi64(INT64_MIN))));
}
MSHADOW_CINLINE Packet<float, kAVX512> SelectPositive(Packet<float, kAVX512> x,
                                                      Packet<float, kAVX512> if_true,
                                                      Packet<float, kAVX512> if_false) {
  return Packet<float, kAVX512>(_mm512_mask_blend_ps(
      _mm512_cmp_ps_mask(x.data_, _mm512_setzero_ps(), _CMP_GT_OQ), if_false.data_, if_true.data_));
}
MSHADOW_CINLINE Packet<double, kAVX512> SelectPositive(Packet<double, kAVX512> x,
                                                       Packet<double, kAVX512> if_true,
                                                       Packet<double, kAVX512> if_false) {
  return Packet<double, kAVX512>(_mm512_mask_blend_pd(
      _mm512_cmp_pd_mask(x.data_, _mm512_setzero_pd(), _CMP_GT_OQ), if_false.data_, if_true.data_));
}
MSHADOW_CINLINE Packet<float, kAVX512> SelectNonNegative(Packet<float, kAVX512> x, Packet<float, kAVX512> if_true, Packet<float, kAVX512> if_false) {
  return Packet<float, kAVX512>(_mm512_mask_blend_ps(_mm512_cmp_ps_mask(x.data_, _mm512_setzero_ps(), _CMP_GE_OQ), if_false.data_, if_true.data_));
}
MSHADOW_CINLINE Packet<double, kAVX512> SelectNonNegative(Packet<double, kAVX512> x, Packet<double, kAVX512> if_true, Packet<double, kAVX512> if_false) {
  return Packet<double, kAVX512>(_mm512_mask_blend_pd(_mm512_cmp_pd_mask(x.data_, _mm512_setzero_pd(), _CMP_GE_OQ), if_false.data_, if_true.data_));
}
// if_true where a < b, a <= b, a == b (ordered: false where either is NaN), if_false elsewhere.
MSHADOW_CINLINE Packet<float, kAVX512> SelectLess(Packet<float, kAVX512> a, Packet<float, kAVX512> b, Packet<float, kAVX512> if_true, Packet<float, kAVX512> if_false) { return Packet<float, kAVX512>(_mm512_mask_blend_ps(_mm512_cmp_ps_mask(a.data_, b.data_, _CMP_LT_OQ), if_false.data_, if_true.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> SelectLess(Packet<double, kAVX512> a, Packet<double, kAVX512> b, Packet<double, kAVX512> if_true, Packet<double, kAVX512> if_false) { return Packet<double, kAVX512>(_mm512_mask_blend_pd(_mm512_cmp_pd_mask(a.data_, b.data_, _CMP_LT_OQ), if_false.data_, if_true.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> SelectLessEqual(Packet<float, kAVX512> a, Packet<float, kAVX512> b, Packet<float, kAVX512> if_true, Packet<float, kAVX512> if_false) { return Packet<float, kAVX512>(_mm512_mask_blend_ps(_mm512_cmp_ps_mask(a.data_, b.data_, _CMP_LE_OQ), if_false.data_, if_true.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> SelectLessEqual(Packet<double, kAVX512> a, Packet<double, kAVX512> b, Packet<double, kAVX512> if_true, Packet<double, kAVX512> if_false) { return Packet<double, kAVX512>(_mm512_mask_blend_pd(_mm512_cmp_pd_mask(a.data_, b.data_, _CMP_LE_OQ), if_false.data_, if_true.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> SelectEqual(Packet<float, kAVX512> a, Packet<float, kAVX512> b, Packet<float, kAVX512> if_true, Packet<float, kAVX512> if_false) { return Packet<float, kAVX512>(_mm512_mask_blend_ps(_mm512_cmp_ps_mask(a.data_, b.data_, _CMP_EQ_OQ), if_false.data_, if_true.data_)); }
MSHADOW_CINLINE Packet<double, kAVX512> SelectEqual(Packet<double, kAVX512> a, Packet<double, kAVX512> b, Packet<double, kAVX512> if_true, Packet<double, kAVX512> if_false) { return Packet<double, kAVX512>(_mm512_mask_blend_pd(_mm512_cmp_pd_mask(a.data_, b.data_, _CMP_EQ_OQ), if_false.data_, if_true.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> Max(Packet<float, kAVX512> a, Packet<float, kAVX512> b) {
  return Packet<float, kAVX512>(_mm512_mask_blend_ps(_mm512_cmp_ps_mask(a.data_, b.data_, _CMP_UNORD_Q), _mm512_max_ps(a.data_, b.data_), _mm512_add_ps(a.data_, b.data_)));
}
MSHADOW_CINLINE Packet<double, kAVX512> Max(Packet<double, kAVX512> a, Packet<double, kAVX512> b) {
  return Packet<double, kAVX512>(_mm512_mask_blend_pd(_mm512_cmp_pd_mask(a.data_, b.data_, _CMP_UNORD_Q), _mm512_max_pd(a.data_, b.data_), _mm512_add_pd(a.data_, b.data_)));
}
MSHADOW_CINLINE Packet<float, kAVX512> Min(Packet<float, kAVX512> a, Packet<float, kAVX512> b) {
  return Packet<float, kAVX512>(_mm512_mask_blend_ps(_mm512_cmp_ps_mask(a.data_, b.data_, _CMP_UNORD_Q), _mm512_min_ps(a.data_, b.data_), _mm512_add_ps(a.data_, b.data_)));
}
MSHADOW_CINLINE Packet<double, kAVX512> Min(Packet<double, kAVX512> a, Packet<double, kAVX512> b) {
  return Packet<double, kAVX512>(_mm512_mask_blend_pd(_mm512_cmp_pd_mask(a.data_, b.data_, _CMP_UNORD_Q), _mm512_min_pd(a.data_, b.data_), _mm512_add_pd(a.data_, b.data_)));
}

// ---- Float primitives of the project's own exp/tanh/sigmoid (see sse2.h).

MSHADOW_CINLINE Packet<float, kAVX512> MulAdd(Packet<float, kAVX512> a, Packet<float, kAVX512> b, Packet<float, kAVX512> c) { return Packet<float, kAVX512>(_mm512_fmadd_ps(a.data_, b.data_, c.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> ClampBelow(Packet<float, kAVX512> x, Packet<float, kAVX512> lo) { return Packet<float, kAVX512>(_mm512_max_ps(lo.data_, x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> ClampAbove(Packet<float, kAVX512> x, Packet<float, kAVX512> hi) { return Packet<float, kAVX512>(_mm512_min_ps(hi.data_, x.data_)); }
MSHADOW_CINLINE Packet<float, kAVX512> NegMulSub(Packet<float, kAVX512> a, Packet<float, kAVX512> b, Packet<float, kAVX512> c) { return Packet<float, kAVX512>(_mm512_fnmsub_ps(a.data_, b.data_, c.data_)); }
// p * 2^n for integral n (vscalefps): exact, or rounded once where the result is denormal
// or overflows. float_math.h uses it in place of Pow2FromRounded factors.
MSHADOW_CINLINE Packet<float, kAVX512> ScaleByPow2(Packet<float, kAVX512> p, Packet<float, kAVX512> n) {
  return Packet<float, kAVX512>(_mm512_scalef_ps(p.data_, n.data_));
}
MSHADOW_CINLINE Packet<float, kAVX512> Pow2FromRounded(Packet<float, kAVX512> rounded, int bias) {
  const __m512i biased = _mm512_add_epi32(_mm512_castps_si512(rounded.data_), _mm512_set1_epi32(bias));
  return Packet<float, kAVX512>(_mm512_castsi512_ps(_mm512_slli_epi32(biased, 23)));
}

}  // namespace packet
}  // namespace mshadow

#endif  // MSHADOW_PACKET_HAS_AVX512
#endif  // MSHADOW_PACKET_AVX512_H_
