// The LAMB phases (lamb-inl.h): lamb_update_phase1, lamb_update_phase2 and their
// multi-precision variants. Not differentiable; phase one updates the moments in place and
// returns the direction, phase two returns the new weight (and updates the master weight of
// mp_lamb_update_phase2 in place). FCompute<gpu>: lamb.cu.
#include <vector>

#include "ops/lamb-inl.h"

namespace ops {
namespace optimizer {
namespace {

// Phase two: weight, g, (weight32) and the output share a shape; r1 and r2 hold one element.
bool LambPhaseTwoShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  std::vector<int> arrays = {0, 1};
  if (in->size() == 5) arrays.push_back(4);  // weight32
  return AssignUpdateShapes(in, out, arrays, 0, {2, 3});
}

// mp_lamb_update_phase1: weight and grad in the weight's type; the rest and g float32.
bool MPLambPhaseOneType(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
  return AssignMixedPrecisionTypes(in, out, {0, 1}, false);
}

// mp_lamb_update_phase2: weight and the new weight in the weight's type; the rest float32.
bool MPLambPhaseTwoType(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
  return AssignMixedPrecisionTypes(in, out, {0}, true);
}

const bool kRegistered = [] {
  SetLambCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(LambUpdatePhaseOneParam);
DMLC_REGISTER_PARAMETER(LambUpdatePhaseTwoParam);

OPS_REGISTER_OP(lamb_update_phase1)
    .describe(
        "LAMB, phase one: g = clip(rescale_grad * grad); mean = beta1 * mean + (1 - "
        "beta1) * g; var = beta2 * var + (1 - beta2) * g^2 (both in place); returns "
        "mean_hat / (sqrt(var_hat) + epsilon) + wd * weight, the moments divided by 1 - "
        "beta^t unless bias_correction is off.")
    .set_num_inputs(4)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .add_argument("mean", "NDArray-or-Symbol", "First moment, updated in place.")
    .add_argument("var", "NDArray-or-Symbol", "Second moment, updated in place.")
    .add_arguments(LambUpdatePhaseOneParam::__FIELDS__())
    .set_attr_parser(ParamParser<LambUpdatePhaseOneParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<4, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<4, 1>)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2, 3});

OPS_REGISTER_OP(lamb_update_phase2)
    .describe(
        "LAMB, phase two: weight - lr * (r1 / r2) * g, with r1 (the weight's norm) first "
        "bounded by lower_bound and upper_bound; lr alone when r1 or r2 is 0.")
    .set_num_inputs(4)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("g", "NDArray-or-Symbol", "Phase one's direction.")
    .add_argument("r1", "NDArray-or-Symbol", "One element: the weight's L2 norm.")
    .add_argument("r2", "NDArray-or-Symbol", "One element: g's L2 norm.")
    .add_arguments(LambUpdatePhaseTwoParam::__FIELDS__())
    .set_attr_parser(ParamParser<LambUpdatePhaseTwoParam>)
    .set_attr<FInferShape>("FInferShape", LambPhaseTwoShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<4, 1>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

OPS_REGISTER_OP(mp_lamb_update_phase1)
    .describe(
        "lamb_update_phase1 on a float32 master copy of the weight with float32 moments "
        "(updated in place); the direction is float32.")
    .set_num_inputs(5)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight (not read: weight32 is).")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient, in the weight's type.")
    .add_argument("mean", "NDArray-or-Symbol", "float32 first moment, updated in place.")
    .add_argument("var", "NDArray-or-Symbol", "float32 second moment, updated in place.")
    .add_argument("weight32", "NDArray-or-Symbol", "float32 master weight.")
    .add_arguments(LambUpdatePhaseOneParam::__FIELDS__())
    .set_attr_parser(ParamParser<LambUpdatePhaseOneParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<5, 1>)
    .set_attr<FInferType>("FInferType", MPLambPhaseOneType)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2, 3});

OPS_REGISTER_OP(mp_lamb_update_phase2)
    .describe(
        "lamb_update_phase2 on the float32 master weight (updated in place; MXNet 1.9.1 "
        "leaves it unchanged, so its master weight never moves); the new weight is the "
        "master weight rounded to the weight's type.")
    .set_num_inputs(5)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight (not read: weight32 is).")
    .add_argument("g", "NDArray-or-Symbol", "float32 direction (mp_lamb_update_phase1's).")
    .add_argument("r1", "NDArray-or-Symbol", "One float32 element: the weight's L2 norm.")
    .add_argument("r2", "NDArray-or-Symbol", "One float32 element: g's L2 norm.")
    .add_argument("weight32", "NDArray-or-Symbol", "float32 master weight, updated in place.")
    .add_arguments(LambUpdatePhaseTwoParam::__FIELDS__())
    .set_attr_parser(ParamParser<LambUpdatePhaseTwoParam>)
    .set_attr<FInferShape>("FInferShape", LambPhaseTwoShape)
    .set_attr<FInferType>("FInferType", MPLambPhaseTwoType)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{4})
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

}  // namespace optimizer
}  // namespace ops
