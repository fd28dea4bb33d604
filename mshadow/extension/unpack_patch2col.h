// mshadow/extension/unpack_patch2col.h: image patches laid out as matrix columns (im2col), so
// that a convolution is one matrix product.
//
//   Tensor<cpu, 4> img(Shape4(n, c, h, w));   // (.., channels, height, width), 3-D or more
//   col = unpack_patch2col(img, ky, kx, stride);                    // shape (c*ky*kx, n*oh*ow)
//   col = unpack_patch2col(img, ky, kx, sy, sx, dilate_y, dilate_x);
//   out = dot(weight, col);                   // weight (filters, c*ky*kx)
//
// Row (ch * ky + dy) * kx + dx, column (img * oh + oy) * ow + ox holds
// img[img][ch][oy * sy + dy * dilate_y][ox * sx + dx * dilate_x], where
// oh = (h - ((ky - 1) * dilate_y + 1)) / sy + 1, and likewise ow. There is no padding: pad
// the image first where a convolution needs it.
#ifndef MSHADOW_EXTENSION_UNPACK_PATCH2COL_H_
#define MSHADOW_EXTENSION_UNPACK_PATCH2COL_H_

#include "mshadow/expr/make_tensor.h"

namespace mshadow {
namespace expr {

// The geometry unpack_patch2col and pack_col2patch share, checked once.
struct PatchGeometry {
  index_t psize_y, psize_x, pstride_y, pstride_x, pdilate_y, pdilate_x;
  index_t channels, height, width, out_height, out_width;

  PatchGeometry(const char* what, index_t channels_, index_t height_, index_t width_,
                index_t psize_y_, index_t psize_x_, index_t pstride_y_, index_t pstride_x_,
                index_t pdilate_y_, index_t pdilate_x_)
      : psize_y(psize_y_),
        psize_x(psize_x_),
        pstride_y(pstride_y_),
        pstride_x(pstride_x_),
        pdilate_y(pdilate_y_),
        pdilate_x(pdilate_x_),
        channels(channels_),
        height(height_),
        width(width_) {
    CHECK(psize_y >= 1 && psize_x >= 1 && pstride_y >= 1 && pstride_x >= 1 && pdilate_y >= 1 &&
          pdilate_x >= 1)
        << what << ": patch (" << psize_y << ", " << psize_x << "), stride (" << pstride_y << ", "
        << pstride_x << ") and dilation (" << pdilate_y << ", " << pdilate_x
        << ") must all be at least 1";
    const index_t extent_y = (psize_y - 1) * pdilate_y + 1;
    const index_t extent_x = (psize_x - 1) * pdilate_x + 1;
    CHECK(extent_y <= height && extent_x <= width)
        << what << ": the dilated patch (" << extent_y << ", " << extent_x
        << ") is larger than the image (" << height << ", " << width << ")";
    out_height = (height - extent_y) / pstride_y + 1;
    out_width = (width - extent_x) / pstride_x + 1;
  }
};

template <typename SrcExp, typename DType, int srcdim>
struct UnpackPatchToColXExp
    : public MakeTensorExp<UnpackPatchToColXExp<SrcExp, DType, srcdim>, SrcExp, 2, DType> {
  const SrcExp& img_;
  PatchGeometry geometry_;
  UnpackPatchToColXExp(const SrcExp& img, const Shape<srcdim>& imshape, index_t psize_y,
                       index_t psize_x, index_t pstride_y, index_t pstride_x, index_t pdilate_y,
                       index_t pdilate_x)
      : img_(img),
        geometry_("unpack_patch2col", imshape[srcdim - 3], imshape[srcdim - 2], imshape[srcdim - 1],
                  psize_y, psize_x, pstride_y, pstride_x, pdilate_y, pdilate_x) {
    const index_t images = imshape.ProdShape(0, srcdim - 3);
    this->shape_ = Shape2(geometry_.channels * psize_y * psize_x,
                          images * geometry_.out_height * geometry_.out_width);
  }
};

template <typename SrcExp, typename DType, int etype>
inline UnpackPatchToColXExp<SrcExp, DType, ExpInfo<SrcExp>::kDim> unpack_patch2col(
    const Exp<SrcExp, DType, etype>& img, index_t psize_y, index_t psize_x, index_t pstride_y,
    index_t pstride_x, index_t pdilate_y, index_t pdilate_x) {
  constexpr int kDim = ExpInfo<SrcExp>::kDim;
  static_assert(kDim >= 3, "unpack_patch2col: the image needs (channel, height, width)");
  return UnpackPatchToColXExp<SrcExp, DType, kDim>(
      img.self(), ShapeCheck<kDim, SrcExp>::Check(img.self()), psize_y, psize_x, pstride_y,
      pstride_x, pdilate_y, pdilate_x);
}
template <typename SrcExp, typename DType, int etype>
inline UnpackPatchToColXExp<SrcExp, DType, ExpInfo<SrcExp>::kDim> unpack_patch2col(
    const Exp<SrcExp, DType, etype>& img, index_t psize_y, index_t psize_x, index_t pstride,
    index_t pdilate) {
  return unpack_patch2col(img, psize_y, psize_x, pstride, pstride, pdilate, pdilate);
}
template <typename SrcExp, typename DType, int etype>
inline UnpackPatchToColXExp<SrcExp, DType, ExpInfo<SrcExp>::kDim> unpack_patch2col(
    const Exp<SrcExp, DType, etype>& img, index_t psize_y, index_t psize_x, index_t pstride) {
  return unpack_patch2col(img, psize_y, psize_x, pstride, pstride, 1, 1);
}

template <typename SrcExp, typename DType, int srcdim>
class Plan<UnpackPatchToColXExp<SrcExp, DType, srcdim>, DType> {
 public:
  explicit Plan(const UnpackPatchToColXExp<SrcExp, DType, srcdim>& e)
      : src_(MakePlan(e.img_)), g_(e.geometry_) {}
  MSHADOW_XINLINE DType Eval(index_t i, index_t j) const {
    const index_t dx = i % g_.psize_x;
    const index_t dy = (i / g_.psize_x) % g_.psize_y;
    const index_t channel = i / (g_.psize_x * g_.psize_y);
    const index_t ox = j % g_.out_width;
    const index_t oy = (j / g_.out_width) % g_.out_height;
    const index_t image = j / (g_.out_width * g_.out_height);
    const index_t y = oy * g_.pstride_y + dy * g_.pdilate_y;
    const index_t x = ox * g_.pstride_x + dx * g_.pdilate_x;
    return src_.Eval((image * g_.channels + channel) * g_.height + y, x);
  }

 private:
  Plan<SrcExp, DType> src_;
  PatchGeometry g_;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_UNPACK_PATCH2COL_H_
