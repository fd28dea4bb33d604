// SoftmaxActivation and its backward operator (softmax_activation-inl.h); FCompute<gpu>:
// softmax_activation.cu.
#include "ops/softmax_activation-inl.h"

namespace ops {
namespace softmax_activation {
namespace {

bool SoftmaxActivationShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                            std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  SoftmaxView(GetParam<SoftmaxActivationParam>(attrs), data);  // checks the rank
  AssignOutputShape(out, 0, data);
  return true;
}

const bool kRegistered = [] {
  SetSoftmaxActivationCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(SoftmaxActivationParam);

OPS_REGISTER_OP(SoftmaxActivation)
    .describe("Softmax over each instance (mode=instance: the last axis, as MXNet 1.9.1 "
              "computes it) or over the channels (mode=channel: axis 1) at each position.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input data (batch, ...).")
    .add_arguments(SoftmaxActivationParam::__FIELDS__())
    .set_attr_parser(ParamParser<SoftmaxActivationParam>)
    .set_attr<FInferShape>("FInferShape", SoftmaxActivationShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_SoftmaxActivation", false, true});

OPS_REGISTER_OP(_backward_SoftmaxActivation)
    .describe("Gradient of SoftmaxActivation.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<SoftmaxActivationParam>);

}  // namespace softmax_activation
}  // namespace ops
