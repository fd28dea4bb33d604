// hard_sigmoid on the CPU: the operator's registration (kernels: hard_sigmoid-inl.h).
#include "ops/examples/hard_sigmoid-inl.h"

namespace ops {
namespace examples {

DMLC_REGISTER_PARAMETER(HardSigmoidParam);

// 4. Registration: name, docs, arity, parameters, inference, compute, gradient.
OPS_REGISTER_OP(hard_sigmoid)
    .describe("Piecewise linear sigmoid: min(max(alpha * x + beta, 0), 1).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(HardSigmoidParam::__FIELDS__())
    .set_attr_parser(ParamParser<HardSigmoidParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FCompute>("FCompute<cpu>", HardSigmoidCompute<cpu>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_hard_sigmoid", /*uses_inputs=*/true,
                                                /*uses_outputs=*/false});

OPS_REGISTER_OP(_backward_hard_sigmoid)
    .describe("Gradient of hard_sigmoid.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<HardSigmoidParam>)
    .set_attr<FCompute>("FCompute<cpu>", HardSigmoidBackwardCompute<cpu>);

}  // namespace examples
}  // namespace ops
