// Optimizer updates with per-element step sizes: adam_update, rmsprop_update,
// rmspropalex_update, _adamw_update, _mp_adamw_update, ftml_update, ftrl_update. Not
// differentiable; each writes the new weight to its output (usually the weight itself, in place)
// and updates its state inputs in place. Kernels, for every device: adaptive_optimizer-inl.h;
// FCompute<gpu>: adaptive_optimizer.cu.
#include <numeric>
#include <vector>

#include "ops/adaptive_optimizer-inl.h"

namespace ops {
namespace optimizer {
namespace {

// AdamW: the first kArrays inputs (weight, grad, states) and the output share a shape; the
// last input, rescale_grad, holds one element.
template <int kArrays>
bool AdamWShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  std::vector<int> arrays(kArrays);
  std::iota(arrays.begin(), arrays.end(), 0);
  return AssignUpdateShapes(in, out, arrays, 0, {kArrays});
}

const bool kRegistered = [] {
  SetAdaptiveOptimizerCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(AdamParam);
DMLC_REGISTER_PARAMETER(RMSPropParam);
DMLC_REGISTER_PARAMETER(RMSPropAlexParam);
DMLC_REGISTER_PARAMETER(AdamWParam);
DMLC_REGISTER_PARAMETER(FTMLParam);
DMLC_REGISTER_PARAMETER(FtrlParam);

OPS_REGISTER_OP(adam_update)
    .describe("Adam step (without bias correction, as MXNet's: fold it into lr): g = "
              "clip(rescale_grad * grad + wd * weight); mean = beta1 * mean + (1 - beta1) * g; "
              "var = beta2 * var + (1 - beta2) * g^2 (both in place); then weight - lr * mean / "
              "(sqrt(var) + epsilon).")
    .set_num_inputs(4)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .add_argument("mean", "NDArray-or-Symbol", "First moment, updated in place.")
    .add_argument("var", "NDArray-or-Symbol", "Second moment, updated in place.")
    .add_arguments(AdamParam::__FIELDS__())
    .set_attr_parser(ParamParser<AdamParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<4, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<4, 1>)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2, 3})
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

OPS_REGISTER_OP(rmsprop_update)
    .describe("RMSProp step (Tieleman and Hinton): g = clip(rescale_grad * grad + wd * weight); "
              "n = gamma1 * n + (1 - gamma1) * g^2 (in place); then weight - lr * g / sqrt(n + "
              "epsilon), clipped to clip_weights.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .add_argument("n", "NDArray-or-Symbol", "Average of squared gradients, updated in place.")
    .add_arguments(RMSPropParam::__FIELDS__())
    .set_attr_parser(ParamParser<RMSPropParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<3, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<3, 1>)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2})
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

OPS_REGISTER_OP(rmspropalex_update)
    .describe("RMSProp step as Graves (2013) wrote it: n = gamma1 * n + (1 - gamma1) * g^2; "
              "g_avg = gamma1 * g_avg + (1 - gamma1) * g; delta = gamma2 * delta - lr * g / sqrt(n - "
              "g_avg^2 + epsilon) (all in place); then weight + delta, clipped to clip_weights.")
    .set_num_inputs(5)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .add_argument("n", "NDArray-or-Symbol", "Average of squared gradients, updated in place.")
    .add_argument("g", "NDArray-or-Symbol", "Average of gradients, updated in place.")
    .add_argument("delta", "NDArray-or-Symbol", "The last step, updated in place.")
    .add_arguments(RMSPropAlexParam::__FIELDS__())
    .set_attr_parser(ParamParser<RMSPropAlexParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<5, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<5, 1>)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2, 3, 4})
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

