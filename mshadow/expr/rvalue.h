// mshadow/expr/rvalue.h: `RValueExp`, the base of everything that can be assigned to, and
// the engines that evaluate an assignment.
//
//   A = B + C;       // ExpEngine<sv::saveto>: one fused loop (MapExp)
//   A += scalar(2);  // sv::plusto
//   A = dot(B, C);   // a complex expression: ExpComplexEngine -> DotEngine (BLAS)
#ifndef MSHADOW_EXPR_RVALUE_H_
#define MSHADOW_EXPR_RVALUE_H_

#include "mshadow/expr/scalar.h"
#include "mshadow/expr/transpose.h"

namespace mshadow {
namespace expr {

// Evaluates `dst SV= exp` for an expression that is not elementwise (kComplex). Specialized
// per complex expression (dot.h).
template <typename SV, typename RV, typename E, typename DType>
struct ExpComplexEngine;

// Dispatches an assignment on the expression's kind: elementwise kinds go to MapExp (one
// fused loop over the destination), complex ones to their ExpComplexEngine.
template <typename SV, typename RV, typename DType>
struct ExpEngine;

// Something that holds data and can be assigned to: tensors (and TensorContainer).
template <typename Container, typename DType>
class RValueExp : public Exp<Container, DType, type::kRValue> {
 public:
  // The transpose of a 2-D container: `A = B.T()`, `dot(A.T(), B)`.
  inline const TransposeExp<Container, DType> T() const {
    return TransposeExp<Container, DType>(this->self());
  }
  inline Container& operator+=(DType s) { return Apply<sv::plusto>(scalar(s)); }
  inline Container& operator-=(DType s) { return Apply<sv::minusto>(scalar(s)); }
  inline Container& operator*=(DType s) { return Apply<sv::multo>(scalar(s)); }
  inline Container& operator/=(DType s) { return Apply<sv::divto>(scalar(s)); }
  // Assignment from a scalar fills every element.
  inline Container& __assign(DType s) { return Apply<sv::saveto>(scalar(s)); }
  // Assignment from an expression evaluates it into this container.
  template <typename E, int etype>
  inline Container& __assign(const Exp<E, DType, etype>& exp) {
    return Apply<sv::saveto>(exp);
  }
  inline Container& __assign(const Exp<Container, DType, type::kRValue>& exp) {
    return Apply<sv::saveto>(exp);
  }
  template <typename E, int etype>
  inline Container& operator+=(const Exp<E, DType, etype>& exp) {
    return Apply<sv::plusto>(exp);
  }
  template <typename E, int etype>
  inline Container& operator-=(const Exp<E, DType, etype>& exp) {
    return Apply<sv::minusto>(exp);
  }
  template <typename E, int etype>
  inline Container& operator*=(const Exp<E, DType, etype>& exp) {
    return Apply<sv::multo>(exp);
  }
  template <typename E, int etype>
  inline Container& operator/=(const Exp<E, DType, etype>& exp) {
    return Apply<sv::divto>(exp);
  }

 private:
  template <typename SV, typename E, int etype>
  inline Container& Apply(const Exp<E, DType, etype>& exp) {
    ExpEngine<SV, Container, DType>::Eval(this->ptrself(), exp);
    return *(this->ptrself());
  }
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXPR_RVALUE_H_
