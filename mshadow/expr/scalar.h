// mshadow/expr/scalar.h: `ScalarExp`, a constant that fits any shape: `A = B * scalar(2.0f)`.
// Plain numbers in expressions (`B * 2.0f`) become ScalarExp automatically.
#ifndef MSHADOW_EXPR_SCALAR_H_
#define MSHADOW_EXPR_SCALAR_H_

#include "mshadow/expr/exp_base.h"

namespace mshadow {
namespace expr {

template <typename DType>
struct ScalarExp : public Exp<ScalarExp<DType>, DType, type::kMapper> {
  static constexpr bool kStoredByValue = true;
  DType scalar_;
  MSHADOW_XINLINE explicit ScalarExp(DType scalar) : scalar_(scalar) {}
};

// `scalar<float>(2)` or `scalar(2.0f)`.
template <typename DType>
MSHADOW_XINLINE ScalarExp<DType> scalar(DType s) {
  return ScalarExp<DType>(s);
}

template <typename DType>
class Plan<ScalarExp<DType>, DType> {
 public:
  explicit Plan(DType scalar) : scalar_(scalar) {}
  MSHADOW_XINLINE DType Eval(index_t /*y*/, index_t /*x*/) const { return scalar_; }

 private:
  DType scalar_;
};

template <typename DType>
inline Plan<ScalarExp<DType>, DType> MakePlan(const ScalarExp<DType>& e) {
  return Plan<ScalarExp<DType>, DType>(e.scalar_);
}

// Rank 0: a scalar takes the shape of whatever it is combined with; any device.
template <typename DType>
struct ExpInfo<ScalarExp<DType>> {
  static constexpr int kDim = 0;
  static constexpr int kDevMask = 0xffff;
};

// A scalar has no shape of its own; callers never ask (ExpInfo::kDim == 0 tells them).
template <int dim, typename DType>
struct ShapeCheck<dim, ScalarExp<DType>> {
  static Shape<dim> Check(const ScalarExp<DType>& /*exp*/) { return Shape<dim>(); }
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXPR_SCALAR_H_
