// ops/sliding_blocks-inl.h: MXNet 1.9.1's im2col and col2im, written once for every device on
// the convolution family's column kernels (ops/im2col.h). im2col lays the sliding blocks of a
// convolution's window over images (N, C, spatial...) out as columns, (N, C * K, W) for a
// kernel of K taps and W window positions; col2im adds every column element back onto the
// image element it came from, so each is the other's gradient. sliding_blocks.cc registers
// them with FCompute<cpu>, sliding_blocks.cu adds FCompute<gpu>.
#ifndef OPS_SLIDING_BLOCKS_INL_H_
#define OPS_SLIDING_BLOCKS_INL_H_

#include <vector>

#include "mshadow/tensor.h"
#include "ops/conv_geometry.h"
#include "ops/im2col.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"

namespace ops {
namespace sliding_blocks {

// The window's fields (TShape kernel, stride, dilate, pad), declared alike by both operators.
#define OPS_DECLARE_WINDOW_FIELDS()                                                     \
  DMLC_DECLARE_FIELD(kernel).describe("Kernel size: (w,), (h, w) or (d, h, w).");       \
  DMLC_DECLARE_FIELD(stride).set_default(TShape()).describe(                            \
      "The step between neighbouring blocks per spatial axis; () is 1 on every axis."); \
  DMLC_DECLARE_FIELD(dilate).set_default(TShape()).describe(                            \
      "The spacing of the kernel's taps per spatial axis; () is 1 on every axis.");     \
  DMLC_DECLARE_FIELD(pad).set_default(TShape()).describe(                               \
      "Zero padding on both sides of each spatial axis; () is 0 on every axis.")

struct Im2colParam : public dmlc::Parameter<Im2colParam> {
  TShape kernel;
  TShape stride;
  TShape dilate;
  TShape pad;
  DMLC_DECLARE_PARAMETER(Im2colParam) { OPS_DECLARE_WINDOW_FIELDS(); }
};

struct Col2imParam : public dmlc::Parameter<Col2imParam> {
  TShape output_size;
  TShape kernel;
  TShape stride;
  TShape dilate;
  TShape pad;
  DMLC_DECLARE_PARAMETER(Col2imParam) {
    DMLC_DECLARE_FIELD(output_size)
        .describe("The images' spatial extents: (w,), (h, w) or (d, h, w).");
    OPS_DECLARE_WINDOW_FIELDS();
  }
};

// The window over images `image` (N, C, spatial...), output extents included; a dmlc::Error
// naming what does not fit (a rank the kernel does not take, a dilated kernel larger than the
// padded image).
ConvGeometry GeometryOf(const TShape& kernel, const TShape& stride, const TShape& dilate,
                        const TShape& pad, const TShape& image);

inline ConvGeometry GeometryOf(const Im2colParam& p, const TShape& image) {
  return GeometryOf(p.kernel, p.stride, p.dilate, p.pad, image);
}
inline ConvGeometry GeometryOf(const Col2imParam& p, const TShape& image) {
  return GeometryOf(p.kernel, p.stride, p.dilate, p.pad, image);
}

// Images to columns (kToColumns) or columns added back onto images, image by image; `images`
// is the input or output the direction makes it. The operators and each other's gradient.
template <typename xpu, typename Param, bool kToColumns>
void SlidingBlocksCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TBlob& images = kToColumns ? in[0] : out[0];
  const ConvGeometry g = GeometryOf(GetParam<Param>(attrs), images.shape_);
  const index_t batch = images.shape_[0];
  const index_t image_size = g.channels * g.InSize(), column_size = g.ColRows() * g.OutSize();
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* from = in[0].dptr<DType>();
    DType* to = out[0].dptr<DType>();
    if constexpr (kToColumns) {
      // Im2Col writes: an addition goes through columns of the temporary space.
      const bool adds = req[0] == kAddTo;
      DType* columns_of_image =
          adds ? ctx.requested[0]
                     .get_space_typed<xpu, 1, DType>(mshadow::Shape1(column_size), s)
                     .dptr_
               : nullptr;
      for (index_t n = 0; n < batch; ++n) {
        DType* dst = to + n * column_size;
        Im2Col(s, g, from + n * image_size, adds ? columns_of_image : dst);
        if (adds) {
          Tensor<xpu, 1, DType> sum(dst, mshadow::Shape1(column_size), s);
          sum += Tensor<xpu, 1, DType>(columns_of_image, mshadow::Shape1(column_size), s);
        }
      }
    } else {
      for (index_t n = 0; n < batch; ++n) {
        Col2Im(s, g, from + n * column_size, to + n * image_size, req[0]);
      }
    }
  });
}

// Adds FCompute<xpu> to im2col, col2im and their backward operators.
template <typename xpu>
void SetSlidingBlocksCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  const auto set = [attr_name](const char* name, FCompute compute) {
    RegisterOp(name).set_attr<FCompute>(attr_name, compute);
  };
  set("im2col", SlidingBlocksCompute<xpu, Im2colParam, true>);
  set("_backward_im2col", SlidingBlocksCompute<xpu, Im2colParam, false>);
  set("col2im", SlidingBlocksCompute<xpu, Col2imParam, false>);
  set("_backward_col2im", SlidingBlocksCompute<xpu, Col2imParam, true>);
}

}  // namespace sliding_blocks
}  // namespace ops

#endif  // OPS_SLIDING_BLOCKS_INL_H_
