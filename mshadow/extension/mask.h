// mshadow/extension/mask.h: each row of a matrix scaled by one value of a vector.
//
//   Tensor<cpu, 1> keep(Shape1(32));  Tensor<cpu, 2> grad(Shape2(32, 100));
//   grad = mask(keep, grad);   // grad[y][x] *= keep[y]
#ifndef MSHADOW_EXTENSION_MASK_H_
#define MSHADOW_EXTENSION_MASK_H_

#include "mshadow/expr/exp_base.h"
#include "mshadow/shape.h"

namespace mshadow {
namespace expr {

template <typename IndexExp, typename SrcExp, typename DType>
struct MaskExp : public Exp<MaskExp<IndexExp, SrcExp, DType>, DType, type::kChainer> {
  const IndexExp& index_;
  const SrcExp& src_;
  MaskExp(const IndexExp& index, const SrcExp& src) : index_(index), src_(src) {}
};

// out[y][x] = src[y][x] * index[y].
template <typename IndexExp, typename SrcExp, typename DType, int e1, int e2>
inline MaskExp<IndexExp, SrcExp, DType> mask(const Exp<IndexExp, DType, e1>& index,
                                             const Exp<SrcExp, DType, e2>& src) {
  static_assert(ExpInfo<IndexExp>::kDim == 1 && ExpInfo<SrcExp>::kDim == 2,
                "mask(index, src): index is 1-D, src 2-D");
  return MaskExp<IndexExp, SrcExp, DType>(index.self(), src.self());
}

template <typename IndexExp, typename SrcExp, typename DType>
class Plan<MaskExp<IndexExp, SrcExp, DType>, DType> {
 public:
  explicit Plan(const MaskExp<IndexExp, SrcExp, DType>& e)
      : index_(MakePlan(e.index_)), src_(MakePlan(e.src_)) {}
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const {
    return src_.Eval(y, x) * index_.Eval(0, y);
  }

 private:
  Plan<IndexExp, DType> index_;
  Plan<SrcExp, DType> src_;
};

template <typename IndexExp, typename SrcExp, typename DType>
inline Plan<MaskExp<IndexExp, SrcExp, DType>, DType> MakePlan(
    const MaskExp<IndexExp, SrcExp, DType>& e) {
  return Plan<MaskExp<IndexExp, SrcExp, DType>, DType>(e);
}

template <int dim, typename IndexExp, typename SrcExp, typename DType>
struct ShapeCheck<dim, MaskExp<IndexExp, SrcExp, DType>> {
  static Shape<dim> Check(const MaskExp<IndexExp, SrcExp, DType>& t) {
    static_assert(dim == 2, "mask gives a 2-D result");
    const Shape<1> index_shape = ShapeCheck<1, IndexExp>::Check(t.index_);
    const Shape<2> src_shape = ShapeCheck<2, SrcExp>::Check(t.src_);
    CHECK_EQ(index_shape[0], src_shape[0])
        << "mask: the mask " << index_shape << " needs one value per row of " << src_shape;
    return src_shape;
  }
};

template <typename IndexExp, typename SrcExp, typename DType>
struct ExpInfo<MaskExp<IndexExp, SrcExp, DType>> {
  static constexpr int kDim = (ExpInfo<IndexExp>::kDim == 1 && ExpInfo<SrcExp>::kDim == 2) ? 2 : -1;
  static constexpr int kDevMask = ExpInfo<IndexExp>::kDevMask & ExpInfo<SrcExp>::kDevMask;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_MASK_H_
