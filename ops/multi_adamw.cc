// The batched AdamW updates (multi_adamw-inl.h): names, arity, shape and type inference and the
// CPU registration; FCompute<gpu>: multi_adamw.cu. Not differentiable; each writes its new
// weights to its outputs (usually the weights themselves) and updates its moments and master
// weights in place.
#include <numeric>
#include <string>
#include <vector>

#include "ops/multi_adamw-inl.h"

namespace ops {
namespace optimizer {

DMLC_REGISTER_PARAMETER(MultiAdamWParam);

namespace {

int NumWeights(const NodeAttrs& attrs) { return GetParam<MultiAdamWParam>(attrs).num_weights; }

// Per weight i: weight_i, grad_i, mean_i, var_i[, weight32_i]; then rescale_grad (MXNet's).
template <bool kMP>
std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  for (int i = 0; i < NumWeights(attrs); ++i) {
    for (const char* array : {"weight_", "grad_", "mean_", "var_", "weight32_"}) {
      if (kMP || std::string(array) != "weight32_") names.push_back(array + std::to_string(i));
    }
  }
  names.push_back("rescale_grad");
  return names;
}

// Each weight's arrays and its output share a shape; rescale_grad holds one element.
template <bool kMP>
bool MultiAdamWShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const MultiAdamWParam& p = GetParam<MultiAdamWParam>(attrs);
  CheckValuesPerWeight(p, attrs.op->name);
  constexpr int k = kAdamWArrays<kMP>;
  bool known = true;
  for (int i = 0; i < p.num_weights; ++i) {
    std::vector<int> arrays(k);
    std::iota(arrays.begin(), arrays.end(), i * k);
    known = AssignUpdateShapes(in, out, arrays, i, {p.num_weights * k}) && known;
  }
  return known;
}

// Without kMP every input and output in one type, float32 or float64; with it the weights,
// gradients and outputs float16, float32 or float64, the moments, master weights and
// rescale_grad float32.
template <bool kMP>
bool MultiAdamWType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  constexpr int k = kAdamWArrays<kMP>;
  if constexpr (kMP) {
    std::vector<int> weight_inputs;
    for (int i = 0; i < NumWeights(attrs); ++i) {
      weight_inputs.push_back(i * k);
      weight_inputs.push_back(i * k + 1);
    }
    return AssignMixedPrecisionTypes(in, out, weight_inputs, true);
  } else {
    return SameRealType(attrs, in, out);
  }
}

template <bool kMP>
void DefineMultiAdamW(const char* name, const std::string& description) {
  Op& op = RegisterOp(name)
               .describe(description)
               .add_argument("data", "NDArray-or-Symbol[]",
                             std::string("Per weight: weight, grad, mean, var") +
                                 (kMP ? ", weight32" : "") + "; then rescale_grad (one element)")
               .add_arguments(MultiAdamWParam::__FIELDS__());
  op.set_num_inputs([](const NodeAttrs& attrs) {
    return static_cast<uint32_t>(NumWeights(attrs) * kAdamWArrays<kMP> + 1);
  });
  op.set_num_outputs(
      [](const NodeAttrs& attrs) { return static_cast<uint32_t>(NumWeights(attrs)); });
  op.set_attr_parser(ParamParser<MultiAdamWParam>);
  op.set_attr<FListInputNames>("FListInputNames", InputNames<kMP>);
  op.set_attr<FInferShape>("FInferShape", MultiAdamWShape<kMP>);
  op.set_attr<FInferType>("FInferType", MultiAdamWType<kMP>);
}

const bool kRegistered = [] {
  DefineMultiAdamW<false>(
      "_multi_adamw_update",
      "_adamw_update of num_weights weights in one call (moments updated in place), each with "
      "its learning rate, weight decay and schedule multiplier (lrs, wds, etas); the last "
      "input, rescale_grad, is shared, and a NaN, infinite or 0 one skips the call.");
  DefineMultiAdamW<true>(
      "_multi_mp_adamw_update",
      "_mp_adamw_update of num_weights weights in one call (float32 moments and master "
      "weights updated in place), each with its learning rate, weight decay and schedule "
      "multiplier (lrs, wds, etas); rescale_grad (float32) last, shared. The master weight is "
      "the state whatever the weight's type (MXNet 1.9.1's batched forms ignore it for "
      "float32 weights).");
  SetMultiAdamWCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace ops
