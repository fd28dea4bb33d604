// dmlc/optional.h: `dmlc::optional<T>`, a value that may be absent, spelled `None` in text.
//
//   dmlc::optional<int> axis;        // None
//   axis = 2;
//   if (axis.has_value()) use(axis.value());
//   std::cout << axis;               // 2, or None when empty
//   std::istringstream("None") >> axis;   // empties it
//   dmlc::optional<bool> flag;
//   std::istringstream("true") >> flag;   // true/false/1/0/None in any case
//   dmlc::optional<std::string> name(dmlc::in_place, 3, 'x');   // "xxx", built in place
//
// It is std::optional with dmlc-core's text form, so parameter structs can declare optional
// fields (`DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<int>())`).
#ifndef DMLC_OPTIONAL_H_
#define DMLC_OPTIONAL_H_

#include <cctype>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>

#include "dmlc/type_traits.h"

namespace dmlc {

using std::nullopt;
using std::nullopt_t;
// dmlc-core's tag for constructing the value in place: optional<T>(in_place, args...).
using in_place_t = std::in_place_t;
inline constexpr in_place_t in_place{};

template <typename T>
class optional : public std::optional<T> {
 public:
  using std::optional<T>::optional;
  optional() = default;
  optional(const std::optional<T>& other) : std::optional<T>(other) {}  // NOLINT

  // Assigns a value of T (or anything T is constructible from).
  template <typename U, typename = std::enable_if_t<
                            std::is_constructible_v<T, U&&> &&
                            !std::is_same_v<std::decay_t<U>, optional>>>
  optional& operator=(U&& value) {
    std::optional<T>::operator=(std::forward<U>(value));
    return *this;
  }
  optional& operator=(nullopt_t) {
    this->reset();
    return *this;
  }
};

// Comparisons of two dmlc::optionals (std's would be ambiguous through the base class):
// equal when both are empty or both hold equal values.
template <typename T>
bool operator==(const optional<T>& a, const optional<T>& b) {
  return static_cast<const std::optional<T>&>(a) == static_cast<const std::optional<T>&>(b);
}
template <typename T>
bool operator!=(const optional<T>& a, const optional<T>& b) {
  return !(a == b);
}

// "None" when empty, the value otherwise.
template <typename T>
std::ostream& operator<<(std::ostream& os, const optional<T>& value) {
  if (value.has_value()) return os << *value;
  return os << "None";
}

// Reads "None" (empty) or a value of T; fails the stream on anything else. As in dmlc-core,
// an integer may carry one 'L' suffix ("5L"), and optional<bool> reads true/false/1/0/None
// in any case, stopping at the first character that is not a letter or digit.
template <typename T>
std::istream& operator>>(std::istream& is, optional<T>& value) {
  is >> std::ws;
  if constexpr (std::is_same_v<T, bool>) {
    std::string word;
    while (std::isalnum(is.peek())) {
      word.push_back(static_cast<char>(std::tolower(is.get())));
    }
    if (word == "true" || word == "1") {
      value = true;
    } else if (word == "false" || word == "0") {
      value = false;
    } else if (word == "none") {
      value.reset();
    } else {
      is.setstate(std::ios::failbit);
    }
    return is;
  } else {
    if (is.peek() == 'N') {
      std::string word;
      is >> word;
      if (word == "None") {
        value.reset();
      } else {
        is.setstate(std::ios::failbit);
      }
      return is;
    }
    T parsed;
    if (is >> parsed) {
      value = std::move(parsed);
      if (std::is_integral_v<T> && is.peek() == 'L') is.get();
    }
    return is;
  }
}

DMLC_DECLARE_TYPE_NAME(optional<int>, "int or None");
DMLC_DECLARE_TYPE_NAME(optional<int64_t>, "long or None");
DMLC_DECLARE_TYPE_NAME(optional<uint32_t>, "int (non-negative) or None");
DMLC_DECLARE_TYPE_NAME(optional<uint64_t>, "long (non-negative) or None");
DMLC_DECLARE_TYPE_NAME(optional<float>, "float or None");
DMLC_DECLARE_TYPE_NAME(optional<double>, "double or None");
DMLC_DECLARE_TYPE_NAME(optional<bool>, "boolean or None");
DMLC_DECLARE_TYPE_NAME(optional<std::string>, "string or None");

}  // namespace dmlc

#endif  // DMLC_OPTIONAL_H_
