// _contrib_DeformableConvolution and its backward operator: parameters, shapes and types
// here; the computation, for every device: deformable_convolution-inl.h; FCompute<gpu>:
// deformable_convolution.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/deformable_convolution-inl.h"
#include "ops/infer.h"
#include "ops/infer_util.h"

namespace ops {
namespace deformable_convolution {

DMLC_REGISTER_PARAMETER(DeformableConvolutionParam);

DeformableLayout LayoutOf(const DeformableConvolutionParam& param, const TShape& data) {
  if (param.layout.has_value() && param.layout.value() != 1) {
    throw dmlc::Error("_contrib_DeformableConvolution supports the NCHW layout only");
  }
  if (param.kernel.ndim() != 2) {
    std::ostringstream os;
    os << "_contrib_DeformableConvolution kernel " << param.kernel
       << " must be 2-d (height, width)";
    throw dmlc::Error(os.str());
  }
  ConvGeometry g;
  SetSpatialInput(param.kernel, data, "_contrib_DeformableConvolution", &g);
  ExpandSpatial(param.stride, 2, 1, 1, "stride", g.stride);
  ExpandSpatial(param.dilate, 2, 1, 1, "dilate", g.dilate);
  ExpandSpatial(param.pad, 2, 0, 0, "pad", g.pad);
  const index_t channels = g.channels;
  if (channels % param.num_group != 0 || param.num_filter % param.num_group != 0 ||
      channels % param.num_deformable_group != 0) {
    std::ostringstream os;
    os << "num_group " << param.num_group << " must divide the input channels (" << channels
       << ") and num_filter (" << param.num_filter << "), and num_deformable_group "
       << param.num_deformable_group << " the input channels";
    throw dmlc::Error(os.str());
  }
  SetConvolutionOutput(param.kernel, data, &g);
  DeformableLayout l;
  l.channels = channels;
  l.height = g.in[0], l.width = g.in[1];
  l.out_height = g.out[0], l.out_width = g.out[1];
  l.kernel_h = g.kernel[0], l.kernel_w = g.kernel[1];
  l.stride_h = g.stride[0], l.stride_w = g.stride[1];
  l.dilate_h = g.dilate[0], l.dilate_w = g.dilate[1];
  l.pad_h = g.pad[0], l.pad_w = g.pad[1];
  l.deformable_groups = param.num_deformable_group;
  l.filters = param.num_filter;
  l.groups = param.num_group;
  return l;
}

namespace {

uint32_t NumInputs(const NodeAttrs& attrs) {
  return GetParam<DeformableConvolutionParam>(attrs).no_bias ? 3 : 4;
}

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  if (GetParam<DeformableConvolutionParam>(attrs).no_bias) return {"data", "offset", "weight"};
  return {"data", "offset", "weight", "bias"};
}

// data (N, C, H, W), offset (N, 2 x taps x deformable groups, Ho, Wo), weight (F, C / groups,
// kh, kw), bias (F) -> (N, F, Ho, Wo).
bool DeformableConvolutionShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                                std::vector<TShape>* out) {
  const DeformableConvolutionParam& param = GetParam<DeformableConvolutionParam>(attrs);
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const DeformableLayout l = LayoutOf(param, data);
  const TShape offset{data[0], 2 * l.deformable_groups * l.Taps(), l.out_height, l.out_width};
  if (ShapeIsKnown((*in)[1]) && (*in)[1] != offset) {
    std::ostringstream os;
    os << "offset " << (*in)[1] << " must be " << offset << ": a (y, x) pair for each of the "
       << l.Taps() << " taps of each of the " << l.deformable_groups
       << " deformable groups at each output position";
    throw dmlc::Error(os.str());
  }
  AssignInputShape(in, 1, offset);
  AssignInputShape(in, 2, TShape{l.filters, l.channels / l.groups, l.kernel_h, l.kernel_w});
  if (!param.no_bias) AssignInputShape(in, 3, TShape{l.filters});
  AssignOutputShape(out, 0, TShape{data[0], l.filters, l.out_height, l.out_width});
  return true;
}

bool DeformableConvolutionType(const NodeAttrs& attrs, std::vector<int>* in,
                               std::vector<int>* out) {
  return NumInputs(attrs) == 3 ? ElemwiseRealType<3, 1>(attrs, in, out)
                               : ElemwiseRealType<4, 1>(attrs, in, out);
}

const bool kRegistered = [] {
  SetDeformableConvolutionCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(_contrib_DeformableConvolution)
    .describe(
        "Deformable convolution (v1) over 2 spatial axes: each kernel tap samples data "
        "(batch, channel, height, width) bilinearly at its grid point moved by offset "
        "(batch, 2 x kernel taps x num_deformable_group, out height, out width; (dy, dx) "
        "pairs); weight (num_filter, channel / num_group, kh, kw), bias (num_filter,); "
        "output extents as Convolution's.")
    .set_num_inputs(NumInputs)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("offset", "NDArray-or-Symbol", "The taps' offsets.")
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("bias", "NDArray-or-Symbol", "Bias.")
    .add_arguments(DeformableConvolutionParam::__FIELDS__())
    .set_attr_parser(ParamParser<DeformableConvolutionParam>)
    .set_attr<FListInputNames>("FListInputNames", InputNames)
    .set_attr<FInferShape>("FInferShape", DeformableConvolutionShape)
    .set_attr<FInferType>("FInferType", DeformableConvolutionType)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)  // the column matrix
    .set_attr<FGradient>("FGradient",
                         FGradient{"_backward_contrib_DeformableConvolution", true, false});

OPS_REGISTER_OP(_backward_contrib_DeformableConvolution)
    .describe("Gradient of _contrib_DeformableConvolution.")
    .set_num_inputs([](const NodeAttrs& attrs) { return 1 + NumInputs(attrs); })
    .set_num_outputs(NumInputs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<DeformableConvolutionParam>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

}  // namespace deformable_convolution
}  // namespace ops
