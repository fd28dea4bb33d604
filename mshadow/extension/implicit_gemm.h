// mshadow/extension/implicit_gemm.h: a matrix product evaluated element by element inside an
// expression, without BLAS; it fuses with the rest of the expression and works on any
// operand expression, at the cost of BLAS's speed (use dot() for large products).
//
//   Tensor<cpu, 2> a(Shape2(4, 3)), b(Shape2(3, 5)), c(Shape2(4, 5));
//   c = implicit_dot(a, b) * 0.5f + 1.0f;
#ifndef MSHADOW_EXTENSION_IMPLICIT_GEMM_H_
#define MSHADOW_EXTENSION_IMPLICIT_GEMM_H_

#include "mshadow/expr/make_tensor.h"

namespace mshadow {
namespace expr {

template <typename LhsExp, typename RhsExp, typename DType>
struct ImplicitGEMMExp
    : public MakeTensorExp<ImplicitGEMMExp<LhsExp, RhsExp, DType>, LhsExp, 2, DType> {
  const LhsExp& lhs_;
  const RhsExp& rhs_;
  index_t inner_;
  ImplicitGEMMExp(const LhsExp& lhs, const RhsExp& rhs) : lhs_(lhs), rhs_(rhs) {
    const Shape<2> lhs_shape = ShapeCheck<2, LhsExp>::Check(lhs);
    const Shape<2> rhs_shape = ShapeCheck<2, RhsExp>::Check(rhs);
    CHECK_EQ(lhs_shape[1], rhs_shape[0])
        << "implicit_dot: " << lhs_shape << " and " << rhs_shape << " cannot be multiplied";
    inner_ = lhs_shape[1];
    this->shape_ = Shape2(lhs_shape[0], rhs_shape[1]);
  }
};

// out[y][x] = sum_k lhs[y][k] * rhs[k][x].
template <typename LhsExp, typename RhsExp, typename DType, int e1, int e2>
inline ImplicitGEMMExp<LhsExp, RhsExp, DType> implicit_dot(const Exp<LhsExp, DType, e1>& lhs,
                                                           const Exp<RhsExp, DType, e2>& rhs) {
  static_assert(ExpInfo<LhsExp>::kDim == 2 && ExpInfo<RhsExp>::kDim == 2,
                "implicit_dot: both operands must be 2-D");
  return ImplicitGEMMExp<LhsExp, RhsExp, DType>(lhs.self(), rhs.self());
}

template <typename LhsExp, typename RhsExp, typename DType>
class Plan<ImplicitGEMMExp<LhsExp, RhsExp, DType>, DType> {
 public:
  explicit Plan(const ImplicitGEMMExp<LhsExp, RhsExp, DType>& e)
      : lhs_(MakePlan(e.lhs_)), rhs_(MakePlan(e.rhs_)), inner_(e.inner_) {}
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const {
    DType sum = DType(0);
    for (index_t k = 0; k < inner_; ++k) sum += lhs_.Eval(y, k) * rhs_.Eval(k, x);
    return sum;
  }

 private:
  Plan<LhsExp, DType> lhs_;
  Plan<RhsExp, DType> rhs_;
  index_t inner_;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_IMPLICIT_GEMM_H_
