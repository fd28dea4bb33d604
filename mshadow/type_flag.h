// mshadow/type_flag.h: run-time data type flags and the switches that turn a flag back into
// a C++ type.
//
//   MSHADOW_TYPE_SWITCH(blob.type_flag_, DType, {
//     Scale(static_cast<DType*>(blob.dptr_), n);
//   });
//
// A flag the switch does not cover is a dmlc::Error naming the flag and the valid types.
#ifndef MSHADOW_TYPE_FLAG_H_
#define MSHADOW_TYPE_FLAG_H_

#include <cstdint>
#include <string>

#include "dmlc/logging.h"
#include "mshadow/bfloat.h"
#include "mshadow/half.h"

namespace mshadow {

// Numbering as in mshadow; it is persisted by MXNet and exchanged with host frameworks.
enum TypeFlag {
  kFloat32 = 0,
  kFloat64 = 1,
  kFloat16 = 2,
  kUint8 = 3,
  kInt32 = 4,
  kInt8 = 5,
  kInt64 = 6,
  kBool = 7,
  kBfloat16 = 12,
};

// Maps a C++ element type to its flag. `kLanes` is the number of values per element.
template <typename DType>
struct DataType;

#define MSHADOW_DEFINE_DATA_TYPE(ctype, flag)    \
  template <>                                    \
  struct DataType<ctype> {                       \
    static constexpr int kFlag = flag;           \
    static constexpr int kLanes = 1;             \
  }
MSHADOW_DEFINE_DATA_TYPE(float, kFloat32);
MSHADOW_DEFINE_DATA_TYPE(double, kFloat64);
MSHADOW_DEFINE_DATA_TYPE(half::half_t, kFloat16);
MSHADOW_DEFINE_DATA_TYPE(uint8_t, kUint8);
MSHADOW_DEFINE_DATA_TYPE(int32_t, kInt32);
MSHADOW_DEFINE_DATA_TYPE(int8_t, kInt8);
MSHADOW_DEFINE_DATA_TYPE(int64_t, kInt64);
MSHADOW_DEFINE_DATA_TYPE(bool, kBool);
MSHADOW_DEFINE_DATA_TYPE(bfloat::bf16_t, kBfloat16);
#undef MSHADOW_DEFINE_DATA_TYPE

// The default flag for `default_real_t`.
constexpr int default_type_flag = DataType<float>::kFlag;

// NumPy-style name of a type flag ("float32"); "unknown(<flag>)" for anything else.
inline std::string TypeFlagName(int type_flag) {
  switch (type_flag) {
    case kFloat32: return "float32";
    case kFloat64: return "float64";
    case kFloat16: return "float16";
    case kUint8: return "uint8";
    case kInt32: return "int32";
    case kInt8: return "int8";
    case kInt64: return "int64";
    case kBool: return "bool";
    case kBfloat16: return "bfloat16";
    default: return "unknown(" + std::to_string(type_flag) + ")";
  }
}

// Size in bytes of one element of the given type; throws for an unknown flag.
inline int TypeFlagSize(int type_flag) {
  switch (type_flag) {
    case kFloat32: return 4;
    case kFloat64: return 8;
    case kFloat16: return 2;
    case kUint8: return 1;
    case kInt32: return 4;
    case kInt8: return 1;
    case kInt64: return 8;
    case kBool: return 1;
    case kBfloat16: return 2;
    default:
      LOG(FATAL) << "unknown type flag " << type_flag
                 << "; valid: float32, float64, float16, uint8, int32, int8, int64, bool, "
                    "bfloat16";
      return 0;
  }
}

}  // namespace mshadow

// Helpers: one `case` binding DType, and the error for flags a switch does not cover.
#define MSHADOW_TYPE_CASE_(flag, ctype, DType, ...) \
  case flag: {                                      \
    typedef ctype DType;                            \
    { __VA_ARGS__ }                                 \
  } break;
#define MSHADOW_TYPE_SWITCH_FAIL_(type, valid)                                              \
  default:                                                                                  \
    LOG(FATAL) << "data type " << ::mshadow::TypeFlagName(type)                             \
               << " is not supported here; valid: " valid;

// The seven numeric types every operator supports. bool and bfloat16 are storage types that
// Cast converts to and from (MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL).
#define MSHADOW_TYPE_SWITCH(type, DType, ...)                                         \
  switch (type) {                                                                     \
    MSHADOW_TYPE_CASE_(::mshadow::kFloat32, float, DType, __VA_ARGS__)                \
    MSHADOW_TYPE_CASE_(::mshadow::kFloat64, double, DType, __VA_ARGS__)               \
    MSHADOW_TYPE_CASE_(::mshadow::kFloat16, ::mshadow::half::half_t, DType, __VA_ARGS__) \
    MSHADOW_TYPE_CASE_(::mshadow::kUint8, uint8_t, DType, __VA_ARGS__)                \
    MSHADOW_TYPE_CASE_(::mshadow::kInt8, int8_t, DType, __VA_ARGS__)                  \
    MSHADOW_TYPE_CASE_(::mshadow::kInt32, int32_t, DType, __VA_ARGS__)                \
    MSHADOW_TYPE_CASE_(::mshadow::kInt64, int64_t, DType, __VA_ARGS__)                \
    MSHADOW_TYPE_SWITCH_FAIL_(type, "float32, float64, float16, uint8, int8, int32, int64") \
  }

