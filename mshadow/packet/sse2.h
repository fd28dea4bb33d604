// mshadow/packet/sse2.h: Packet<float, kSSE2> (4 lanes) and Packet<double, kSSE2> (2 lanes).
#ifndef MSHADOW_PACKET_SSE2_H_
#define MSHADOW_PACKET_SSE2_H_

#include "mshadow/packet/arch.h"
#include "mshadow/packet/plain.h"

#if MSHADOW_PACKET_HAS_SSE2
#include <emmintrin.h>

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

}  // namespace packet
}  // namespace mshadow

#endif  // MSHADOW_PACKET_HAS_SSE2
#endif  // MSHADOW_PACKET_SSE2_H_
