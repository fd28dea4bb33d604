// dmlc/strtonum.h: strict, allocation-free parsing of numbers from text.
//
//   int n;
//   if (dmlc::ParseNumber("42", &n) != dmlc::ParseStatus::kOk) { ... }
//   float f;
//   dmlc::ParseNumber(" 1.5f ", &f);   // kOk, f == 1.5f
//   dmlc::ParseNumber("3.0", &n);      // kInvalid: an integer field takes integer syntax only
//   dmlc::ParseNumber("1e100", &f);    // kOutOfRange
//
// The rules, which parameters, JSON numbers and GetEnv all follow:
// - Surrounding ASCII whitespace is ignored; anything else left over is an error.
// - An optional leading '+' is accepted (dmlc-core's stream parsing accepted it).
// - Integers: decimal digits only. Fractions, exponents and values outside the type's range
//   are errors; a '-' for an unsigned type is out of range, not wrapped around.
// - Floating point: decimal or scientific notation, `inf`, `infinity`, `nan` in any case, and
//   one trailing `f`/`F` (C++ literal style, "1.2f"). Values too large for the type are out
//   of range, and so, as in dmlc-core (std::stof), are nonzero values too small for it:
//   below its smallest normal number they would silently become zero or a denormal.
//
// Built on std::from_chars: locale independent, no streams, no allocation on success.
#ifndef DMLC_STRTONUM_H_
#define DMLC_STRTONUM_H_

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace dmlc {

enum class ParseStatus {
  kOk,
  kInvalid,     // not a number of the requested kind, or trailing characters
  kOutOfRange,  // a number, but not representable in the requested type
};

// Strips ASCII whitespace from both ends.
inline std::string_view TrimSpace(std::string_view text) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  const size_t begin = text.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  const size_t end = text.find_last_not_of(kSpace);
  return text.substr(begin, end - begin + 1);
}

namespace strtonum_internal {

// Whether a parsed floating-point value underflowed: nonzero text ("1e-50") that became zero
// or a denormal. Only the mantissa's digits say whether the text meant zero.
template <typename Float>
bool Underflowed(std::string_view number, Float value) {
  if (std::isinf(value) || std::isnan(value)) return false;
  if (value != 0) return std::fabs(value) < std::numeric_limits<Float>::min();
  const size_t exponent = number.find_first_of("eE");
  const std::string_view mantissa = number.substr(0, exponent);
  return mantissa.find_first_of("123456789") != std::string_view::npos;
}

}  // namespace strtonum_internal

// Parses `text` as a number of type T (any arithmetic type except bool). On success writes
// *out and returns kOk; otherwise leaves *out unchanged.
template <typename T>
ParseStatus ParseNumber(std::string_view text, T* out) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                "ParseNumber takes integer and floating point types; parse bool as a word");
  std::string_view number = TrimSpace(text);
  // A sign must be followed by the number itself: "+-1" and "+ 1" are invalid.
  if (number.size() > 1 && number[0] == '+' && number[1] != '-') number.remove_prefix(1);
  if (number.empty()) return ParseStatus::kInvalid;
  const char* const first = number.data();
  const char* const last = first + number.size();
  T value{};
  std::from_chars_result result;
  if constexpr (std::is_floating_point_v<T>) {
    result = std::from_chars(first, last, value, std::chars_format::general);
    const bool parsed_digits = result.ptr != first && ((result.ptr[-1] >= '0' &&
                                                        result.ptr[-1] <= '9') ||
                                                       result.ptr[-1] == '.');
    // One C++-style suffix after digits ("1.2f"), never after a word ("inff").
    if (parsed_digits && result.ptr + 1 == last && (*result.ptr | 0x20) == 'f') ++result.ptr;
    if (result.ec == std::errc::result_out_of_range) {
      return result.ptr == last ? ParseStatus::kOutOfRange : ParseStatus::kInvalid;
    }
    if (result.ec == std::errc() && result.ptr == last &&
        strtonum_internal::Underflowed(number, value)) {
      return ParseStatus::kOutOfRange;
    }
  } else {
    result = std::from_chars(first, last, value, 10);
    if (std::is_unsigned_v<T> && result.ec == std::errc::invalid_argument && number[0] == '-') {
      // "-5" for an unsigned field: a number, just not a representable one.
      long long as_signed;
      const auto signed_result = std::from_chars(first, last, as_signed, 10);
      if (signed_result.ptr == last && signed_result.ec != std::errc::invalid_argument) {
        return ParseStatus::kOutOfRange;
      }
    }
    if (result.ec == std::errc::result_out_of_range) {
      return result.ptr == last ? ParseStatus::kOutOfRange : ParseStatus::kInvalid;
    }
  }
  if (result.ec != std::errc() || result.ptr != last) return ParseStatus::kInvalid;
  *out = value;
  return ParseStatus::kOk;
}

// Writes the shortest text that parses back to exactly `value` ("0.1", "1e+100", "inf").
template <typename T>
std::string NumberToString(T value) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, "numbers only");
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

}  // namespace dmlc

#endif  // DMLC_STRTONUM_H_
