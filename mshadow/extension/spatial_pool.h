// mshadow/extension/spatial_pool.h: a reducer (red::maximum, red::sum, ...) over windows of the
// two lowest dimensions.
//
//   Tensor<cpu, 4> in(Shape4(8, 16, 32, 32)), out(Shape4(8, 16, 15, 15));
//   out = pool<red::maximum>(in, 3, 3, 2);      // 3x3 windows, stride 2 both ways
//   out = pool<red::maximum>(in, 3, 3, 2, 2);   // strides given per axis
//
// Output size: (in - kernel) / stride + 1 per axis, or the shape given as pshape; windows are
// cut at the image's edge, and one wholly past it gives the reducer's initial value.
#ifndef MSHADOW_EXTENSION_SPATIAL_POOL_H_
#define MSHADOW_EXTENSION_SPATIAL_POOL_H_

#include <algorithm>

#include "mshadow/expr/make_tensor.h"

namespace mshadow {
namespace expr {

// Checks a window against the image it slides over; shared by the pooling expressions.
inline void CheckPoolWindow(const char* what, index_t height, index_t width, index_t ksize_y,
                            index_t ksize_x, index_t kstride_y, index_t kstride_x) {
  CHECK(ksize_y >= 1 && ksize_x >= 1 && kstride_y >= 1 && kstride_x >= 1)
      << what << ": kernel (" << ksize_y << ", " << ksize_x << ") and stride (" << kstride_y << ", "
      << kstride_x << ") must be at least 1";
  CHECK(ksize_y <= height && ksize_x <= width)
      << what << ": kernel (" << ksize_y << ", " << ksize_x << ") is larger than the image ("
      << height << ", " << width << ")";
}

template <typename Reducer, typename SrcExp, typename DType, int srcdim>
struct PoolingExp
    : public MakeTensorExp<PoolingExp<Reducer, SrcExp, DType, srcdim>, SrcExp, srcdim, DType> {
  const SrcExp& src_;
  index_t ksize_y_, ksize_x_, kstride_y_, kstride_x_;
  index_t src_height_, src_width_;
  PoolingExp(const SrcExp& src, index_t ksize_y, index_t ksize_x, index_t kstride_y,
             index_t kstride_x)
      : src_(src),
        ksize_y_(ksize_y),
        ksize_x_(ksize_x),
        kstride_y_(kstride_y),
        kstride_x_(kstride_x) {
    this->shape_ = ShapeCheck<srcdim, SrcExp>::Check(src);
    src_height_ = this->shape_[srcdim - 2];
    src_width_ = this->shape_[srcdim - 1];
    CheckPoolWindow("pool", src_height_, src_width_, ksize_y, ksize_x, kstride_y, kstride_x);
    this->shape_[srcdim - 2] = (src_height_ - ksize_y) / kstride_y + 1;
    this->shape_[srcdim - 1] = (src_width_ - ksize_x) / kstride_x + 1;
  }
  // The same windows with the output size given (pshape may keep windows cut at the edge).
  PoolingExp(const SrcExp& src, Shape<2> pshape, index_t ksize_y, index_t ksize_x,
             index_t kstride_y, index_t kstride_x)
      : PoolingExp(src, ksize_y, ksize_x, kstride_y, kstride_x) {
    this->shape_[srcdim - 2] = pshape[0];
    this->shape_[srcdim - 1] = pshape[1];
  }
};

template <typename Reducer, typename SrcExp, typename DType, int etype>
inline PoolingExp<Reducer, SrcExp, DType, ExpInfo<SrcExp>::kDim> pool(
    const Exp<SrcExp, DType, etype>& src, index_t ksize_y, index_t ksize_x, index_t kstride_y,
    index_t kstride_x) {
  static_assert(ExpInfo<SrcExp>::kDim >= 2, "pool: the source needs 2 dimensions");
  return PoolingExp<Reducer, SrcExp, DType, ExpInfo<SrcExp>::kDim>(src.self(), ksize_y, ksize_x,
                                                                   kstride_y, kstride_x);
}
template <typename Reducer, typename SrcExp, typename DType, int etype>
inline PoolingExp<Reducer, SrcExp, DType, ExpInfo<SrcExp>::kDim> pool(
    const Exp<SrcExp, DType, etype>& src, index_t ksize_y, index_t ksize_x, index_t kstride) {
  return pool<Reducer>(src, ksize_y, ksize_x, kstride, kstride);
}
template <typename Reducer, typename SrcExp, typename DType, int etype>
inline PoolingExp<Reducer, SrcExp, DType, ExpInfo<SrcExp>::kDim> pool(
    const Exp<SrcExp, DType, etype>& src, Shape<2> pshape, index_t ksize_y, index_t ksize_x,
    index_t kstride_y, index_t kstride_x) {
  static_assert(ExpInfo<SrcExp>::kDim >= 2, "pool: the source needs 2 dimensions");
  return PoolingExp<Reducer, SrcExp, DType, ExpInfo<SrcExp>::kDim>(src.self(), pshape, ksize_y,
                                                                   ksize_x, kstride_y, kstride_x);
}
template <typename Reducer, typename SrcExp, typename DType, int etype>
inline PoolingExp<Reducer, SrcExp, DType, ExpInfo<SrcExp>::kDim> pool(
    const Exp<SrcExp, DType, etype>& src, Shape<2> pshape, index_t ksize_y, index_t ksize_x,
    index_t kstride) {
  return pool<Reducer>(src, pshape, ksize_y, ksize_x, kstride, kstride);
}

template <typename Reducer, typename SrcExp, typename DType, int srcdim>
class Plan<PoolingExp<Reducer, SrcExp, DType, srcdim>, DType> {
 public:
  explicit Plan(const PoolingExp<Reducer, SrcExp, DType, srcdim>& e)
      : src_(MakePlan(e.src_)),
        ksize_y_(e.ksize_y_),
        ksize_x_(e.ksize_x_),
        kstride_y_(e.kstride_y_),
        kstride_x_(e.kstride_x_),
        src_height_(e.src_height_),
        src_width_(e.src_width_),
        out_height_(e.shape_[srcdim - 2]) {}
  MSHADOW_XINLINE DType Eval(index_t i, index_t j) const {
    const index_t plane = i / out_height_;
    const index_t y_begin = (i % out_height_) * kstride_y_;
    const index_t x_begin = j * kstride_x_;
    const index_t y_end = y_begin + ksize_y_ < src_height_ ? y_begin + ksize_y_ : src_height_;
    const index_t x_end = x_begin + ksize_x_ < src_width_ ? x_begin + ksize_x_ : src_width_;
    DType result;
    Reducer::SetInitValue(result);
    for (index_t y = y_begin; y < y_end; ++y) {
      for (index_t x = x_begin; x < x_end; ++x) {
        Reducer::Reduce(result, src_.Eval(plane * src_height_ + y, x));
      }
    }
    return result;
  }

 private:
  Plan<SrcExp, DType> src_;
  index_t ksize_y_, ksize_x_, kstride_y_, kstride_x_;
  index_t src_height_, src_width_, out_height_;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_SPATIAL_POOL_H_
