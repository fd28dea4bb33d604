// mshadow/extension/swapaxis.h: the source with two of its dimensions exchanged (a generalised
// transpose; axes count from 0 at the highest dimension).
//
//   Tensor<cpu, 4> nchw(Shape4(8, 3, 32, 32)), cnhw(Shape4(3, 8, 32, 32));
//   cnhw = swapaxis<1, 0>(nchw);   // cnhw[c][n][h][w] = nchw[n][c][h][w]
#ifndef MSHADOW_EXTENSION_SWAPAXIS_H_
#define MSHADOW_EXTENSION_SWAPAXIS_H_

#include "mshadow/expr/make_tensor.h"

namespace mshadow {
namespace expr {

template <typename SrcExp, typename DType, int dimsrc, int a1, int a2>
struct SwapAxisExp
    : public MakeTensorExp<SwapAxisExp<SrcExp, DType, dimsrc, a1, a2>, SrcExp, dimsrc, DType> {
  const SrcExp& src_;
  Shape<dimsrc> src_shape_;
  explicit SwapAxisExp(const SrcExp& src) : src_(src) {
    src_shape_ = ShapeCheck<dimsrc, SrcExp>::Check(src);
    this->shape_ = src_shape_;
    this->shape_[a1] = src_shape_[a2];
    this->shape_[a2] = src_shape_[a1];
  }
};

template <int a1, int a2, typename SrcExp, typename DType, int etype>
inline SwapAxisExp<SrcExp, DType, ExpInfo<SrcExp>::kDim, a1, a2> swapaxis(
    const Exp<SrcExp, DType, etype>& src) {
  constexpr int kDim = ExpInfo<SrcExp>::kDim;
  static_assert(kDim > 0, "swapaxis: the source must be a tensor expression");
  static_assert(0 <= a1 && a1 < kDim && 0 <= a2 && a2 < kDim,
                "swapaxis<a1, a2>: both axes must be dimensions of the source");
  return SwapAxisExp<SrcExp, DType, kDim, a1, a2>(src.self());
}

template <typename SrcExp, typename DType, int dimsrc, int a1, int a2>
class Plan<SwapAxisExp<SrcExp, DType, dimsrc, a1, a2>, DType> {
 public:
  explicit Plan(const SwapAxisExp<SrcExp, DType, dimsrc, a1, a2>& e)
      : src_(MakePlan(e.src_)), dst_shape_(e.shape_), src_shape_(e.src_shape_) {}

  // Unravels the destination row y into coordinates, exchanges the two axes and ravels the
  // result into the source's 2-D view.
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const {
    index_t coord[dimsrc];
    coord[dimsrc - 1] = x;
    for (int d = dimsrc - 2; d >= 0; --d) {
      coord[d] = y % dst_shape_[d];
      y /= dst_shape_[d];
    }
    const index_t swapped = coord[a1];
    coord[a1] = coord[a2];
    coord[a2] = swapped;
    index_t src_row = 0;
    for (int d = 0; d < dimsrc - 1; ++d) src_row = src_row * src_shape_[d] + coord[d];
    return src_.Eval(src_row, coord[dimsrc - 1]);
  }

 private:
  Plan<SrcExp, DType> src_;
  Shape<dimsrc> dst_shape_, src_shape_;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_SWAPAXIS_H_
