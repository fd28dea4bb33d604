// _sample_multinomial (alias sample_multinomial) and its gradient: parameters, shapes, types,
// the random resource and the temporary space. The draws, for every device:
// sample_multinomial-inl.h; FCompute<gpu>: sample_multinomial.cu.
#include <cstdint>
#include <string>
#include <vector>

#include "ops/infer.h"
#include "ops/random_request.h"
#include "ops/sample_multinomial-inl.h"

namespace ops {
namespace sample_multinomial {

DMLC_REGISTER_PARAMETER(SampleMultinomialParam);

namespace {

uint32_t NumOutputs(const NodeAttrs& attrs) {
  return GetParam<SampleMultinomialParam>(attrs).get_prob ? 2 : 1;
}

// The most categories each output type holds exactly.
int64_t MaxCategories(int dtype) {
  switch (dtype) {
    case mshadow::kUint8:
      return 256;
    case mshadow::kFloat16:
      return 2049;  // 0 .. 2048
    case mshadow::kFloat32:
      return (int64_t{1} << 24) + 1;
    default:
      return INT64_MAX;
  }
}

// data (..., k), k >= 1 -> data.shape[:-1] + shape (or (1,) where that is empty), twice with
// get_prob.
bool MultinomialShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const SampleMultinomialParam& p = GetParam<SampleMultinomialParam>(attrs);
  const index_t k = data[data.ndim() - 1];
  if (k < 1) {
    throw dmlc::Error("data's last axis, the categories, has length 0; valid: at least 1");
  }
  if (k > MaxCategories(p.dtype)) {
    throw dmlc::Error("dtype " + mshadow::TypeFlagName(p.dtype) + " cannot hold the " +
                      std::to_string(k) + " categories of data's last axis; valid: at most " +
                      std::to_string(MaxCategories(p.dtype)) + ", or a wider dtype");
  }
  std::vector<index_t> axes(data.begin(), data.end() - 1);
  axes.insert(axes.end(), p.shape.begin(), p.shape.end());
  if (axes.empty()) axes.push_back(1);
  const TShape drawn(axes.begin(), axes.end());
  for (uint32_t i = 0; i < NumOutputs(attrs); ++i) AssignOutputShape(out, i, drawn);
  return true;
}

// data of a floating-point type; the draws dtype, the log probabilities data's type.
bool MultinomialType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignOutputType(out, 0, GetParam<SampleMultinomialParam>(attrs).dtype);
  const int data = (*in)[0];
  if (data == -1) return false;
  CheckFloatType(data);
  if (NumOutputs(attrs) == 2) AssignOutputType(out, 1, data);
  return true;
}

std::vector<ResourceRequest> RequestRandomAndTempSpace(const NodeAttrs& attrs) {
  std::vector<ResourceRequest> requests = RequestRandom(attrs);
  requests.push_back(ResourceRequest());  // the cumulative sums
  return requests;
}

const bool kRegistered = [] {
  RegisterOp("_sample_multinomial")
      .describe(
          "Draws shape categories from each distribution of data (..., k), whose last axis holds "
          "the k categories' probabilities (each row summing to 1); get_prob adds the log "
          "probability of each draw, differentiable.")
      .add_alias("sample_multinomial")
      .set_num_inputs(1)
      .set_num_outputs(NumOutputs)
      .add_argument("data", "NDArray-or-Symbol", "The probabilities, the categories last.")
      .add_arguments(SampleMultinomialParam::__FIELDS__())
      .set_attr_parser(ParamParser<SampleMultinomialParam>)
      .set_attr<FInferShape>("FInferShape", MultinomialShape)
      .set_attr<FInferType>("FInferType", MultinomialType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestRandomAndTempSpace)
      .set_attr<FGradient>("FGradient", FGradient{"_backward_sample_multinomial", true, true});
  RegisterOp("_backward_sample_multinomial")
      .describe(
          "Gradient of _sample_multinomial: with get_prob, the log probabilities' output "
          "gradient over p at each drawn category; zeros without.")
      .set_num_inputs([](const NodeAttrs& attrs) { return 2 * NumOutputs(attrs) + 1; })
      .set_num_outputs(1)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParamParser<SampleMultinomialParam>);
  SetSampleMultinomialCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace sample_multinomial
}  // namespace ops
