// mshadow/expr/transpose.h: `TransposeExp`, the lazy transpose of a 2-D expression:
// `A = B.T()`, and the marker `dot` reads to pick a BLAS transpose flag: `dot(A.T(), B)`.
#ifndef MSHADOW_EXPR_TRANSPOSE_H_
#define MSHADOW_EXPR_TRANSPOSE_H_

#include "mshadow/expr/exp_base.h"

namespace mshadow {
namespace expr {

template <typename EType, typename DType>
struct TransposeExp : public Exp<TransposeExp<EType, DType>, DType, type::kChainer> {
  static constexpr bool kStoredByValue = true;
  typename ExpOperand<EType>::type exp;
  explicit TransposeExp(const EType& e) : exp(e) {}
  // Transposing twice gives back the original expression.
  inline const EType& T() const { return exp; }
};

template <typename EType, typename DType>
class Plan<TransposeExp<EType, DType>, DType> {
 public:
  explicit Plan(const Plan<EType, DType>& src) : src_(src) {}
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const { return src_.Eval(x, y); }

 private:
  Plan<EType, DType> src_;
};

template <typename EType, typename DType>
inline Plan<TransposeExp<EType, DType>, DType> MakePlan(const TransposeExp<EType, DType>& e) {
  return Plan<TransposeExp<EType, DType>, DType>(MakePlan(e.exp));
}

template <typename E, typename DType>
struct ExpInfo<TransposeExp<E, DType>> {
  static constexpr int kDim = ExpInfo<E>::kDim;
  static constexpr int kDevMask = ExpInfo<E>::kDevMask;
};

template <int dim, typename E, typename DType>
struct ShapeCheck<dim, TransposeExp<E, DType>> {
  static Shape<dim> Check(const TransposeExp<E, DType>& e) {
    static_assert(dim == 2, "mshadow: only 2-D expressions can be transposed with .T()");
    Shape<dim> s = ShapeCheck<dim, E>::Check(e.exp);
    Shape<dim> ret;
    ret[0] = s[1];
    ret[1] = s[0];
    return ret;
  }
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXPR_TRANSPOSE_H_
