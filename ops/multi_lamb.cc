// The batched LAMB updates (multi_lamb-inl.h): names, arity, shape and type inference and the
// CPU registration; FCompute<gpu>: multi_lamb.cu. Not differentiable; each writes its new
// weights to its outputs (usually the weights themselves) and updates its moments and master
// weights in place.
#include <numeric>
#include <string>
#include <vector>

#include "ops/multi_lamb-inl.h"

namespace ops {
namespace optimizer {

DMLC_REGISTER_PARAMETER(MultiLambParam);

namespace {

int NumTensors(const NodeAttrs& attrs) { return GetParam<MultiLambParam>(attrs).num_tensors; }

// Per weight i: weight_i, grad_i, mean_i, var_i[, weight32_i].
template <bool kMP>
std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  for (int i = 0; i < NumTensors(attrs); ++i) {
    for (const char* array : {"weight_", "grad_", "mean_", "var_", "weight32_"}) {
      if (kMP || std::string(array) != "weight32_") names.push_back(array + std::to_string(i));
    }
  }
  return names;
}

// Each weight's arrays and its output share a shape.
template <bool kMP>
bool MultiLambShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const MultiLambParam& p = GetParam<MultiLambParam>(attrs);
  CheckValuesPerTensor(p, attrs.op->name);
  constexpr int k = kLambArrays<kMP>;
  bool known = true;
  for (int i = 0; i < p.num_tensors; ++i) {
    std::vector<int> arrays(k);
    std::iota(arrays.begin(), arrays.end(), i * k);
    known = AssignUpdateShapes(in, out, arrays, i) && known;
  }
  return known;
}

// Without kMP every input and output in one type, float32 or float64; with it the weights,
// gradients and outputs float16, float32 or float64, the moments and master weights float32.
template <bool kMP>
bool MultiLambType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if constexpr (kMP) {
    std::vector<int> weight_inputs;
    for (int i = 0; i < NumTensors(attrs); ++i) {
      weight_inputs.push_back(i * kLambArrays<kMP>);
      weight_inputs.push_back(i * kLambArrays<kMP> + 1);
    }
    return AssignMixedPrecisionTypes(in, out, weight_inputs, true);
  } else {
    return SameRealType(attrs, in, out);
  }
}

template <bool kMP>
void DefineMultiLamb(const char* name, const std::string& description) {
  Op& op = RegisterOp(name)
               .describe(description)
               .add_argument(
                   "data", "NDArray-or-Symbol[]",
                   std::string("Per weight: weight, grad, mean, var") + (kMP ? ", weight32" : ""))
               .add_arguments(MultiLambParam::__FIELDS__());
  op.set_num_inputs([](const NodeAttrs& attrs) {
    return static_cast<uint32_t>(NumTensors(attrs) * kLambArrays<kMP>);
  });
  op.set_num_outputs(
      [](const NodeAttrs& attrs) { return static_cast<uint32_t>(NumTensors(attrs)); });
  op.set_attr_parser(ParamParser<MultiLambParam>);
  op.set_attr<FListInputNames>("FListInputNames", InputNames<kMP>);
  op.set_attr<FInferShape>("FInferShape", MultiLambShape<kMP>);
  op.set_attr<FInferType>("FInferType", MultiLambType<kMP>);
  op.set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);
}

const bool kRegistered = [] {
  DefineMultiLamb<false>(
      "_multi_lamb_update",
      "lamb_update_phase1 then lamb_update_phase2 (r1 = ||weight||, r2 = ||g||) for num_tensors "
      "weights in one call (moments updated in place), each with its learning rate, weight "
      "decay and step count (learning_rates, wds, step_count).");
  DefineMultiLamb<true>(
      "_multi_mp_lamb_update",
      "_multi_lamb_update on float32 master weights (moments and master weights updated in "
      "place); each weight output is its master weight rounded to its type. The master "
      "weight is the state whatever the weight's type (MXNet 1.9.1's batched forms ignore it "
      "for float32 weights).");
  SetMultiLambCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace ops
