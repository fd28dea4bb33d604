// mshadow/extension/spatial_upsampling_nearest.h: each pixel of the two lowest dimensions
// repeated into a scale x scale block.
//
//   Tensor<cpu, 4> small(Shape4(2, 3, 8, 8)), big(Shape4(2, 3, 16, 16));
//   big = upsampling_nearest(small, 2);   // big[n][c][y][x] = small[n][c][y / 2][x / 2]
#ifndef MSHADOW_EXTENSION_SPATIAL_UPSAMPLING_NEAREST_H_
#define MSHADOW_EXTENSION_SPATIAL_UPSAMPLING_NEAREST_H_

#include "mshadow/expr/make_tensor.h"

namespace mshadow {
namespace expr {

template <typename SrcExp, typename DType, int srcdim>
struct UpSamplingNearestExp
    : public MakeTensorExp<UpSamplingNearestExp<SrcExp, DType, srcdim>, SrcExp, srcdim, DType> {
  const SrcExp& src_;
  index_t scale_;
  index_t src_height_;
  UpSamplingNearestExp(const SrcExp& src, index_t scale) : src_(src), scale_(scale) {
    CHECK_GE(scale, 1) << "upsampling_nearest: the scale must be at least 1";
    this->shape_ = ShapeCheck<srcdim, SrcExp>::Check(src);
    src_height_ = this->shape_[srcdim - 2];
    this->shape_[srcdim - 2] *= scale;
    this->shape_[srcdim - 1] *= scale;
  }
};

template <typename SrcExp, typename DType, int etype>
inline UpSamplingNearestExp<SrcExp, DType, ExpInfo<SrcExp>::kDim> upsampling_nearest(
    const Exp<SrcExp, DType, etype>& src, index_t scale) {
  static_assert(ExpInfo<SrcExp>::kDim >= 2, "upsampling_nearest: the source needs 2 dimensions");
  return UpSamplingNearestExp<SrcExp, DType, ExpInfo<SrcExp>::kDim>(src.self(), scale);
}

template <typename SrcExp, typename DType, int srcdim>
class Plan<UpSamplingNearestExp<SrcExp, DType, srcdim>, DType> {
 public:
  explicit Plan(const UpSamplingNearestExp<SrcExp, DType, srcdim>& e)
      : src_(MakePlan(e.src_)),
        scale_(e.scale_),
        height_(e.shape_[srcdim - 2]),
        src_height_(e.src_height_) {}
  MSHADOW_XINLINE DType Eval(index_t i, index_t j) const {
    const index_t plane = i / height_;
    const index_t y = i % height_;
    return src_.Eval(plane * src_height_ + y / scale_, j / scale_);
  }

 private:
  Plan<SrcExp, DType> src_;
  index_t scale_, height_, src_height_;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_SPATIAL_UPSAMPLING_NEAREST_H_
