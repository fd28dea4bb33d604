// mshadow/packet/avx2.h: Packet<float, kAVX2> (8 lanes) and Packet<double, kAVX2> (4 lanes).
// Compiled when the build enables AVX2 and FMA.
#ifndef MSHADOW_PACKET_AVX2_H_
#define MSHADOW_PACKET_AVX2_H_

#include "mshadow/packet/arch.h"
#include "mshadow/packet/plain.h"

#if MSHADOW_PACKET_HAS_AVX2
#include <immintrin.h>

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

}  // namespace packet
}  // namespace mshadow

#endif  // MSHADOW_PACKET_HAS_AVX2
#endif  // MSHADOW_PACKET_AVX2_H_
