// ops/float_compute.h: elementwise functors of the 16-bit storage types (half_t, bf16_t)
// evaluated in float. A functor written for float and double (sigmoid, log1p, a derivative)
// would otherwise compute each of its steps in the 16-bit type, rounding after every one;
// in float it rounds once, to the float32 result's nearest 16-bit value. And the element
// types each device's matrix products take (OPS_PRODUCT_TYPE_SWITCH).
//
//   F<InComputeType<DType, mshadow::op::sigmoid>>(x)   // float/double: sigmoid itself
#ifndef OPS_FLOAT_COMPUTE_H_
#define OPS_FLOAT_COMPUTE_H_

#include <type_traits>

#include "mshadow/base.h"
#include "mshadow/macros.h"
#include "mshadow/type_flag.h"

namespace ops {

template <typename OP>
struct InFloat {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType v) {
    return DType(OP::Map(static_cast<float>(v)));
  }
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a, DType b) {
    return DType(OP::Map(static_cast<float>(a), static_cast<float>(b)));
  }
};

// OP for float and double; InFloat<OP> for the 16-bit types.
template <typename DType, typename OP>
using InComputeType = std::conditional_t<(sizeof(DType) < 4), InFloat<OP>, OP>;

}  // namespace ops

// The element types of matrix products on device xpu: float32 and float64 on the CPU (its
// BLAS has nothing else), the 16-bit types too on the GPU (cuBLAS, float32 accumulation).
// Another type is a dmlc::Error naming it and what is valid.
#define OPS_PRODUCT_TYPE_SWITCH(xpu, type, DType, ...)    \
  if constexpr (std::is_same_v<xpu, ::mshadow::cpu>) {    \
    MSHADOW_SGL_DBL_TYPE_SWITCH(type, DType, __VA_ARGS__) \
  } else {                                                \
    MSHADOW_REAL_TYPE_SWITCH_EX(type, DType, __VA_ARGS__) \
  }

#endif  // OPS_FLOAT_COMPUTE_H_