// The seven types, bool and bfloat16.
#define MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL(type, DType, ...)                           \
  switch (type) {                                                                     \
    MSHADOW_TYPE_CASE_(::mshadow::kFloat32, float, DType, __VA_ARGS__)                \
    MSHADOW_TYPE_CASE_(::mshadow::kFloat64, double, DType, __VA_ARGS__)               \
    MSHADOW_TYPE_CASE_(::mshadow::kFloat16, ::mshadow::half::half_t, DType, __VA_ARGS__) \
    MSHADOW_TYPE_CASE_(::mshadow::kBfloat16, ::mshadow::bfloat::bf16_t, DType, __VA_ARGS__) \
    MSHADOW_TYPE_CASE_(::mshadow::kUint8, uint8_t, DType, __VA_ARGS__)                \
    MSHADOW_TYPE_CASE_(::mshadow::kInt8, int8_t, DType, __VA_ARGS__)                  \
    MSHADOW_TYPE_CASE_(::mshadow::kInt32, int32_t, DType, __VA_ARGS__)                \
    MSHADOW_TYPE_CASE_(::mshadow::kInt64, int64_t, DType, __VA_ARGS__)                \
    MSHADOW_TYPE_CASE_(::mshadow::kBool, bool, DType, __VA_ARGS__)                    \
    MSHADOW_TYPE_SWITCH_FAIL_(type,                                                   \
        "float32, float64, float16, bfloat16, uint8, int8, int32, int64, bool")       \
  }

// Floating point types only.
#define MSHADOW_REAL_TYPE_SWITCH(type, DType, ...)                                    \
  switch (type) {                                                                     \
    MSHADOW_TYPE_CASE_(::mshadow::kFloat32, float, DType, __VA_ARGS__)                \
    MSHADOW_TYPE_CASE_(::mshadow::kFloat64, double, DType, __VA_ARGS__)               \
    MSHADOW_TYPE_CASE_(::mshadow::kFloat16, ::mshadow::half::half_t, DType, __VA_ARGS__) \
    MSHADOW_TYPE_SWITCH_FAIL_(type, "float32, float64, float16")                      \
  }

// Floating point types and bfloat16: the 16-bit types are storage, computed in float
// (MXNet's MSHADOW_REAL_TYPE_SWITCH_EX).
#define MSHADOW_REAL_TYPE_SWITCH_EX(type, DType, ...)                                       \
  switch (type) {                                                                           \
    MSHADOW_TYPE_CASE_(::mshadow::kFloat32, float, DType, __VA_ARGS__)                      \
    MSHADOW_TYPE_CASE_(::mshadow::kFloat64, double, DType, __VA_ARGS__)                     \
    MSHADOW_TYPE_CASE_(::mshadow::kFloat16, ::mshadow::half::half_t, DType, __VA_ARGS__)    \
    MSHADOW_TYPE_CASE_(::mshadow::kBfloat16, ::mshadow::bfloat::bf16_t, DType, __VA_ARGS__) \
    MSHADOW_TYPE_SWITCH_FAIL_(type, "float32, float64, float16, bfloat16")                  \
  }

// float32 and float64 only (what the BLAS-backed and vectorized paths support).
#define MSHADOW_SGL_DBL_TYPE_SWITCH(type, DType, ...)                   \
  switch (type) {                                                       \
    MSHADOW_TYPE_CASE_(::mshadow::kFloat32, float, DType, __VA_ARGS__)  \
    MSHADOW_TYPE_CASE_(::mshadow::kFloat64, double, DType, __VA_ARGS__) \
    MSHADOW_TYPE_SWITCH_FAIL_(type, "float32, float64")                 \
  }

// Integer types only.
#define MSHADOW_IDX_TYPE_SWITCH(type, DType, ...)                        \
  switch (type) {                                                        \
    MSHADOW_TYPE_CASE_(::mshadow::kUint8, uint8_t, DType, __VA_ARGS__)   \
    MSHADOW_TYPE_CASE_(::mshadow::kInt8, int8_t, DType, __VA_ARGS__)     \
    MSHADOW_TYPE_CASE_(::mshadow::kInt32, int32_t, DType, __VA_ARGS__)   \
    MSHADOW_TYPE_CASE_(::mshadow::kInt64, int64_t, DType, __VA_ARGS__)   \
    MSHADOW_TYPE_SWITCH_FAIL_(type, "uint8, int8, int32, int64")         \
  }

#endif  // MSHADOW_TYPE_FLAG_H_
