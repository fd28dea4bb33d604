// Convolution(kernel, stride, dilate, pad, num_filter, num_group, no_bias, ...): MXNet's
// convolution over 1, 2 or 3 spatial axes in channel-first layout, as im2col and one gemm per
// group; and its backward operator. Kernels, for every device: convolution-inl.h;
// FCompute<gpu>: convolution.cu.
#include "ops/convolution-inl.h"

namespace ops {
namespace convolution {
namespace {

uint32_t NumInputs(const NodeAttrs& attrs) {
  return GetParam<ConvolutionParam>(attrs).no_bias ? 2 : 3;
}

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  if (GetParam<ConvolutionParam>(attrs).no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

bool ConvolutionShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ConvolutionParam& param = GetParam<ConvolutionParam>(attrs);
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const ConvGeometry g = Geometry(param, data);
  TShape weight(static_cast<index_t>(g.ndim + 2));
  weight[0] = param.num_filter;
  weight[1] = g.channels / param.num_group;
  TShape result(static_cast<index_t>(g.ndim + 2));
  result[0] = data[0];
  result[1] = param.num_filter;
  for (int a = 0; a < g.ndim; ++a) {
    weight[2 + a] = g.kernel[a];
    result[2 + a] = g.out[a];
  }
  AssignInputShape(in, 1, weight);
  if (!param.no_bias) AssignInputShape(in, 2, TShape{param.num_filter});
  AssignOutputShape(out, 0, result);
  return true;
}

bool ConvolutionType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  return NumInputs(attrs) == 2 ? ElemwiseRealType<2, 1>(attrs, in, out)
                               : ElemwiseRealType<3, 1>(attrs, in, out);
}

const bool kRegistered = [] {
  SetConvolutionCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(ConvolutionParam);

OPS_REGISTER_OP(Convolution)
    .describe("Convolution over 1, 2 or 3 spatial axes: data (batch, channel, spatial...), "
              "weight (num_filter, channel / num_group, kernel...), bias (num_filter,); "
              "output extent per axis floor((x + 2 * pad - dilate * (kernel - 1) - 1) / "
              "stride) + 1.")
    .set_num_inputs(NumInputs)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("bias", "NDArray-or-Symbol", "Bias.")
    .add_arguments(ConvolutionParam::__FIELDS__())
    .set_attr_parser(ParamParser<ConvolutionParam>)
    .set_attr<FListInputNames>("FListInputNames", InputNames)
    .set_attr<FInferShape>("FInferShape", ConvolutionShape)
    .set_attr<FInferType>("FInferType", ConvolutionType)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_Convolution", true, false});

OPS_REGISTER_OP(_backward_Convolution)
    .describe("Gradient of Convolution.")
    .set_num_inputs([](const NodeAttrs& attrs) { return 1 + NumInputs(attrs); })
    .set_num_outputs(NumInputs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<ConvolutionParam>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

}  // namespace convolution
}  // namespace ops
