// mshadow/packet/plain.h: Packet<DType, kPlain>, one element: the portable fallback and the
// reference every vector arch is tested against.
#ifndef MSHADOW_PACKET_PLAIN_H_
#define MSHADOW_PACKET_PLAIN_H_

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

}  // namespace packet
}  // namespace mshadow

#endif  // MSHADOW_PACKET_PLAIN_H_
