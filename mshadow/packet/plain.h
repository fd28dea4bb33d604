// mshadow/packet/plain.h: Packet<DType, kPlain>, one element: the portable fallback and the
// reference every vector arch is tested against.
#ifndef MSHADOW_PACKET_PLAIN_H_
#define MSHADOW_PACKET_PLAIN_H_

#include <algorithm>
#include <cmath>

#include "mshadow/packet/arch.h"

namespace mshadow {
namespace packet {

template <typename DType, PacketArch Arch>
struct Packet;

template <typename DType>
struct Packet<DType, kPlain> {
  static constexpr index_t kSize = 1;
  DType data_;

  Packet() = default;
  explicit Packet(DType data) : data_(data) {}

  MSHADOW_CINLINE static Packet Fill(DType s) { return Packet(s); }
  MSHADOW_CINLINE static Packet Load(const DType* src) { return Packet(*src); }
  MSHADOW_CINLINE static Packet LoadUnAligned(const DType* src) { return Packet(*src); }
  MSHADOW_CINLINE void Store(DType* dst) const { *dst = data_; }
  MSHADOW_CINLINE void StoreUnAligned(DType* dst) const { *dst = data_; }
  // Aligned store that writes around the caches on the SIMD arches (non-temporal, for
  // outputs too large to stay cached; see mshadow/streaming_stores.h); kPlain stores normally.
  MSHADOW_CINLINE void StoreStreaming(DType* dst) const { *dst = data_; }
  // The sum of the lanes.
  MSHADOW_CINLINE DType Sum() const { return data_; }
  MSHADOW_CINLINE Packet& operator=(DType s) {
    data_ = s;
    return *this;
  }
};

template <typename DType>
MSHADOW_CINLINE Packet<DType, kPlain> operator+(Packet<DType, kPlain> a, Packet<DType, kPlain> b) {
  return Packet<DType, kPlain>(a.data_ + b.data_);
}
template <typename DType>
MSHADOW_CINLINE Packet<DType, kPlain> operator-(Packet<DType, kPlain> a, Packet<DType, kPlain> b) {
  return Packet<DType, kPlain>(a.data_ - b.data_);
}
template <typename DType>
MSHADOW_CINLINE Packet<DType, kPlain> operator*(Packet<DType, kPlain> a, Packet<DType, kPlain> b) {
  return Packet<DType, kPlain>(a.data_ * b.data_);
}
template <typename DType>
MSHADOW_CINLINE Packet<DType, kPlain> operator/(Packet<DType, kPlain> a, Packet<DType, kPlain> b) {
  return Packet<DType, kPlain>(a.data_ / b.data_);
}

// ---- Math, by the names every arch provides (see sse2.h): the C library, one element.

template <typename DType>
using PlainPacket = Packet<DType, kPlain>;

template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Exp(PlainPacket<DType> x) { return PlainPacket<DType>(std::exp(x.data_)); }
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Log(PlainPacket<DType> x) { return PlainPacket<DType>(std::log(x.data_)); }
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Expm1(PlainPacket<DType> x) {
  return PlainPacket<DType>(std::expm1(x.data_));
}
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Log1p(PlainPacket<DType> x) {
  return PlainPacket<DType>(std::log1p(x.data_));
}
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Erf(PlainPacket<DType> x) { return PlainPacket<DType>(std::erf(x.data_)); }
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Sin(PlainPacket<DType> x) { return PlainPacket<DType>(std::sin(x.data_)); }
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Cos(PlainPacket<DType> x) { return PlainPacket<DType>(std::cos(x.data_)); }
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Atan(PlainPacket<DType> x) { return PlainPacket<DType>(std::atan(x.data_)); }
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Cbrt(PlainPacket<DType> x) { return PlainPacket<DType>(std::cbrt(x.data_)); }
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Log2(PlainPacket<DType> x) { return PlainPacket<DType>(std::log2(x.data_)); }
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Log10(PlainPacket<DType> x) { return PlainPacket<DType>(std::log10(x.data_)); }
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Tanh(PlainPacket<DType> x) { return PlainPacket<DType>(std::tanh(x.data_)); }
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Pow(PlainPacket<DType> x, PlainPacket<DType> y) {
  return PlainPacket<DType>(std::pow(x.data_, y.data_));
}
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Hypot(PlainPacket<DType> x, PlainPacket<DType> y) { return PlainPacket<DType>(std::hypot(x.data_, y.data_)); }
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Sqrt(PlainPacket<DType> x) { return PlainPacket<DType>(std::sqrt(x.data_)); }
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Abs(PlainPacket<DType> x) { return PlainPacket<DType>(std::fabs(x.data_)); }
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Negate(PlainPacket<DType> x) { return PlainPacket<DType>(-x.data_); }
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> SelectPositive(PlainPacket<DType> x, PlainPacket<DType> if_true,
                                                  PlainPacket<DType> if_false) {
  return x.data_ > DType(0) ? if_true : if_false;
}
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> SelectNonNegative(PlainPacket<DType> x,
                                                     PlainPacket<DType> if_true,
                                                     PlainPacket<DType> if_false) {
  return x.data_ >= DType(0) ? if_true : if_false;
}
// if_true where a < b, a <= b, a == b (false where either is NaN), if_false elsewhere.
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> SelectLess(PlainPacket<DType> a, PlainPacket<DType> b, PlainPacket<DType> if_true, PlainPacket<DType> if_false) {
  return a.data_ < b.data_ ? if_true : if_false;
}
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> SelectLessEqual(PlainPacket<DType> a, PlainPacket<DType> b, PlainPacket<DType> if_true, PlainPacket<DType> if_false) {
  return a.data_ <= b.data_ ? if_true : if_false;
}
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> SelectEqual(PlainPacket<DType> a, PlainPacket<DType> b, PlainPacket<DType> if_true, PlainPacket<DType> if_false) {
  return a.data_ == b.data_ ? if_true : if_false;
}
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Max(PlainPacket<DType> a, PlainPacket<DType> b) {
  return PlainPacket<DType>(a.data_ != a.data_ ? a.data_ : b.data_ != b.data_ ? b.data_ : std::max(a.data_, b.data_));
}
template <typename DType>
MSHADOW_CINLINE PlainPacket<DType> Min(PlainPacket<DType> a, PlainPacket<DType> b) {
  return PlainPacket<DType>(a.data_ != a.data_ ? a.data_ : b.data_ != b.data_ ? b.data_ : std::min(a.data_, b.data_));
}

}  // namespace packet
}  // namespace mshadow

#endif  // MSHADOW_PACKET_PLAIN_H_
