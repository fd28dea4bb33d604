// mshadow/extension/pack_col2patch.h: the reverse of unpack_patch2col (col2im): each image
// pixel sums the matrix entries that unpack_patch2col would have copied it to. The gradient
// of a convolution with respect to its input, or a deconvolution.
//
//   grad_img = pack_col2patch(grad_col, img.shape_, ky, kx, stride);
//   grad_img = pack_col2patch(grad_col, img.shape_, ky, kx, sy, sx, dilate_y, dilate_x);
#ifndef MSHADOW_EXTENSION_PACK_COL2PATCH_H_
#define MSHADOW_EXTENSION_PACK_COL2PATCH_H_

#include "mshadow/expr/make_tensor.h"
#include "mshadow/extension/unpack_patch2col.h"

namespace mshadow {
namespace expr {

template <typename SrcExp, typename DType, int dstdim>
struct PackColToPatchXExp
    : public MakeTensorExp<PackColToPatchXExp<SrcExp, DType, dstdim>, SrcExp, dstdim, DType> {
  const SrcExp& src_;
  PatchGeometry geometry_;
  PackColToPatchXExp(const SrcExp& src, Shape<dstdim> imshape, index_t psize_y, index_t psize_x,
                     index_t pstride_y, index_t pstride_x, index_t pdilate_y, index_t pdilate_x)
      : src_(src),
        geometry_("pack_col2patch", imshape[dstdim - 3], imshape[dstdim - 2], imshape[dstdim - 1],
                  psize_y, psize_x, pstride_y, pstride_x, pdilate_y, pdilate_x) {
    this->shape_ = imshape;
    const Shape<2> expected =
        Shape2(geometry_.channels * psize_y * psize_x,
               imshape.ProdShape(0, dstdim - 3) * geometry_.out_height * geometry_.out_width);
    const Shape<2> sshape = ShapeCheck<2, SrcExp>::Check(src);
    CHECK_EQ(sshape, expected) << "pack_col2patch: the matrix for image " << imshape
                               << " must have the unpacked shape";
  }
};

template <typename SrcExp, typename DType, int dstdim, int etype>
inline PackColToPatchXExp<SrcExp, DType, dstdim> pack_col2patch(
    const Exp<SrcExp, DType, etype>& src, Shape<dstdim> imshape, index_t psize_y, index_t psize_x,
    index_t pstride_y, index_t pstride_x, index_t pdilate_y, index_t pdilate_x) {
  static_assert(ExpInfo<SrcExp>::kDim == 2, "pack_col2patch: the source must be 2-D");
  static_assert(dstdim >= 3, "pack_col2patch: the image needs (channel, height, width)");
  return PackColToPatchXExp<SrcExp, DType, dstdim>(src.self(), imshape, psize_y, psize_x, pstride_y,
                                                   pstride_x, pdilate_y, pdilate_x);
}
template <typename SrcExp, typename DType, int dstdim, int etype>
inline PackColToPatchXExp<SrcExp, DType, dstdim> pack_col2patch(
    const Exp<SrcExp, DType, etype>& src, Shape<dstdim> imshape, index_t psize_y, index_t psize_x,
    index_t pstride, index_t pdilate) {
  return pack_col2patch(src, imshape, psize_y, psize_x, pstride, pstride, pdilate, pdilate);
}
template <typename SrcExp, typename DType, int dstdim, int etype>
inline PackColToPatchXExp<SrcExp, DType, dstdim> pack_col2patch(
    const Exp<SrcExp, DType, etype>& src, Shape<dstdim> imshape, index_t psize_y, index_t psize_x,
    index_t pstride) {
  return pack_col2patch(src, imshape, psize_y, psize_x, pstride, pstride, 1, 1);
}

template <typename SrcExp, typename DType, int dstdim>
class Plan<PackColToPatchXExp<SrcExp, DType, dstdim>, DType> {
 public:
  explicit Plan(const PackColToPatchXExp<SrcExp, DType, dstdim>& e)
      : src_(MakePlan(e.src_)), g_(e.geometry_) {}
  // Patch element (dy, dx) of output position (oy, ox) reads pixel
  // (oy * sy + dy * dilate_y, ox * sx + dx * dilate_x); sum every pair that reads (y, x).
  MSHADOW_XINLINE DType Eval(index_t i, index_t j) const {
    const index_t y = i % g_.height;
    const index_t channel = (i / g_.height) % g_.channels;
    const index_t image = i / (g_.height * g_.channels);
    const index_t x = j;
    DType sum = DType(0);
    for (index_t dy = 0; dy < g_.psize_y; ++dy) {
      const index_t ty = y - dy * g_.pdilate_y;
      if (ty < 0) break;
      if (ty % g_.pstride_y != 0 || ty / g_.pstride_y >= g_.out_height) continue;
      const index_t col_row = (image * g_.out_height + ty / g_.pstride_y) * g_.out_width;
      for (index_t dx = 0; dx < g_.psize_x; ++dx) {
        const index_t tx = x - dx * g_.pdilate_x;
        if (tx < 0) break;
        if (tx % g_.pstride_x != 0 || tx / g_.pstride_x >= g_.out_width) continue;
        sum +=
            src_.Eval((channel * g_.psize_y + dy) * g_.psize_x + dx, col_row + tx / g_.pstride_x);
      }
    }
    return sum;
  }

 private:
  Plan<SrcExp, DType> src_;
  PatchGeometry g_;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_PACK_COL2PATCH_H_
