// mshadow/half.h: `half::half_t`, IEEE 754 binary16 storage with float arithmetic.
//
// Arithmetic converts to float, computes, and rounds back (round to nearest even), which is
// what mshadow's half_t did on the CPU. Conversions are exact for every finite value,
// infinities and NaN. Host code built with F16C (-march=native on any x86 CPU since 2013)
// converts with its instructions, a whole packet at a time in HalfToFloat/FloatToHalf;
// elsewhere (device code, baseline x86-64) the software conversions below give the same bits,
// except a NaN's payload.
#ifndef MSHADOW_HALF_H_
#define MSHADOW_HALF_H_

#include <cstdint>
#include <cstring>
#include <ostream>
#include <type_traits>

#include "mshadow/macros.h"

#if defined(__F16C__) && !defined(__CUDA_ARCH__)
#include "mshadow/immintrin.h"
#define MSHADOW_HALF_USE_F16C 1
#else
#define MSHADOW_HALF_USE_F16C 0
#endif

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
  MSHADOW_XINLINE explicit half_t(T value) : half_(FromFloat(static_cast<float>(value))) {}

  static MSHADOW_XINLINE half_t Binary(uint16_t bits) {
    half_t h;
    h.half_ = bits;
    return h;
  }

  MSHADOW_XINLINE operator float() const {
#if MSHADOW_HALF_USE_F16C
    return _cvtsh_ss(half_);
#else
    return detail::HalfBitsToFloat(half_);
#endif
  }

  MSHADOW_XINLINE half_t& operator+=(half_t other) { return *this = half_t(float(*this) + float(other)); }
  MSHADOW_XINLINE half_t& operator-=(half_t other) { return *this = half_t(float(*this) - float(other)); }
  MSHADOW_XINLINE half_t& operator*=(half_t other) { return *this = half_t(float(*this) * float(other)); }
  MSHADOW_XINLINE half_t& operator/=(half_t other) { return *this = half_t(float(*this) / float(other)); }
  MSHADOW_XINLINE half_t operator-() const { return Binary(static_cast<uint16_t>(half_ ^ 0x8000u)); }

 private:
  static MSHADOW_XINLINE uint16_t FromFloat(float value) {
#if MSHADOW_HALF_USE_F16C
    return static_cast<uint16_t>(_cvtss_sh(value, _MM_FROUND_TO_NEAREST_INT));
#else
    return detail::FloatToHalfBits(value);
#endif
  }
};

MSHADOW_XINLINE half_t operator+(half_t a, half_t b) { return half_t(float(a) + float(b)); }
MSHADOW_XINLINE half_t operator-(half_t a, half_t b) { return half_t(float(a) - float(b)); }
MSHADOW_XINLINE half_t operator*(half_t a, half_t b) { return half_t(float(a) * float(b)); }
MSHADOW_XINLINE half_t operator/(half_t a, half_t b) { return half_t(float(a) / float(b)); }

inline std::ostream& operator<<(std::ostream& os, half_t h) { return os << static_cast<float>(h); }

// out[i] = in[i] as float, for i < n (host code).
inline void HalfToFloat(const half_t* in, float* out, size_t n) {
  size_t i = 0;
#if MSHADOW_HALF_USE_F16C
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
#endif
  for (; i < n; ++i) out[i] = static_cast<float>(in[i]);
}

// out[i] = in[i] rounded to half (to nearest even), for i < n (host code).
inline void FloatToHalf(const float* in, half_t* out, size_t n) {
  size_t i = 0;
#if MSHADOW_HALF_USE_F16C
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
#endif
  for (; i < n; ++i) out[i] = half_t(in[i]);
}

}  // namespace half
}  // namespace mshadow

#endif  // MSHADOW_HALF_H_
