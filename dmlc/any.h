// dmlc/any.h: `dmlc::any`, a value of any copyable type, and `dmlc::get<T>` to read it back.
//
//   dmlc::any value = std::vector<int>{1, 2};
//   const auto& v = dmlc::get<std::vector<int>>(value);   // throws dmlc::Error on a wrong T
//
// It is std::any under dmlc-core's names (one type-erasure mechanism, the standard one);
// JSON can write and read it for types enabled with DMLC_JSON_ENABLE_ANY (dmlc/json.h).
#ifndef DMLC_ANY_H_
#define DMLC_ANY_H_

#include <any>
#include <string>
#include <typeinfo>

#include "dmlc/logging.h"

namespace dmlc {

using any = std::any;

namespace any_internal {
[[noreturn]] inline void ThrowWrongType(const any& value, const std::type_info& wanted) {
  throw Error(std::string("dmlc::get: the any holds ") +
              (value.has_value() ? value.type().name() : "nothing") + ", not " + wanted.name());
}
}  // namespace any_internal

// The held value as T; a dmlc::Error when it holds another type or nothing.
template <typename T>
T& get(any& value) {  // NOLINT(runtime/references): dmlc-core's signature
  T* held = std::any_cast<T>(&value);
  if (held == nullptr) any_internal::ThrowWrongType(value, typeid(T));
  return *held;
}
template <typename T>
const T& get(const any& value) {
  const T* held = std::any_cast<T>(&value);
  if (held == nullptr) any_internal::ThrowWrongType(value, typeid(T));
  return *held;
}

}  // namespace dmlc

#endif  // DMLC_ANY_H_