OPS_REGISTER_OP(_adamw_update)
    .describe(
        "AdamW step (Loshchilov and Hutter; MXNet's contrib adamw_update): g = "
        "clip(rescale_grad * grad); mean = beta1 * mean + (1 - beta1) * g; var = beta2 * "
        "var + (1 - beta2) * g^2 (both in place); then weight - eta * (lr * mean / "
        "(sqrt(var) + epsilon) + wd * weight). A rescale_grad of NaN, infinity or 0 skips "
        "the update: output and states stay as they are. (MXNet 1.9.1 also writes g back "
        "into grad; ours leaves its inputs but the states alone.)")
    .set_num_inputs(5)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .add_argument("mean", "NDArray-or-Symbol", "First moment, updated in place.")
    .add_argument("var", "NDArray-or-Symbol", "Second moment, updated in place.")
    .add_argument("rescale_grad", "NDArray-or-Symbol",
                  "One element: the gradient's scale (read on the host).")
    .add_arguments(AdamWParam::__FIELDS__())
    .set_attr_parser(ParamParser<AdamWParam>)
    .set_attr<FInferShape>("FInferShape", AdamWShape<4>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<5, 1>)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2, 3})
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

OPS_REGISTER_OP(_mp_adamw_update)
    .describe(
        "_adamw_update on a float32 master copy of the weight with float32 moments (all "
        "three updated in place); the weight output is the master copy rounded to its "
        "type.")
    .set_num_inputs(6)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight (not read: weight32 is).")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient, in the weight's type.")
    .add_argument("mean", "NDArray-or-Symbol", "float32 first moment, updated in place.")
    .add_argument("var", "NDArray-or-Symbol", "float32 second moment, updated in place.")
    .add_argument("weight32", "NDArray-or-Symbol", "float32 master weight, updated in place.")
    .add_argument("rescale_grad", "NDArray-or-Symbol",
                  "One float32 element: the gradient's scale (read on the host).")
    .add_arguments(AdamWParam::__FIELDS__())
    .set_attr_parser(ParamParser<AdamWParam>)
    .set_attr<FInferShape>("FInferShape", AdamWShape<5>)
    .set_attr<FInferType>("FInferType", MPUpdateType)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2, 3, 4})
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

OPS_REGISTER_OP(ftml_update)
    .describe(
        "FTML step (Zheng and Kwok, Follow the Moving Leader): g = clip(rescale_grad * "
        "grad + wd * weight); v = beta2 * v + (1 - beta2) * g^2; d_t = (1 - beta1^t) / lr "
        "* (sqrt(v / (1 - beta2^t)) + epsilon); z = beta1 * z + (1 - beta1) * g - (d_t - "
        "beta1 * d) * weight; d = d_t (d, v, z in place); then -z / d_t.")
    .set_num_inputs(5)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .add_argument("d", "NDArray-or-Symbol", "Internal state d_t, updated in place.")
    .add_argument("v", "NDArray-or-Symbol", "Internal state v_t, updated in place.")
    .add_argument("z", "NDArray-or-Symbol", "Internal state z_t, updated in place.")
    .add_arguments(FTMLParam::__FIELDS__())
    .set_attr_parser(ParamParser<FTMLParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<5, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<5, 1>)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2, 3, 4})
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

OPS_REGISTER_OP(ftrl_update)
    .describe(
        "FTRL-Proximal step (McMahan et al., Ad Click Prediction): g = clip(rescale_grad "
        "* grad); z += g - (sqrt(n + g^2) - sqrt(n)) * weight / lr; n += g^2 (both in "
        "place); then (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) where |z| > "
        "lamda1, else 0. lamda1 must be >= 0 (MXNet also takes negative values).")
    .set_num_inputs(4)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .add_argument("z", "NDArray-or-Symbol", "Accumulated z, updated in place.")
    .add_argument("n", "NDArray-or-Symbol", "Sum of squared gradients, updated in place.")
    .add_arguments(FtrlParam::__FIELDS__())
    .set_attr_parser(ParamParser<FtrlParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<4, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<4, 1>)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2, 3})
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);

}  // namespace optimizer
}  // namespace ops
