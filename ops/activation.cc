// Activation(act_type) and LeakyReLU(act_type, slope), with backward operators. Their
// kernels, for every device: activation-inl.h; FCompute<gpu>: activation.cu.
#include "ops/activation-inl.h"

namespace ops {
namespace activation {
namespace {

const bool kRegistered = [] {
  SetActivationCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(ActivationParam);
DMLC_REGISTER_PARAMETER(LeakyReLUParam);

OPS_REGISTER_OP(Activation)
    .describe(
        "Applies an activation function elementwise: relu max(x, 0), sigmoid "
        "1/(1+exp(-x)), tanh, softrelu log(1+exp(x)), softsign x/(1+|x|).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(ActivationParam::__FIELDS__())
    .set_attr_parser(ParamParser<ActivationParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseFloatType<1, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_Activation", true, true});

OPS_REGISTER_OP(_backward_Activation)
    .describe("Gradient of Activation.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<ActivationParam>);

OPS_REGISTER_OP(LeakyReLU)
    .describe("Leaky rectified linear unit: x for x > 0, slope * x (act_type=leaky) or "
              "slope * (exp(x) - 1) (act_type=elu) otherwise.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(LeakyReLUParam::__FIELDS__())
    .set_attr_parser(ParamParser<LeakyReLUParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_LeakyReLU", true, false});

OPS_REGISTER_OP(_backward_LeakyReLU)
    .describe("Gradient of LeakyReLU.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<LeakyReLUParam>);

}  // namespace activation
}  // namespace ops
