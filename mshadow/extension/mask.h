// mshadow/extension/mask.h: each row of a matrix scaled by one value of a vector.
//
//   Tensor<cpu, 1> keep(Shape1(32));  Tensor<cpu, 2> grad(Shape2(32, 100));
//   grad = mask(keep, grad);   // grad[y][x] *= keep[y]
#ifndef MSHADOW_EXTENSION_MASK_H_
#define MSHADOW_EXTENSION_MASK_H_

#include "mshadow/expr/make_tensor.h"

namespace mshadow {
namespace expr {

template <typename IndexExp, typename SrcExp, typename DType>
struct MaskExp : public MakeTensorExp<MaskExp<IndexExp, SrcExp, DType>, SrcExp, 2, DType> {
  const IndexExp& index_;
  const SrcExp& src_;
  MaskExp(const IndexExp& index, const SrcExp& src) : index_(index), src_(src) {
    const Shape<1> index_shape = ShapeCheck<1, IndexExp>::Check(index);
    this->shape_ = ShapeCheck<2, SrcExp>::Check(src);
    CHECK_EQ(index_shape[0], this->shape_[0])
        << "mask: the mask " << index_shape << " needs one value per row of " << this->shape_;
  }
};

// out[y][x] = src[y][x] * index[y].
template <typename IndexExp, typename SrcExp, typename DType, int e1, int e2>
inline MaskExp<IndexExp, SrcExp, DType> mask(const Exp<IndexExp, DType, e1>& index,
                                             const Exp<SrcExp, DType, e2>& src) {
  static_assert(ExpInfo<IndexExp>::kDim == 1 && ExpInfo<SrcExp>::kDim == 2,
                "mask(index, src): index is 1-D, src 2-D");
  static_assert(SameDevice<SrcExp, IndexExp>(), "mask: both operands on one device");
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

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_MASK_H_
