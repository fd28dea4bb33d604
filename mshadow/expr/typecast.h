// mshadow/expr/typecast.h: `TypecastExp`, elementwise conversion between element types:
// `Tensor<cpu, 2, int> I; Tensor<cpu, 2, float> F; F = tcast<float>(I) * 0.5f;`
#ifndef MSHADOW_EXPR_TYPECAST_H_
#define MSHADOW_EXPR_TYPECAST_H_

#include "mshadow/expr/exp_base.h"

namespace mshadow {
namespace expr {

template <typename DstDType, typename SrcDType, typename EType, int etype>
struct TypecastExp : public Exp<TypecastExp<DstDType, SrcDType, EType, etype>, DstDType, etype> {
  static constexpr bool kStoredByValue = true;
  typename ExpOperand<EType>::type exp;
  explicit TypecastExp(const EType& e) : exp(e) {}
};

// `tcast<DstDType>(exp)`: converts each element with static_cast semantics.
template <typename DstDType, typename SrcDType, typename EType, int etype>
inline TypecastExp<DstDType, SrcDType, EType, (etype | type::kMapper)> tcast(
    const Exp<EType, SrcDType, etype>& exp) {
  return TypecastExp<DstDType, SrcDType, EType, (etype | type::kMapper)>(exp.self());
}

template <typename DstDType, typename SrcDType, typename EType, int etype>
class Plan<TypecastExp<DstDType, SrcDType, EType, etype>, DstDType> {
 public:
  explicit Plan(const Plan<EType, SrcDType>& src) : src_(src) {}
  MSHADOW_XINLINE DstDType Eval(index_t y, index_t x) const {
    return static_cast<DstDType>(src_.Eval(y, x));
  }

 private:
  Plan<EType, SrcDType> src_;
};

template <typename DstDType, typename SrcDType, typename EType, int etype>
inline Plan<TypecastExp<DstDType, SrcDType, EType, etype>, DstDType> MakePlan(
    const TypecastExp<DstDType, SrcDType, EType, etype>& e) {
  return Plan<TypecastExp<DstDType, SrcDType, EType, etype>, DstDType>(MakePlan(e.exp));
}

template <typename DstDType, typename SrcDType, typename EType, int etype>
struct ExpInfo<TypecastExp<DstDType, SrcDType, EType, etype>> {
  static constexpr int kDim = ExpInfo<EType>::kDim;
  static constexpr int kDevMask = ExpInfo<EType>::kDevMask;
};

template <int dim, typename DstDType, typename SrcDType, typename EType, int etype>
struct ShapeCheck<dim, TypecastExp<DstDType, SrcDType, EType, etype>> {
  static Shape<dim> Check(const TypecastExp<DstDType, SrcDType, EType, etype>& e) {
    return ShapeCheck<dim, EType>::Check(e.exp);
  }
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXPR_TYPECAST_H_
