// dmlc/type_traits.h: compile-time helpers of dmlc-core: readable type names for messages
// and documentation, and the small traits its parameter code is written against.
//
//   dmlc::type_name<float>()      // "float"
//   dmlc::type_name<uint32_t>()   // "int (non-negative)"
//   namespace dmlc { DMLC_DECLARE_TYPE_NAME(MyShape, "Shape(tuple)"); }   // a new type
#ifndef DMLC_TYPE_TRAITS_H_
#define DMLC_TYPE_TRAITS_H_

#include <cstdint>
#include <string>
#include <type_traits>

namespace dmlc {

// Integer and floating point types, excluding bool (which parses and prints as a word).
template <typename T>
struct is_integral {
  static constexpr bool value = std::is_integral_v<T> && !std::is_same_v<T, bool>;
};
template <typename T>
struct is_floating_point {
  static constexpr bool value = std::is_floating_point_v<T>;
};
template <typename T>
struct is_arithmetic {
  static constexpr bool value = is_integral<T>::value || is_floating_point<T>::value;
};

// Plain data (trivial, standard layout), dmlc-core's is_pod: JSON writes arrays of these on
// one line.
template <typename T>
struct is_pod {
  static constexpr bool value = std::is_trivial_v<T> && std::is_standard_layout_v<T>;
};

// `Type` is Then when cond holds, Else otherwise (dmlc-core's name for std::conditional).
template <bool cond, typename Then, typename Else>
struct IfThenElseType {
  using Type = std::conditional_t<cond, Then, Else>;
};

// The name shown for a type in parameter docs and errors. Types without a declared name
// show as "" (as in dmlc-core); declare one with DMLC_DECLARE_TYPE_NAME.
template <typename T>
inline const char* type_name() {
  return "";
}

// Declares the name of a type; used inside namespace dmlc, as in dmlc-core.
#define DMLC_DECLARE_TYPE_NAME(Type, Name) \
  template <>                              \
  inline const char* type_name<Type>() {   \
    return Name;                           \
  }

DMLC_DECLARE_TYPE_NAME(float, "float");
DMLC_DECLARE_TYPE_NAME(double, "double");
DMLC_DECLARE_TYPE_NAME(int, "int");
DMLC_DECLARE_TYPE_NAME(int64_t, "long");
DMLC_DECLARE_TYPE_NAME(long long, "long");  // NOLINT(runtime/int): distinct from int64_t
DMLC_DECLARE_TYPE_NAME(uint32_t, "int (non-negative)");
DMLC_DECLARE_TYPE_NAME(uint64_t, "long (non-negative)");
DMLC_DECLARE_TYPE_NAME(unsigned long long, "long (non-negative)");  // NOLINT(runtime/int)
DMLC_DECLARE_TYPE_NAME(std::string, "string");
DMLC_DECLARE_TYPE_NAME(bool, "boolean");

}  // namespace dmlc

#endif  // DMLC_TYPE_TRAITS_H_
