// The batched adaptive updates (multi_adaptive_optimizer-inl.h): names, arity, shape and type
// inference and the CPU registration; FCompute<gpu>: multi_adaptive_optimizer.cu. Not
// differentiable; each writes its new weights to its outputs (usually the weights themselves)
// and updates its moments and master weights in place.
#include <numeric>
#include <string>
#include <vector>

#include "ops/multi_adaptive_optimizer-inl.h"

namespace ops {
namespace optimizer {

DMLC_REGISTER_PARAMETER(MultiAdamWParam);
DMLC_REGISTER_PARAMETER(MultiLambParam);

namespace {

// Where the two batched updates differ in their registrations.
struct AdamWBatch {
  using Param = MultiAdamWParam;
  static constexpr bool kRescaleInput = true;  // a shared last input, one element
  static int Weights(const NodeAttrs& attrs) { return GetParam<Param>(attrs).num_weights; }
  static void Check(const NodeAttrs& attrs) {
    CheckValuesPerWeight(GetParam<Param>(attrs), attrs.op->name);
  }
};

struct LambBatch {
  using Param = MultiLambParam;
  static constexpr bool kRescaleInput = false;
  static int Weights(const NodeAttrs& attrs) { return GetParam<Param>(attrs).num_tensors; }
  static void Check(const NodeAttrs& attrs) {
    CheckValuesPerTensor(GetParam<Param>(attrs), attrs.op->name);
  }
};

// Per weight i: weight_i, grad_i, mean_i, var_i[, weight32_i]; then AdamW's rescale_grad
// (MXNet's names).
template <typename Batch, bool kMP>
std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  for (int i = 0; i < Batch::Weights(attrs); ++i) {
    for (const char* array : {"weight_", "grad_", "mean_", "var_", "weight32_"}) {
      if (kMP || std::string(array) != "weight32_") names.push_back(array + std::to_string(i));
    }
  }
  if (Batch::kRescaleInput) names.push_back("rescale_grad");
  return names;
}

// Each weight's arrays and its output share a shape; rescale_grad holds one element.
template <typename Batch, bool kMP>
bool BatchShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  Batch::Check(attrs);
  constexpr int k = kMomentArrays<kMP>;
  const int weights = Batch::Weights(attrs);
  std::vector<int> scalars;
  if (Batch::kRescaleInput) scalars.push_back(weights * k);
  bool known = true;
  for (int i = 0; i < weights; ++i) {
    std::vector<int> arrays(k);
    std::iota(arrays.begin(), arrays.end(), i * k);
    known = AssignUpdateShapes(in, out, arrays, i, scalars) && known;
  }
  return known;
}

// Without kMP every input and output in one type, float32 or float64; with it the weights,
// gradients and outputs float16, float32 or float64, every other input float32.
template <typename Batch, bool kMP>
bool BatchType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if constexpr (kMP) {
    std::vector<int> weight_inputs;
    for (int i = 0; i < Batch::Weights(attrs); ++i) {
      weight_inputs.push_back(i * kMomentArrays<kMP>);
      weight_inputs.push_back(i * kMomentArrays<kMP> + 1);
    }
    return AssignMixedPrecisionTypes(in, out, weight_inputs, true);
  } else {
    return SameRealType(attrs, in, out);
  }
}

template <typename Batch, bool kMP>
Op& Define(const char* name, const std::string& description) {
  Op& op = RegisterOp(name)
               .describe(description)
               .add_argument("data", "NDArray-or-Symbol[]",
                             std::string("Per weight: weight, grad, mean, var") +
                                 (kMP ? ", weight32" : "") +
                                 (Batch::kRescaleInput ? "; then rescale_grad (one element)" : ""))
               .add_arguments(Batch::Param::__FIELDS__());
  op.set_num_inputs([](const NodeAttrs& attrs) {
    return static_cast<uint32_t>(Batch::Weights(attrs) * kMomentArrays<kMP> +
                                 (Batch::kRescaleInput ? 1 : 0));
  });
  op.set_num_outputs(
      [](const NodeAttrs& attrs) { return static_cast<uint32_t>(Batch::Weights(attrs)); });
  op.set_attr_parser(ParamParser<typename Batch::Param>);
  op.set_attr<FListInputNames>("FListInputNames", InputNames<Batch, kMP>);
  op.set_attr<FInferShape>("FInferShape", BatchShape<Batch, kMP>);
  op.set_attr<FInferType>("FInferType", BatchType<Batch, kMP>);
  return op;
}

// The mp_ forms' difference from MXNet 1.9.1, in their descriptions.
constexpr const char* kMasterWeightNote =
    " The master weight is the state whatever the weight's type (MXNet 1.9.1's batched "
    "forms ignore it for float32 weights).";

const bool kRegistered = [] {
  Define<AdamWBatch, false>(
      "_multi_adamw_update",
      "_adamw_update of num_weights weights in one call (moments updated in place), each with "
      "its learning rate, weight decay and schedule multiplier (lrs, wds, etas); the last "
      "input, rescale_grad, is shared, and a NaN, infinite or 0 one skips the call.");
  Define<AdamWBatch, true>(
      "_multi_mp_adamw_update",
      std::string("_mp_adamw_update of num_weights weights in one call (float32 moments and "
                  "master weights updated in place), each with its learning rate, weight decay "
                  "and schedule multiplier (lrs, wds, etas); rescale_grad (float32) last, "
                  "shared.") +
          kMasterWeightNote);
  // LAMB keeps a weight's g and the parts of its norms in the temporary space.
  Define<LambBatch, false>(
      "_multi_lamb_update",
      "lamb_update_phase1 then lamb_update_phase2 (r1 = ||weight||, r2 = ||g||) for "
      "num_tensors weights in one call (moments updated in place), each with its learning "
      "rate, weight decay and step count (learning_rates, wds, step_count).")
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);
  Define<LambBatch, true>("_multi_mp_lamb_update",
                          std::string("_multi_lamb_update on float32 master weights (moments and "
                                      "master weights updated in place); each weight output is "
                                      "its master weight rounded to its type.") +
                              kMasterWeightNote)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);
  SetMultiAdaptiveOptimizerCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace ops
