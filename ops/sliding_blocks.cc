// im2col(kernel, stride, dilate, pad) and col2im(output_size, ...): a convolution window's
// sliding blocks as columns, and columns added back onto images. The window's geometry and
// the shapes are here; the computation, for every device: sliding_blocks-inl.h;
// FCompute<gpu>: sliding_blocks.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/infer.h"
#include "ops/infer_util.h"
#include "ops/registration_util.h"
#include "ops/sliding_blocks-inl.h"

namespace ops {
namespace sliding_blocks {

DMLC_REGISTER_PARAMETER(Im2colParam);
DMLC_REGISTER_PARAMETER(Col2imParam);

ConvGeometry GeometryOf(const TShape& kernel, const TShape& stride, const TShape& dilate,
                        const TShape& pad, const TShape& image) {
  ConvGeometry g;
  SetSpatialInput(kernel, image, "the window", &g);
  ExpandSpatial(stride, g.ndim, 1, 1, "stride", g.stride);
  ExpandSpatial(dilate, g.ndim, 1, 1, "dilate", g.dilate);
  ExpandSpatial(pad, g.ndim, 0, 0, "pad", g.pad);
  for (int a = 0; a < g.ndim; ++a) {
    const index_t span = g.dilate[a] * (g.kernel[a] - 1) + 1;
    const index_t padded = g.in[a] + 2 * g.pad[a];
    if (span > padded) {
      std::ostringstream os;
      os << "the kernel " << kernel << " (dilated extent " << span << " on spatial axis " << a
         << ") is larger than the padded image (" << padded << ") of " << image;
      throw dmlc::Error(os.str());
    }
    g.out[a] = (padded - span) / g.stride[a] + 1;
  }
  return g;
}

namespace {

// im2col: (N, C, spatial...) -> (N, C * K, W).
bool Im2colShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const ConvGeometry g = GeometryOf(GetParam<Im2colParam>(attrs), data);
  AssignOutputShape(out, 0, TShape{data[0], g.ColRows(), g.OutSize()});
  return true;
}

// col2im: (N, C * K, W) -> (N, C, output_size...), W the window's positions over output_size.
bool Col2imShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const Col2imParam& param = GetParam<Col2imParam>(attrs);
  std::ostringstream os;
  if (data.ndim() != 3) {
    os << "data must be columns (batch, channels * kernel taps, blocks), got " << data;
    throw dmlc::Error(os.str());
  }
  if (param.output_size.ndim() != param.kernel.ndim()) {
    os << "output_size " << param.output_size << " must have an entry per axis of the kernel "
       << param.kernel;
    throw dmlc::Error(os.str());
  }
  index_t taps = 1;
  for (const index_t k : param.kernel) taps *= k;
  if (taps <= 0 || data[1] % taps != 0) {
    os << "data's axis 1, " << data[1] << ", must be the channels times the kernel's taps ("
       << param.kernel << ": " << taps << ")";
    throw dmlc::Error(os.str());
  }
  std::vector<index_t> image{data[0], data[1] / taps};
  image.insert(image.end(), param.output_size.begin(), param.output_size.end());
  const TShape image_shape(image.begin(), image.end());
  const ConvGeometry g = GeometryOf(param, image_shape);
  if (data[2] != g.OutSize()) {
    os << "data has " << data[2] << " blocks (axis 2) but the window takes " << g.OutSize()
       << " positions over output_size " << param.output_size;
    throw dmlc::Error(os.str());
  }
  AssignOutputShape(out, 0, image_shape);
  return true;
}

template <typename Param>
void RegisterDirection(const char* name, const char* backward, const char* description,
                       const char* data_description, FInferShape shape) {
  Op& op = RegisterOp(name);
  op.describe(description)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", data_description)
      .set_attr<FInferShape>("FInferShape", shape)
      .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
      .set_attr<FGradient>("FGradient", FGradient{backward, false, false});
  op.add_arguments(Param::__FIELDS__());
  op.set_attr_parser(ParamParser<Param>);
  Op& backward_op = RegisterOp(backward);
  backward_op.describe(std::string("Gradient of ") + name + ": the other direction.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .set_attr<bool>("TIsBackward", true)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);
  backward_op.set_attr_parser(ParamParser<Param>);
}

const bool kRegistered = [] {
  RegisterDirection<Im2colParam>(
      "im2col", "_backward_im2col",
      "The sliding blocks of a convolution window (kernel, stride, dilate, pad) over images "
      "(N, C, spatial...) as columns: (N, C * K, W), row c * K + k the kernel tap k of channel "
      "c, column w the window's position w (row-major over the output's spatial axes); zeros "
      "in the padding.",
      "Images (N, C, width), (N, C, height, width) or (N, C, depth, height, width).", Im2colShape);
  RegisterDirection<Col2imParam>(
      "col2im", "_backward_col2im",
      "Columns (N, C * K, W) as im2col lays them out added back onto images (N, C, "
      "output_size...): each image element the sum of the column elements read from it "
      "(im2col's gradient).",
      "Columns (N, C * K, W).", Col2imShape);
  SetSlidingBlocksCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace sliding_blocks
}  // namespace ops
