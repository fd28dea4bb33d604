// mshadow/half.h: `half::half_t`, IEEE 754 binary16 storage with float arithmetic.
//
// Arithmetic converts to float, computes, and rounds back (round to nearest even), which is
// what mshadow's half_t did on the CPU. Conversions are exact for every finite value,
// infinities and NaN.
#ifndef MSHADOW_HALF_H_
#define MSHADOW_HALF_H_

#include <cstdint>
#include <cstring>
#include <ostream>
#include <type_traits>

#include "mshadow/macros.h"

namespace mshadow {
namespace half {

namespace detail {

MSHADOW_XINLINE uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

MSHADOW_XINLINE float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

// float -> binary16 bits, round to nearest even; overflow becomes infinity.
MSHADOW_XINLINE uint16_t FloatToHalfBits(float value) {
  const uint32_t f = FloatBits(value);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t abs = f & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan; keep nan quiet and non-zero
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {  // result is subnormal in half (or zero)
    // Scale so the float's hidden bit lands at bit 0 of a half subnormal, then round.
    const float scaled = BitsToFloat(abs) * BitsToFloat(0x4b800000u);  // * 2^24
    const float rounded = scaled + BitsToFloat(0x4b000000u);           // round-to-even trick
    return static_cast<uint16_t>(sign | (FloatBits(rounded) - 0x4b000000u));
  }
  // Normal: rebias exponent (127 -> 15) and round the 13 dropped mantissa bits to even.
  const uint32_t odd = (abs >> 13) & 1u;
  const uint32_t rounded = abs + 0xfffu + odd;
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

// binary16 bits -> float, exact.
MSHADOW_XINLINE float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return BitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float magnitude = static_cast<float>(mantissa) * BitsToFloat(0x33800000u);
    return sign ? -magnitude : magnitude;
  }
  return BitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

}  // namespace detail

class half_t {
 public:
  uint16_t half_ = 0;  // raw bits; public as in mshadow

  half_t() = default;
  // From any arithmetic value, through float (explicit, as in mshadow).
  template <typename T, typename = std::enable_if_t<std::is_arithmetic<T>::value>>
  MSHADOW_XINLINE explicit half_t(T value)
      : half_(detail::FloatToHalfBits(static_cast<float>(value))) {}

  static MSHADOW_XINLINE half_t Binary(uint16_t bits) {
    half_t h;
    h.half_ = bits;
    return h;
  }

  MSHADOW_XINLINE operator float() const { return detail::HalfBitsToFloat(half_); }

  MSHADOW_XINLINE half_t& operator+=(half_t other) { return *this = half_t(float(*this) + float(other)); }
  MSHADOW_XINLINE half_t& operator-=(half_t other) { return *this = half_t(float(*this) - float(other)); }
  MSHADOW_XINLINE half_t& operator*=(half_t other) { return *this = half_t(float(*this) * float(other)); }
  MSHADOW_XINLINE half_t& operator/=(half_t other) { return *this = half_t(float(*this) / float(other)); }
  MSHADOW_XINLINE half_t operator-() const { return Binary(static_cast<uint16_t>(half_ ^ 0x8000u)); }
};

MSHADOW_XINLINE half_t operator+(half_t a, half_t b) { return half_t(float(a) + float(b)); }
MSHADOW_XINLINE half_t operator-(half_t a, half_t b) { return half_t(float(a) - float(b)); }
MSHADOW_XINLINE half_t operator*(half_t a, half_t b) { return half_t(float(a) * float(b)); }
MSHADOW_XINLINE half_t operator/(half_t a, half_t b) { return half_t(float(a) / float(b)); }

inline std::ostream& operator<<(std::ostream& os, half_t h) { return os << static_cast<float>(h); }

}  // namespace half
}  // namespace mshadow

#endif  // MSHADOW_HALF_H_
