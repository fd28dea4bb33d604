// mshadow/bfloat.h: `bfloat::bf16_t`, bfloat16 storage (the upper half of a float32) with
// float arithmetic.
//
// From float the low 16 bits are dropped (rounding toward zero), as MXNet 1.9.1's CPU Cast
// does; NaN stays NaN (a payload only in the dropped bits would otherwise read as infinity).
// To float is exact.
#ifndef MSHADOW_BFLOAT_H_
#define MSHADOW_BFLOAT_H_

#include <cstdint>
#include <cstring>
#include <ostream>
#include <type_traits>

#include "mshadow/macros.h"

namespace mshadow {
namespace bfloat {

namespace detail {

MSHADOW_XINLINE uint16_t FloatToBfloatBits(float value) {
  uint32_t f;
  std::memcpy(&f, &value, sizeof(f));
  if ((f & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((f >> 16) | 0x40u);
  return static_cast<uint16_t>(f >> 16);
}

MSHADOW_XINLINE float BfloatBitsToFloat(uint16_t bits) {
  const uint32_t f = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &f, sizeof(value));
  return value;
}

}  // namespace detail

class bf16_t {
 public:
  uint16_t bf16_ = 0;  // raw bits; public as in mshadow

  bf16_t() = default;
  // From any arithmetic value, through float (explicit, as half_t).
  template <typename T, typename = std::enable_if_t<std::is_arithmetic<T>::value>>
  MSHADOW_XINLINE explicit bf16_t(T value)
      : bf16_(detail::FloatToBfloatBits(static_cast<float>(value))) {}

  static MSHADOW_XINLINE bf16_t Binary(uint16_t bits) {
    bf16_t b;
    b.bf16_ = bits;
    return b;
  }

  MSHADOW_XINLINE operator float() const { return detail::BfloatBitsToFloat(bf16_); }

  MSHADOW_XINLINE bf16_t& operator+=(bf16_t other) { return *this = bf16_t(float(*this) + float(other)); }
  MSHADOW_XINLINE bf16_t& operator-=(bf16_t other) { return *this = bf16_t(float(*this) - float(other)); }
  MSHADOW_XINLINE bf16_t& operator*=(bf16_t other) { return *this = bf16_t(float(*this) * float(other)); }
  MSHADOW_XINLINE bf16_t& operator/=(bf16_t other) { return *this = bf16_t(float(*this) / float(other)); }
  MSHADOW_XINLINE bf16_t operator-() const { return Binary(static_cast<uint16_t>(bf16_ ^ 0x8000u)); }
};

MSHADOW_XINLINE bf16_t operator+(bf16_t a, bf16_t b) { return bf16_t(float(a) + float(b)); }
MSHADOW_XINLINE bf16_t operator-(bf16_t a, bf16_t b) { return bf16_t(float(a) - float(b)); }
MSHADOW_XINLINE bf16_t operator*(bf16_t a, bf16_t b) { return bf16_t(float(a) * float(b)); }
MSHADOW_XINLINE bf16_t operator/(bf16_t a, bf16_t b) { return bf16_t(float(a) / float(b)); }

inline std::ostream& operator<<(std::ostream& os, bf16_t b) { return os << static_cast<float>(b); }

}  // namespace bfloat
}  // namespace mshadow

#endif  // MSHADOW_BFLOAT_H_
