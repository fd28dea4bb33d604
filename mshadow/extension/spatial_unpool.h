// mshadow/extension/spatial_unpool.h: the gradient of pool(): each input pixel collects the
// output gradients of the windows that cover it, weighted by the reducer's partial
// derivative (for red::maximum, 1 where the pixel equals the window's maximum, else 0).
//
//   out = pool<red::maximum>(in, 3, 3, 2);
//   grad_in = unpool<red::maximum>(in, out, grad_out, 3, 3, 2);
#ifndef MSHADOW_EXTENSION_SPATIAL_UNPOOL_H_
#define MSHADOW_EXTENSION_SPATIAL_UNPOOL_H_

#include "mshadow/expr/make_tensor.h"
#include "mshadow/extension/spatial_pool.h"

namespace mshadow {
namespace expr {

template <typename Reducer, typename SrcExp, typename DType, int srcdim>
struct UnPoolingExp
    : public MakeTensorExp<UnPoolingExp<Reducer, SrcExp, DType, srcdim>, SrcExp, srcdim, DType> {
  const SrcExp& data_src_;
  const SrcExp& data_pooled_;
  const SrcExp& grad_pooled_;
  index_t pshape_y_, pshape_x_;
  index_t ksize_y_, ksize_x_, kstride_y_, kstride_x_;
  UnPoolingExp(const SrcExp& data_src, const SrcExp& data_pooled, const SrcExp& grad_pooled,
               index_t ksize_y, index_t ksize_x, index_t kstride_y, index_t kstride_x)
      : data_src_(data_src),
        data_pooled_(data_pooled),
        grad_pooled_(grad_pooled),
        ksize_y_(ksize_y),
        ksize_x_(ksize_x),
        kstride_y_(kstride_y),
        kstride_x_(kstride_x) {
    const Shape<srcdim> pshape = ShapeCheck<srcdim, SrcExp>::Check(grad_pooled);
    const Shape<srcdim> pooled_shape = ShapeCheck<srcdim, SrcExp>::Check(data_pooled);
    CHECK_EQ(pshape, pooled_shape) << "unpool: the pooled data and its gradient differ in shape";
    const Shape<srcdim> sshape = ShapeCheck<srcdim, SrcExp>::Check(data_src);
    for (int k = 0; k < srcdim - 2; ++k) {
      CHECK_EQ(pshape[k], sshape[k])
          << "unpool: the pooled shape " << pshape << " does not come from the source " << sshape;
    }
    CheckPoolWindow("unpool", sshape[srcdim - 2], sshape[srcdim - 1], ksize_y, ksize_x, kstride_y,
                    kstride_x);
    pshape_y_ = pshape[srcdim - 2];
    pshape_x_ = pshape[srcdim - 1];
    this->shape_ = sshape;
  }
};

template <typename Reducer, typename SrcExp, typename DType, int etype>
inline UnPoolingExp<Reducer, SrcExp, DType, ExpInfo<SrcExp>::kDim> unpool(
    const Exp<SrcExp, DType, etype>& data_src, const Exp<SrcExp, DType, etype>& data_pooled,
    const Exp<SrcExp, DType, etype>& grad_pooled, index_t ksize_y, index_t ksize_x,
    index_t kstride_y, index_t kstride_x) {
  static_assert(ExpInfo<SrcExp>::kDim >= 2, "unpool: the source needs 2 dimensions");
  return UnPoolingExp<Reducer, SrcExp, DType, ExpInfo<SrcExp>::kDim>(
      data_src.self(), data_pooled.self(), grad_pooled.self(), ksize_y, ksize_x, kstride_y,
      kstride_x);
}
template <typename Reducer, typename SrcExp, typename DType, int etype>
inline UnPoolingExp<Reducer, SrcExp, DType, ExpInfo<SrcExp>::kDim> unpool(
    const Exp<SrcExp, DType, etype>& data_src, const Exp<SrcExp, DType, etype>& data_pooled,
    const Exp<SrcExp, DType, etype>& grad_pooled, index_t ksize_y, index_t ksize_x,
    index_t kstride) {
  return unpool<Reducer>(data_src, data_pooled, grad_pooled, ksize_y, ksize_x, kstride, kstride);
}

template <typename Reducer, typename SrcExp, typename DType, int srcdim>
class Plan<UnPoolingExp<Reducer, SrcExp, DType, srcdim>, DType> {
 public:
  explicit Plan(const UnPoolingExp<Reducer, SrcExp, DType, srcdim>& e)
      : data_src_(MakePlan(e.data_src_)),
        data_pooled_(MakePlan(e.data_pooled_)),
        grad_pooled_(MakePlan(e.grad_pooled_)),
        src_height_(e.shape_[srcdim - 2]),
        pshape_y_(e.pshape_y_),
        pshape_x_(e.pshape_x_),
        ksize_y_(e.ksize_y_),
        ksize_x_(e.ksize_x_),
        kstride_y_(e.kstride_y_),
        kstride_x_(e.kstride_x_) {}
  // Windows p cover [p * stride, p * stride + ksize): pixel v lies in those from
  // ceil((v - ksize + 1) / stride) to floor(v / stride).
  MSHADOW_XINLINE DType Eval(index_t i, index_t j) const {
    const index_t plane = i / src_height_;
    const index_t y = i % src_height_;
    const index_t x = j;
    const DType value = data_src_.Eval(i, j);
    const index_t py_begin = y < ksize_y_ ? 0 : (y - ksize_y_) / kstride_y_ + 1;
    const index_t px_begin = x < ksize_x_ ? 0 : (x - ksize_x_) / kstride_x_ + 1;
    const index_t py_end = y / kstride_y_ + 1 < pshape_y_ ? y / kstride_y_ + 1 : pshape_y_;
    const index_t px_end = x / kstride_x_ + 1 < pshape_x_ ? x / kstride_x_ + 1 : pshape_x_;
    DType grad = DType(0);
    for (index_t py = py_begin; py < py_end; ++py) {
      const index_t row = plane * pshape_y_ + py;
      for (index_t px = px_begin; px < px_end; ++px) {
        grad +=
            Reducer::PartialGrad(value, data_pooled_.Eval(row, px)) * grad_pooled_.Eval(row, px);
      }
    }
    return grad;
  }

 private:
  Plan<SrcExp, DType> data_src_, data_pooled_, grad_pooled_;
  index_t src_height_, pshape_y_, pshape_x_;
  index_t ksize_y_, ksize_x_, kstride_y_, kstride_x_;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_SPATIAL_UNPOOL_H_
