// mshadow/extension/reshape.h: `reshape(src, shape)`, the same elements in row-major order
// under another shape. Works on any expression, not only contiguous tensors:
//   Tensor<cpu, 2> m(Shape2(6, 4));  Tensor<cpu, 3> t(Shape3(2, 3, 4));
//   t = reshape(m * 2.0f, t.shape_);
#ifndef MSHADOW_EXTENSION_RESHAPE_H_
#define MSHADOW_EXTENSION_RESHAPE_H_

#include "mshadow/expr/make_tensor.h"

namespace mshadow {
namespace expr {

template <typename SrcExp, typename DType, int dimdst, int dimsrc>
struct ReshapeExp : public MakeTensorExp<ReshapeExp<SrcExp, DType, dimdst, dimsrc>, SrcExp,
                                         dimdst, DType> {
  const SrcExp& src_;
  // Width of the source's 2-D view: maps a flat index back to (row, column).
  index_t src_width_;
  ReshapeExp(const SrcExp& src, Shape<dimdst> shape) : src_(src) {
    const Shape<dimsrc> src_shape = ShapeCheck<dimsrc, SrcExp>::Check(src_);
    CHECK_EQ(src_shape.Size(), shape.Size())
        << "reshape: the new shape must hold as many elements as the source " << src_shape;
    src_width_ = src_shape[dimsrc - 1];
    this->shape_ = shape;
  }
};

template <typename SrcExp, typename DType, int etype, int dimdst>
inline ReshapeExp<SrcExp, DType, dimdst, ExpInfo<SrcExp>::kDim> reshape(
    const Exp<SrcExp, DType, etype>& src, Shape<dimdst> oshape) {
  static_assert(ExpInfo<SrcExp>::kDim > 0, "reshape: the source must be a tensor expression");
  return ReshapeExp<SrcExp, DType, dimdst, ExpInfo<SrcExp>::kDim>(src.self(), oshape);
}

template <typename SrcExp, typename DType, int dimdst, int dimsrc>
class Plan<ReshapeExp<SrcExp, DType, dimdst, dimsrc>, DType> {
 public:
  explicit Plan(const ReshapeExp<SrcExp, DType, dimdst, dimsrc>& e)
      : src_(MakePlan(e.src_)), dst_width_(e.shape_[dimdst - 1]), src_width_(e.src_width_) {}
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const {
    const index_t flat = y * dst_width_ + x;
    return src_.Eval(flat / src_width_, flat % src_width_);
  }

 private:
  Plan<SrcExp, DType> src_;
  index_t dst_width_, src_width_;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_RESHAPE_H_
