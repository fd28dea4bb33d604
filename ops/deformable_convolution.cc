// _contrib_DeformableConvolution, _contrib_ModulatedDeformableConvolution and their backward
// operators: parameters, shapes and types here; the computation, for every device:
// deformable_convolution-inl.h; FCompute<gpu>: deformable_convolution.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/deformable_convolution-inl.h"
#include "ops/infer.h"
#include "ops/infer_util.h"

namespace ops {
namespace deformable_convolution {

DMLC_REGISTER_PARAMETER(DeformableConvolutionParam);
DMLC_REGISTER_PARAMETER(ModulatedDeformableConvolutionParam);

namespace {

template <typename Param>
const char* NameOf() {
  return kModulated<Param> ? "_contrib_ModulatedDeformableConvolution"
                           : "_contrib_DeformableConvolution";
}

template <typename Param>
DeformableLayout LayoutOfParam(const Param& param, const TShape& data) {
  if (param.layout.has_value() && param.layout.value() != 1) {
    throw dmlc::Error(std::string(NameOf<Param>()) + " supports the NCHW layout only");
  }
  if (param.kernel.ndim() != 2) {
    std::ostringstream os;
    os << NameOf<Param>() << " kernel " << param.kernel << " must be 2-d (height, width)";
    throw dmlc::Error(os.str());
  }
  ConvGeometry g;
  SetSpatialInput(param.kernel, data, NameOf<Param>(), &g);
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

template <typename Param>
std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  std::vector<std::string> names = {"data", "offset"};
  if (kModulated<Param>) names.push_back("mask");
  names.push_back("weight");
  if (!GetParam<Param>(attrs).no_bias) names.push_back("bias");
  return names;
}

template <typename Param>
uint32_t NumInputs(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(InputNames<Param>(attrs).size());
}

// Input i's shape `expected`: assigned where unknown; a known other one is a dmlc::Error naming
// both.
void AssignSampleInput(std::vector<TShape>* in, size_t i, const TShape& expected, const char* name,
                       const char* per_tap, const DeformableLayout& l) {
  if (ShapeIsKnown((*in)[i]) && (*in)[i] != expected) {
    std::ostringstream os;
    os << name << " " << (*in)[i] << " must be " << expected << ": " << per_tap
       << " for each of the " << l.Taps() << " taps of each of the " << l.deformable_groups
       << " deformable groups at each output position";
    throw dmlc::Error(os.str());
  }
  AssignInputShape(in, i, expected);
}

// data (N, C, H, W), offset (N, 2 x taps x deformable groups, Ho, Wo), [mask (N, taps x
// deformable groups, Ho, Wo),] weight (F, C / groups, kh, kw), bias (F) -> (N, F, Ho, Wo).
template <typename Param>
bool DeformableConvolutionShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                                std::vector<TShape>* out) {
  const Param& param = GetParam<Param>(attrs);
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const DeformableLayout l = LayoutOf(param, data);
  const index_t samples = l.deformable_groups * l.Taps();
  AssignSampleInput(in, 1, TShape{data[0], 2 * samples, l.out_height, l.out_width}, "offset",
                    "a (y, x) pair", l);
  size_t weight = 2;
  if (kModulated<Param>) {
    AssignSampleInput(in, weight++, TShape{data[0], samples, l.out_height, l.out_width}, "mask",
                      "a factor", l);
  }
  AssignInputShape(in, weight, TShape{l.filters, l.channels / l.groups, l.kernel_h, l.kernel_w});
  if (!param.no_bias) AssignInputShape(in, weight + 1, TShape{l.filters});
  AssignOutputShape(out, 0, TShape{data[0], l.filters, l.out_height, l.out_width});
  return true;
}

// The forward and backward operators of one version.
template <typename Param>
void RegisterDeformableConvolution(const char* description) {
  const std::string name = NameOf<Param>(), backward = "_backward" + name;
  Op& forward = RegisterOp(name);
  forward.describe(description)
      .set_num_inputs(NumInputs<Param>)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "Input data.")
      .add_argument("offset", "NDArray-or-Symbol", "The taps' offsets.");
  if (kModulated<Param>) {
    forward.add_argument("mask", "NDArray-or-Symbol", "The taps' factors.");
  }
  forward.add_argument("weight", "NDArray-or-Symbol", "Weight.")
      .add_argument("bias", "NDArray-or-Symbol", "Bias.")
      .set_attr<FInferType>("FInferType", SameRealType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)  // the column matrix
      .set_attr<FGradient>("FGradient", FGradient{backward, true, false});
  forward.add_arguments(Param::__FIELDS__());
  forward.set_attr_parser(ParamParser<Param>);
  forward.set_attr<FListInputNames>("FListInputNames", InputNames<Param>);
  forward.set_attr<FInferShape>("FInferShape", DeformableConvolutionShape<Param>);
  Op& gradient = RegisterOp(backward);
  gradient.describe("Gradient of " + name + ".")
      .set_attr<bool>("TIsBackward", true)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);
  gradient.set_num_inputs([](const NodeAttrs& attrs) { return 1 + NumInputs<Param>(attrs); });
  gradient.set_num_outputs(NumInputs<Param>);
  gradient.set_attr_parser(ParamParser<Param>);
}

const bool kRegistered = [] {
  RegisterDeformableConvolution<DeformableConvolutionParam>(
      "Deformable convolution (v1) over 2 spatial axes: each kernel tap samples data "
      "(batch, channel, height, width) bilinearly at its grid point moved by offset "
      "(batch, 2 x kernel taps x num_deformable_group, out height, out width; (dy, dx) "
      "pairs); weight (num_filter, channel / num_group, kh, kw), bias (num_filter,); "
      "output extents as Convolution's.");
  RegisterDeformableConvolution<ModulatedDeformableConvolutionParam>(
      "Modulated deformable convolution (v2) over 2 spatial axes: as "
      "_contrib_DeformableConvolution, each sample multiplied by mask (batch, kernel taps x "
      "num_deformable_group, out height, out width), and a sample within a pixel outside the "
      "image reads its neighbours inside it.");
  SetDeformableConvolutionCompute<cpu>();
  return true;
}();

}  // namespace

DeformableLayout LayoutOf(const DeformableConvolutionParam& param, const TShape& data) {
  return LayoutOfParam(param, data);
}

DeformableLayout LayoutOf(const ModulatedDeformableConvolutionParam& param, const TShape& data) {
  return LayoutOfParam(param, data);
}

}  // namespace deformable_convolution
}  // namespace ops
