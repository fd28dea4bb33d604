// mshadow/expr/make_tensor.h: `MakeTensorExp`, the base of expressions that produce a tensor
// of a new shape from a source expression (reshape, broadcast, ...). Each one defines its own
// `Plan<SubType>`; this file lets the engine treat all of them alike.
//
// Why MakeTensorExp has a Plan of its own: expression trees store their operands under the
// type they were built from, which for these expressions is MakeTensorExp<SubType, ...>.
// Its Plan wraps the SubType's Plan so that code walking the tree needs no special case.
#ifndef MSHADOW_EXPR_MAKE_TENSOR_H_
#define MSHADOW_EXPR_MAKE_TENSOR_H_

#include "mshadow/expr/exp_base.h"

namespace mshadow {
namespace expr {

template <typename SubType, typename SrcExp, int dim, typename DType>
struct MakeTensorExp : public Exp<MakeTensorExp<SubType, SrcExp, dim, DType>, DType, type::kChainer> {
  // The shape of the produced tensor; set by the SubType's constructor.
  Shape<dim> shape_;
  inline const SubType& real_self() const { return *static_cast<const SubType*>(this); }
};

template <typename SubType, typename SrcExp, int dim, typename DType>
class Plan<MakeTensorExp<SubType, SrcExp, dim, DType>, DType> {
 public:
  explicit Plan(const Plan<SubType, DType>& src) : src_(src) {}
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const { return src_.Eval(y, x); }

 private:
  Plan<SubType, DType> src_;
};

// The SubType's Plan is built from the SubType itself: Plan<SubType, DType>(const SubType&).
template <typename SubType, typename SrcExp, int dim, typename DType>
inline Plan<MakeTensorExp<SubType, SrcExp, dim, DType>, DType> MakePlan(
    const MakeTensorExp<SubType, SrcExp, dim, DType>& e) {
  return Plan<MakeTensorExp<SubType, SrcExp, dim, DType>, DType>(
      Plan<SubType, DType>(e.real_self()));
}

// The rank is the one the SubType declares, valid only if the source's rank is.
template <typename SubType, typename SrcExp, int dim, typename DType>
struct ExpInfo<MakeTensorExp<SubType, SrcExp, dim, DType>> {
  static constexpr int kDimSrc = ExpInfo<SrcExp>::kDim;
  static constexpr int kDim = kDimSrc >= 0 ? dim : -1;
  static constexpr int kDevMask = ExpInfo<SrcExp>::kDevMask;
};

template <int dim, typename SubType, typename SrcExp, int edim, typename DType>
struct ShapeCheck<dim, MakeTensorExp<SubType, SrcExp, edim, DType>> {
  static Shape<dim> Check(const MakeTensorExp<SubType, SrcExp, edim, DType>& t) {
    return t.shape_;
  }
};

// A MakeTensorExp reports its source's device; one built from several operands asserts with
// this that the others live there too.
template <typename First, typename... Rest>
constexpr bool SameDevice() {
  return ((ExpInfo<First>::kDevMask == ExpInfo<Rest>::kDevMask) && ...);
}

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXPR_MAKE_TENSOR_H_
