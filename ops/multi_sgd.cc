// The batched SGD updates (multi_sgd-inl.h): names, arity, shape and type inference and the
// CPU registration; FCompute<gpu>: multi_sgd.cu. Not differentiable; each writes its new
// weights to its outputs (usually the weights themselves) and updates its momenta and master
// weights in place.
#include <numeric>
#include <string>
#include <vector>

#include "ops/multi_sgd-inl.h"

namespace ops {
namespace optimizer {

DMLC_REGISTER_PARAMETER(MultiSGDParam);
DMLC_REGISTER_PARAMETER(MultiSGDMomParam);
DMLC_REGISTER_PARAMETER(PreloadedMultiSGDParam);
DMLC_REGISTER_PARAMETER(PreloadedMultiSGDMomParam);

namespace {

template <typename Param>
int NumWeights(const NodeAttrs& attrs) {
  return GetParam<Param>(attrs).num_weights;
}

// Per weight i: weight_i, grad_i[, mom_i][, weight32_i]; then lrs and wds when preloaded.
template <typename Param>
std::vector<std::string> InputNames(const NodeAttrs& attrs, MultiSGDKind kind) {
  std::vector<std::string> names;
  for (int i = 0; i < NumWeights<Param>(attrs); ++i) {
    const std::string n = std::to_string(i);
    names.push_back("weight_" + n);
    names.push_back("grad_" + n);
    if (kind.momentum) names.push_back("mom_" + n);
    if (kind.mp) names.push_back("weight32_" + n);
  }
  if (kind.preloaded) {
    names.push_back("lrs");
    names.push_back("wds");
  }
  return names;
}

// Each weight's arrays and its output share a shape; lrs and wds hold num_weights values.
template <typename Param>
bool MultiSGDShape(const NodeAttrs& attrs, MultiSGDKind kind, std::vector<TShape>* in,
                   std::vector<TShape>* out) {
  const auto& p = GetParam<Param>(attrs);
  CheckRatesPerWeight(p, attrs.op->name);
  const int n = p.num_weights, k = kind.Arrays();
  if (kind.preloaded) {
    AssignInputShape(in, n * k, TShape{n});
    AssignInputShape(in, n * k + 1, TShape{n});
  }
  bool known = true;
  for (int i = 0; i < n; ++i) {
    std::vector<int> arrays(k);
    std::iota(arrays.begin(), arrays.end(), i * k);
    known = AssignUpdateShapes(in, out, arrays, i) && known;
  }
  return known;
}

// Weights, gradients, (momenta without mp) and outputs in one type: float32 or float64, or
// with mp float16 too, the momenta and master weights float32; lrs and wds float32.
bool MultiSGDType(const NodeAttrs&, MultiSGDKind kind, int weights, std::vector<int>* in,
                  std::vector<int>* out) {
  std::vector<int> weight_inputs;
  for (int i = 0; i < weights; ++i) {
    const int k = kind.Arrays();
    weight_inputs.push_back(i * k);
    weight_inputs.push_back(i * k + 1);
    if (kind.momentum && !kind.mp) weight_inputs.push_back(i * k + 2);
  }
  if (!AssignMixedPrecisionTypes(in, out, weight_inputs, true)) return false;
  if (!kind.mp) CheckRealType((*out)[0]);
  return true;
}

template <typename Param>
void DefineMultiSGD(const char* name, bool mp, const std::string& description) {
  const MultiSGDKind kind = KindOf<Param>(mp);
  Op& op =
      RegisterOp(name)
          .describe(description)
          .add_argument("data", "NDArray-or-Symbol[]",
                        "Per weight: weight, grad" + std::string(kind.momentum ? ", mom" : "") +
                            (kind.mp ? ", weight32" : "") +
                            (kind.preloaded ? "; then lrs and wds (float32, one per weight)" : ""))
          .add_arguments(Param::__FIELDS__());
  op.set_num_inputs([kind](const NodeAttrs& attrs) {
    return static_cast<uint32_t>(kind.NumInputs(NumWeights<Param>(attrs)));
  });
  op.set_num_outputs(
      [](const NodeAttrs& attrs) { return static_cast<uint32_t>(NumWeights<Param>(attrs)); });
  op.set_attr_parser(ParamParser<Param>);
  op.set_attr<FListInputNames>(
      "FListInputNames", [kind](const NodeAttrs& attrs) { return InputNames<Param>(attrs, kind); });
  op.set_attr<FInferShape>("FInferShape", [kind](const NodeAttrs& attrs, std::vector<TShape>* in,
                                                 std::vector<TShape>* out) {
    return MultiSGDShape<Param>(attrs, kind, in, out);
  });
  op.set_attr<FInferType>(
      "FInferType", [kind](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
        return MultiSGDType(attrs, kind, NumWeights<Param>(attrs), in, out);
      });
}

const bool kRegistered = [] {
  DefineMultiSGD<MultiSGDParam>(
      "multi_sgd_update", false,
      "sgd_update of num_weights weights in one call, each with its learning rate and weight "
      "decay (lrs, wds).");
  DefineMultiSGD<MultiSGDMomParam>(
      "multi_sgd_mom_update", false,
      "sgd_mom_update of num_weights weights in one call (momenta updated in place), each with "
      "its learning rate and weight decay (lrs, wds).");
  DefineMultiSGD<MultiSGDParam>(
      "multi_mp_sgd_update", true,
      "mp_sgd_update of num_weights weights in one call (float32 master weights updated in "
      "place), each with its learning rate and weight decay (lrs, wds). The master weight is "
      "the state whatever the weight's type (MXNet 1.9.1's batched forms ignore it for "
      "float32 weights).");
  DefineMultiSGD<MultiSGDMomParam>(
      "multi_mp_sgd_mom_update", true,
      "mp_sgd_mom_update of num_weights weights in one call (float32 momenta and master "
      "weights updated in place), each with its learning rate and weight decay (lrs, wds).");
  DefineMultiSGD<PreloadedMultiSGDParam>(
      "preloaded_multi_sgd_update", false,
      "multi_sgd_update with the learning rates and weight decays as the last two inputs "
      "(float32 arrays of num_weights values, read on the host).");
  DefineMultiSGD<PreloadedMultiSGDMomParam>(
      "preloaded_multi_sgd_mom_update", false,
      "multi_sgd_mom_update with the learning rates and weight decays as the last two inputs "
      "(float32 arrays of num_weights values, read on the host).");
  DefineMultiSGD<PreloadedMultiSGDParam>(
      "preloaded_multi_mp_sgd_update", true,
      "multi_mp_sgd_update with the learning rates and weight decays as the last two inputs "
      "(float32 arrays of num_weights values, read on the host).");
  DefineMultiSGD<PreloadedMultiSGDMomParam>(
      "preloaded_multi_mp_sgd_mom_update", true,
      "multi_mp_sgd_mom_update with the learning rates and weight decays as the last two "
      "inputs (float32 arrays of num_weights values, read on the host).");
  SetMultiSGDCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace ops
