// mshadow/packet/avx512.h: Packet<float, kAVX512> (16 lanes) and Packet<double, kAVX512>
// (8 lanes). Compiled when the build enables AVX-512F.
#ifndef MSHADOW_PACKET_AVX512_H_
#define MSHADOW_PACKET_AVX512_H_

#include "mshadow/packet/arch.h"
#include "mshadow/packet/plain.h"

#if MSHADOW_PACKET_HAS_AVX512
#include <immintrin.h>

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

}  // namespace packet
}  // namespace mshadow

#endif  // MSHADOW_PACKET_HAS_AVX512
#endif  // MSHADOW_PACKET_AVX512_H_
