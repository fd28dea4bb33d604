// ops/arithmetic_functors.h: the four arithmetic operations and their partial derivatives,
// shared by the elementwise (elemwise_add), scalar (_plus_scalar) and broadcasting
// (broadcast_add) families, on every device.
//
// Each operation names its forward functor (mshadow's, so that the CPU engine vectorizes it)
// and the derivatives d(a op b)/da and d(a op b)/db as functors of (a, b). kGradReadsOperands
// says whether the derivatives depend on a and b (a backward operator then needs the inputs).
#ifndef OPS_ARITHMETIC_FUNCTORS_H_
#define OPS_ARITHMETIC_FUNCTORS_H_

#include "mshadow/operators.h"

namespace ops {
namespace arith {

// A constant derivative, as a functor of (a, b).
template <int kValue>
struct constant {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType, DType) { return DType(kValue); }
};

struct add {
  using forward = mshadow::op::plus;
  using lhs_grad = constant<1>;
  using rhs_grad = constant<1>;
  static constexpr bool kGradReadsOperands = false;
};

struct sub {
  using forward = mshadow::op::minus;
  using lhs_grad = constant<1>;
  using rhs_grad = constant<-1>;
  static constexpr bool kGradReadsOperands = false;
};

struct mul {
  using forward = mshadow::op::mul;
  struct lhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType, DType b) { return b; }
  };
  struct rhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType) { return a; }
  };
  static constexpr bool kGradReadsOperands = true;
};

struct div {
  using forward = mshadow::op::div;
  struct lhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType, DType b) { return DType(1) / b; }
  };
  struct rhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType b) { return -a / (b * b); }
  };
  static constexpr bool kGradReadsOperands = true;
};

}  // namespace arith
}  // namespace ops

#endif  // OPS_ARITHMETIC_FUNCTORS_H_
