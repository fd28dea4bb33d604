// Deconvolution(kernel, stride, dilate, pad, adj, target_shape, num_filter, num_group,
// no_bias, ...): MXNet's transposed convolution over 1, 2 or 3 spatial axes in channel-first
// layout, and its backward operator. Kernels, for every device: deconvolution-inl.h;
// FCompute<gpu>: deconvolution.cu.
#include "ops/deconvolution-inl.h"

namespace ops {
namespace deconvolution {
namespace {

uint32_t NumInputs(const NodeAttrs& attrs) {
  return GetParam<DeconvolutionParam>(attrs).no_bias ? 2 : 3;
}

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  if (GetParam<DeconvolutionParam>(attrs).no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

bool DeconvolutionShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                        std::vector<TShape>* out) {
  const DeconvolutionParam& param = GetParam<DeconvolutionParam>(attrs);
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const ConvGeometry g = Geometry(param, data);
  TShape weight(static_cast<index_t>(g.ndim + 2));
  weight[0] = data[1];
  weight[1] = param.num_filter / param.num_group;
  TShape result(static_cast<index_t>(g.ndim + 2));
  result[0] = data[0];
  result[1] = param.num_filter;
  for (int a = 0; a < g.ndim; ++a) {
    weight[2 + a] = g.kernel[a];
    result[2 + a] = g.in[a];
  }
  AssignInputShape(in, 1, weight);
  if (!param.no_bias) AssignInputShape(in, 2, TShape{param.num_filter});
  AssignOutputShape(out, 0, result);
  return true;
}

bool DeconvolutionType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  return NumInputs(attrs) == 2 ? ElemwiseRealType<2, 1>(attrs, in, out)
                               : ElemwiseRealType<3, 1>(attrs, in, out);
}

const bool kRegistered = [] {
  SetDeconvolutionCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(DeconvolutionParam);

OPS_REGISTER_OP(Deconvolution)
    .describe("Transposed convolution over 1, 2 or 3 spatial axes: data (batch, channel, "
              "spatial...), weight (channel, num_filter / num_group, kernel...), bias "
              "(num_filter,) unless no_bias (the default); output extent per axis stride * "
              "(x - 1) + dilate * (kernel - 1) + 1 - 2 * pad + adj, or target_shape.")
    .set_num_inputs(NumInputs)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("bias", "NDArray-or-Symbol", "Bias.")
    .add_arguments(DeconvolutionParam::__FIELDS__())
    .set_attr_parser(ParamParser<DeconvolutionParam>)
    .set_attr<FListInputNames>("FListInputNames", InputNames)
    .set_attr<FInferShape>("FInferShape", DeconvolutionShape)
    .set_attr<FInferType>("FInferType", DeconvolutionType)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_Deconvolution", true, false});

OPS_REGISTER_OP(_backward_Deconvolution)
    .describe("Gradient of Deconvolution.")
    .set_num_inputs([](const NodeAttrs& attrs) { return 1 + NumInputs(attrs); })
    .set_num_outputs(NumInputs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<DeconvolutionParam>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

}  // namespace deconvolution
}  // namespace ops
