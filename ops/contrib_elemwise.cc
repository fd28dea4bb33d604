// _contrib_quadratic and _contrib_gradientmultiplier: elementwise operators with scalar
// parameters, and their backward operators. Kernels, for every device:
// contrib_elemwise-inl.h; FCompute<gpu>: contrib_elemwise.cu.
#include <vector>

#include "ops/contrib_elemwise-inl.h"
#include "ops/infer.h"
#include "ops/infer_util.h"

namespace ops {
namespace contrib {
namespace {

const bool kRegistered = [] {
  SetContribElemwiseCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(QuadraticParam);
DMLC_REGISTER_PARAMETER(GradientMultiplierParam);

OPS_REGISTER_OP(_contrib_quadratic)
    .describe("a * x^2 + b * x + c, elementwise.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "x.")
    .add_arguments(QuadraticParam::__FIELDS__())
    .set_attr_parser(ParamParser<QuadraticParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_contrib_quadratic", true, false});

OPS_REGISTER_OP(_backward_contrib_quadratic)
    .describe("Gradient of _contrib_quadratic: dOut * (2 a x + b).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<QuadraticParam>);

OPS_REGISTER_OP(_contrib_gradientmultiplier)
    .describe(
        "The identity, whose gradient is the output's times `scalar` (-1: a gradient reversal "
        "layer).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .add_arguments(GradientMultiplierParam::__FIELDS__())
    .set_attr_parser(ParamParser<GradientMultiplierParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FGradient>("FGradient",
                         FGradient{"_backward_contrib_gradientmultiplier", false, false});

OPS_REGISTER_OP(_backward_contrib_gradientmultiplier)
    .describe("Gradient of _contrib_gradientmultiplier: dOut * scalar.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<GradientMultiplierParam>);

}  // namespace contrib
}  // namespace ops
