// Optimizer updates: sgd_update, sgd_mom_update, nag_mom_update, signsgd_update and
// signum_update, and the multi-precision mp_sgd_update, mp_sgd_mom_update and
// mp_nag_mom_update (float16 weights with float32 master copies). They are not
// differentiable; they write the new weight to their output (usually the weight itself, in
// place), and update their state inputs (momentum, master weight) in place. Kernels, for every device:
// optimizer-inl.h; FCompute<gpu>: optimizer.cu.
#include "ops/optimizer-inl.h"

namespace ops {
namespace optimizer {
namespace {

const bool kRegistered = [] {
  SetOptimizerCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(SGDParam);
DMLC_REGISTER_PARAMETER(SGDMomParam);
DMLC_REGISTER_PARAMETER(NAGMomParam);
DMLC_REGISTER_PARAMETER(SignSGDParam);
DMLC_REGISTER_PARAMETER(SignumParam);

OPS_REGISTER_OP(sgd_update)
    .describe("Stochastic gradient descent step: weight - lr * (clip(rescale_grad * grad) + "
              "wd * weight).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .add_arguments(SGDParam::__FIELDS__())
    .set_attr_parser(ParamParser<SGDParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<2, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

OPS_REGISTER_OP(sgd_mom_update)
    .describe("SGD with momentum: mom = momentum * mom - lr * (clip(rescale_grad * grad) + "
              "wd * weight), updated in place; then weight + mom.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .add_argument("mom", "NDArray-or-Symbol", "Momentum, updated in place.")
    .add_arguments(SGDMomParam::__FIELDS__())
    .set_attr_parser(ParamParser<SGDMomParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<3, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<3, 1>)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2})
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

OPS_REGISTER_OP(nag_mom_update)
    .describe("SGD with Nesterov momentum: mom = momentum * mom - lr * (clip(rescale_grad * "
              "grad) + wd * weight), updated in place; then weight + momentum * mom - lr * "
              "(clip(rescale_grad * grad) + wd * weight).")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .add_argument("mom", "NDArray-or-Symbol", "Momentum, updated in place.")
    .add_arguments(NAGMomParam::__FIELDS__())
    .set_attr_parser(ParamParser<NAGMomParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<3, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<3, 1>)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2})
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

OPS_REGISTER_OP(mp_sgd_update)
    .describe(
        "sgd_update on a float32 master copy of the weight (updated in place); the "
        "weight output (float16 usually) is the master copy rounded to its type.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight (not read: weight32 is).")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient, in the weight's type.")
    .add_argument("weight32", "NDArray-or-Symbol", "float32 master weight, updated in place.")
    .add_arguments(SGDParam::__FIELDS__())
    .set_attr_parser(ParamParser<SGDParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<3, 1>)
    .set_attr<FInferType>("FInferType", MPUpdateType)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2})
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

OPS_REGISTER_OP(mp_sgd_mom_update)
    .describe(
        "sgd_mom_update on a float32 master copy of the weight and a float32 momentum "
        "(both updated in place); the weight output is the master copy rounded to its "
        "type.")
    .set_num_inputs(4)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight (not read: weight32 is).")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient, in the weight's type.")
    .add_argument("mom", "NDArray-or-Symbol", "float32 momentum, updated in place.")
    .add_argument("weight32", "NDArray-or-Symbol", "float32 master weight, updated in place.")
    .add_arguments(SGDMomParam::__FIELDS__())
    .set_attr_parser(ParamParser<SGDMomParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<4, 1>)
    .set_attr<FInferType>("FInferType", MPUpdateType)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2, 3})
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

OPS_REGISTER_OP(mp_nag_mom_update)
    .describe(
        "nag_mom_update on a float32 master copy of the weight and a float32 momentum "
        "(both updated in place); the weight output is the master copy rounded to its "
        "type.")
    .set_num_inputs(4)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight (not read: weight32 is).")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient, in the weight's type.")
    .add_argument("mom", "NDArray-or-Symbol", "float32 momentum, updated in place.")
    .add_argument("weight32", "NDArray-or-Symbol", "float32 master weight, updated in place.")
    .add_arguments(NAGMomParam::__FIELDS__())
    .set_attr_parser(ParamParser<NAGMomParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<4, 1>)
    .set_attr<FInferType>("FInferType", MPUpdateType)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2, 3})
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

OPS_REGISTER_OP(signsgd_update)
    .describe("signSGD step: (1 - lr * wd) * weight - lr * sign(grad).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .add_arguments(SignSGDParam::__FIELDS__())
    .set_attr_parser(ParamParser<SignSGDParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<2, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

OPS_REGISTER_OP(signum_update)
    .describe("Signum (signSGD with momentum): mom = momentum * mom - (1 - momentum) * (wd * "
              "weight + clip(rescale_grad * grad)), updated in place; then (1 - lr * wd_lh) * "
              "weight + lr * sign(mom).")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .add_argument("mom", "NDArray-or-Symbol", "Momentum, updated in place.")
    .add_arguments(SignumParam::__FIELDS__())
    .set_attr_parser(ParamParser<SignumParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<3, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<3, 1>)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2})
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

}  // namespace optimizer
}  // namespace ops
