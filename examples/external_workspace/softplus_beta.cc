// softplus_beta: the operator, registered into mshadow_ops' registry, with its CPU compute
// (the kernels are in softplus_beta-inl.h; softplus_beta.cu adds the GPU's).
#include "softplus_beta-inl.h"

namespace example {

DMLC_REGISTER_PARAMETER(SoftplusBetaParam);

OPS_REGISTER_OP(softplus_beta)
    .describe("Smooth ReLU: log(1 + exp(beta * x)) / beta; x where beta * x > threshold.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(SoftplusBetaParam::__FIELDS__())
    .set_attr_parser(ops::ParamParser<SoftplusBetaParam>)
    .set_attr<ops::FInferShape>("FInferShape", ops::ElemwiseShape<1, 1>)
    .set_attr<ops::FInferType>("FInferType", ops::ElemwiseRealType<1, 1>)
    .set_attr<ops::FCompute>("FCompute<cpu>", SoftplusBetaCompute<mshadow::cpu>)
    .set_attr<ops::FGradient>("FGradient", ops::FGradient{"_backward_softplus_beta", true, false});

// Shape and type inference come from softplus_beta's, through its FGradient.
OPS_REGISTER_OP(_backward_softplus_beta)
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ops::ParamParser<SoftplusBetaParam>)
    .set_attr<ops::FCompute>("FCompute<cpu>", SoftplusBetaBackwardCompute<mshadow::cpu>);

}  // namespace example
