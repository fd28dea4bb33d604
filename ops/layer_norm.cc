// LayerNorm(axis, eps, output_mean_var): MXNet's layer normalization; and its backward
// operator. Kernels, for every device: layer_norm-inl.h; FCompute<gpu>: layer_norm.cu.
#include "ops/layer_norm-inl.h"

namespace ops {
namespace layer_norm {
namespace {

bool LayerNormShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const int axis =
      NormalizeAxis(GetParam<LayerNormParam>(attrs).axis, static_cast<int>(data.ndim()));
  AssignInputShape(in, 1, TShape{data[axis]});
  AssignInputShape(in, 2, TShape{data[axis]});
  AssignOutputShape(out, 0, data);
  TShape moments = data;  // the data's shape with the axis of extent 1
  moments[axis] = 1;
  for (size_t i = 1; i < out->size(); ++i) AssignOutputShape(out, static_cast<int>(i), moments);
  return true;
}

bool LayerNormType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  return NumOutputs(attrs) == 1 ? ElemwiseRealType<3, 1>(attrs, in, out)
                                : ElemwiseRealType<3, 3>(attrs, in, out);
}

const bool kRegistered = [] {
  SetLayerNormCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(LayerNormParam);

OPS_REGISTER_OP(LayerNorm)
    .describe("Layer normalization: each line along axis becomes (x - mean) / sqrt(var + eps) "
              "* gamma + beta, with the line's own mean and variance.")
    .set_num_inputs(3)
    .set_num_outputs(NumOutputs)
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("gamma", "NDArray-or-Symbol", "Scale, one per position along axis.")
    .add_argument("beta", "NDArray-or-Symbol", "Shift, one per position along axis.")
    .add_arguments(LayerNormParam::__FIELDS__())
    .set_attr_parser(ParamParser<LayerNormParam>)
    .set_attr<FInferShape>("FInferShape", LayerNormShape)
    .set_attr<FInferType>("FInferType", LayerNormType)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_LayerNorm", true, false});

OPS_REGISTER_OP(_backward_LayerNorm)
    .describe("Gradient of LayerNorm.")
    .set_num_inputs([](const NodeAttrs& attrs) { return NumOutputs(attrs) + 3; })
    .set_num_outputs(3)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<LayerNormParam>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

}  // namespace layer_norm
}  // namespace ops
