// _sample_uniform, _sample_normal, _sample_gamma, _sample_exponential, _sample_poisson,
// _sample_negative_binomial and _sample_generalized_negative_binomial: shapes, types and the
// random resource. The draws, for every device: multisample-inl.h; FCompute<gpu>:
// multisample.cu.
#include <string>
#include <tuple>
#include <vector>

#include "ops/infer.h"
#include "ops/multisample-inl.h"
#include "ops/pair_draws_cpu.h"
#include "ops/random_request.h"

namespace ops {
namespace multisample {

DMLC_REGISTER_PARAMETER(MultiSampleParam);

template <typename Dist, typename DType, typename PType>
void DrawPairsFromParametersOnCpu(OpReqType req, DType* out, const PType* a, const PType* b,
                                  index_t count, index_t per_distribution, PhiloxRange range) {
  sample::DrawRunsOnCpu<typename Dist::PairDraw>(
      req, out, count, per_distribution, range, [&](index_t i) {
        if constexpr (kNumParams<Dist> == 1) {
          return std::make_tuple(static_cast<double>(a[i]));
        } else {
          return std::make_tuple(static_cast<double>(a[i]), static_cast<double>(b[i]));
        }
      });
}

namespace {

// Parameters of one shape S -> S + shape.
bool MultiSampleShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape parameters;
  for (const TShape& s : *in) {
    if (!ShapeIsKnown(parameters) && ShapeIsKnown(s)) parameters = s;
  }
  if (!ShapeIsKnown(parameters)) return false;
  for (int i = 0; i < static_cast<int>(in->size()); ++i) AssignInputShape(in, i, parameters);
  const TShape& draws = GetParam<MultiSampleParam>(attrs).shape;
  std::vector<index_t> axes(parameters.begin(), parameters.end());
  axes.insert(axes.end(), draws.begin(), draws.end());
  AssignOutputShape(out, 0, TShape(axes.begin(), axes.end()));
  return true;
}

// The parameters share one number type (any but bool); the output is dtype, float32 for None
// (as MXNet's).
bool MultiSampleType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  int parameters = -1;
  for (int t : *in) {
    if (parameters == -1 && t != -1) parameters = t;
  }
  if (parameters == -1) return false;
  if (parameters == mshadow::kBool) {
    throw dmlc::Error("the parameters are bool; valid: a number type");
  }
  for (int i = 0; i < static_cast<int>(in->size()); ++i) AssignInputType(in, i, parameters);
  const int dtype = GetParam<MultiSampleParam>(attrs).dtype;
  AssignOutputType(out, 0, dtype == -1 ? mshadow::kFloat32 : dtype);
  return true;
}

template <typename Dist>
void Define() {
  const std::string name = std::string("_sample_") + Dist::kName;
  Op& op = RegisterOp(name);
  SetZeroGradient(op, "_backward" + name, ParamParser<MultiSampleParam>);
  std::string description = std::string("Draws shape values from each of the ") + Dist::kName +
                            " distributions whose parameters the inputs hold, element by " +
                            "element (" + Dist::kDomain + "); the inputs get zero gradients.";
  const std::string alias = std::string("sample_") + Dist::kName;
  op.describe(description)
      .add_alias(alias)
      .set_num_outputs(1)
      .set_attr<FInferShape>("FInferShape", MultiSampleShape)
      .set_attr<FInferType>("FInferType", MultiSampleType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestRandom);
  op.set_num_inputs(kNumParams<Dist>);
  for (const char* parameter : Dist::kParams) {
    op.add_argument(parameter, "NDArray-or-Symbol", "One parameter of each distribution.");
  }
  op.add_arguments(MultiSampleParam::__FIELDS__());
  op.set_attr_parser(ParamParser<MultiSampleParam>);
}

const bool kRegistered = [] {
  ForEachDistribution([](auto tag) { Define<typename decltype(tag)::type>(); });
  SetMultiSampleCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace multisample
}  // namespace ops
