// _random_uniform, _random_normal, _random_exponential, _random_randint, _random_gamma,
// _random_poisson, the negative binomials and the _like forms of all but randint: parameters
// checked as MXNet checks them, shapes and types, the random resource. The draws, for every
// device: sample-inl.h; FCompute<gpu>: sample.cu.
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "ops/pair_draws_cpu.h"
#include "ops/poisson_inversion_cpu.h"
#include "ops/random_request.h"
#include "ops/sample-inl.h"

namespace ops {
namespace sample {

DMLC_REGISTER_PARAMETER(UniformParam);
DMLC_REGISTER_PARAMETER(NormalParam);
DMLC_REGISTER_PARAMETER(ExponentialParam);
DMLC_REGISTER_PARAMETER(RandIntParam);
DMLC_REGISTER_PARAMETER(GammaParam);
DMLC_REGISTER_PARAMETER(PoissonParam);
DMLC_REGISTER_PARAMETER(NegativeBinomialParam);
DMLC_REGISTER_PARAMETER(GeneralizedNegativeBinomialParam);

// One run of n draws with the operator's parameters.
template <typename Draw, typename DType, typename... Args>
void DrawOnCpu(OpReqType req, DType* out, index_t n, PhiloxRange range, Args... args) {
  DrawRunsOnCpu<Draw>(req, out, 1, n, range, [&](index_t) { return std::make_tuple(args...); });
}

template <typename DType>
void UniformOnCpu(OpReqType req, DType* out, index_t n, PhiloxRange range, float low, float high) {
  DrawOnCpu<uniform_draw>(req, out, n, range, low, high);
}
template <typename DType>
void ExponentialOnCpu(OpReqType req, DType* out, index_t n, PhiloxRange range, float lam) {
  DrawOnCpu<exponential_draw>(req, out, n, range, lam);
}
template <typename DType>
void NormalOnCpu(OpReqType req, DType* out, index_t n, PhiloxRange range, float loc, float scale) {
  DrawOnCpu<normal_draw>(req, out, n, range, loc, scale);
}

#define OPS_SAMPLE_CPU_TYPES(DType)                                                  \
  template void UniformOnCpu(OpReqType, DType*, index_t, PhiloxRange, float, float); \
  template void ExponentialOnCpu(OpReqType, DType*, index_t, PhiloxRange, float);    \
  template void NormalOnCpu(OpReqType, DType*, index_t, PhiloxRange, float, float); \
  template void PoissonInversionOnCpu(OpReqType, DType*, index_t, PhiloxRange,       \
                                      const PoissonInversionSums&);
OPS_SAMPLE_CPU_TYPES(float)
OPS_SAMPLE_CPU_TYPES(double)
OPS_SAMPLE_CPU_TYPES(mshadow::half::half_t)
#undef OPS_SAMPLE_CPU_TYPES

namespace {

[[noreturn]] void Refuse(const std::string& what) { throw dmlc::ParamError(what); }

// Each distribution's own parameters, checked after parsing.
void Check(const UniformParam& p) {
  if (!(p.high >= p.low)) {
    Refuse("low " + dmlc::NumberToString(p.low) + " must not exceed high " +
           dmlc::NumberToString(p.high));
  }
}
void Check(const NormalParam& p) {
  if (!(p.scale > 0)) Refuse("scale must be positive, got " + dmlc::NumberToString(p.scale));
}
void Check(const ExponentialParam& p) {
  if (!(p.lam > 0)) Refuse("lam must be positive, got " + dmlc::NumberToString(p.lam));
}
void Check(const GammaParam& p) {
  if (!(p.alpha > 0) || !(p.beta > 0)) {
    Refuse("alpha and beta must be positive, got " + dmlc::NumberToString(p.alpha) + " and " +
           dmlc::NumberToString(p.beta));
  }
}
void Check(const PoissonParam& p) {
  if (!(p.lam >= 0)) Refuse("lam must not be negative, got " + dmlc::NumberToString(p.lam));
}
void Check(const NegativeBinomialParam& p) {
  if (!(p.k > 0) || !(p.p > 0 && p.p <= 1)) {
    Refuse("k must be positive and p in (0, 1], got k " + std::to_string(p.k) + " and p " +
           dmlc::NumberToString(p.p));
  }
}
void Check(const GeneralizedNegativeBinomialParam& p) {
  if (!(p.mu >= 0) || !(p.alpha >= 0)) {
    Refuse("mu and alpha must not be negative, got " + dmlc::NumberToString(p.mu) + " and " +
           dmlc::NumberToString(p.alpha));
  }
}
void Check(const RandIntParam& p) {
  if (!(p.high > p.low)) {
    Refuse("low " + std::to_string(p.low) + " must be below high " + std::to_string(p.high));
  }
}

// The parser of a sampling operator, or (kLike) of its _like form, which takes its input's
// shape and type: a shape or dtype given to it is an error rather than ignored.
template <typename Param, bool kLike>
void Parse(NodeAttrs* attrs) {
  ParamParser<Param>(attrs);
  const Param& p = GetParam<Param>(*attrs);
  Check(p);
  if (kLike && (p.shape.ndim() != 0 || p.dtype != -1)) {
    Refuse("the _like forms take their input's shape and type; give no shape or dtype");
  }
}

template <typename Param>
bool GivenShape(const NodeAttrs& attrs, std::vector<TShape>*, std::vector<TShape>* out) {
  const TShape& shape = GetParam<Param>(attrs).shape;
  if (shape.ndim() == 0) Refuse("shape must be given, e.g. shape=(2,3)");
  AssignOutputShape(out, 0, shape);
  return true;
}

// dtype, or (None) float32 for the real distributions and int32 for randint.
template <typename Param>
bool GivenType(const NodeAttrs& attrs, std::vector<int>*, std::vector<int>* out) {
  const int dtype = GetParam<Param>(attrs).dtype;
  constexpr bool kInteger = std::is_same_v<Param, RandIntParam>;
  AssignOutputType(out, 0, dtype != -1 ? dtype : kInteger ? mshadow::kInt32 : mshadow::kFloat32);
  return true;
}

// The _like forms: the input's shape and type (float types).
bool LikeType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if (!ElemwiseType<1, 1>(attrs, in, out)) return false;
  const int t = (*out)[0];
  if (t != mshadow::kFloat32 && t != mshadow::kFloat64 && t != mshadow::kFloat16) {
    throw dmlc::Error("data type " + mshadow::TypeFlagName(t) +
                      " is not supported; valid: float32, float64, float16");
  }
  return true;
}

template <typename Param>
Op& Define(const std::string& name, const std::string& description) {
  Op& op = RegisterOp(name)
               .describe(description)
               .set_num_inputs(0)
               .set_num_outputs(1)
               .set_attr<FResourceRequest>("FResourceRequest", RequestRandom);
  op.set_attr<FInferShape>("FInferShape", GivenShape<Param>);
  op.set_attr<FInferType>("FInferType", GivenType<Param>);
  op.add_arguments(Param::__FIELDS__());
  op.set_attr_parser(Parse<Param, false>);
  return op;
}

template <typename Param>
void DefineLike(const std::string& name, const std::string& description) {
  Op& op = RegisterOp(name + "_like");
  SetZeroGradient(op, "_backward_" + name + "_like", Parse<Param, true>);
  op.describe(description + " The output has data's shape and type; data gets a zero gradient.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The array whose shape and type it takes.")
      .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
      .set_attr<FInferType>("FInferType", LikeType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestRandom);
  op.add_arguments(Param::__FIELDS__());
  op.set_attr_parser(Parse<Param, true>);
}

const bool kRegistered = [] {
  const char* uniform = "Draws uniformly from [low, high).";
  const char* normal = "Draws from the normal distribution of mean loc and deviation scale.";
  const char* exponential = "Draws from the exponential distribution of rate lam.";
  const char* gamma = "Draws from the gamma distribution of shape alpha, scale beta.";
  const char* poisson = "Draws from the Poisson distribution of mean lam.";
  const char* negative_binomial =
      "Draws the failures before the k-th success of trials that succeed with probability p.";
  const char* generalized_negative_binomial =
      "Draws from the negative binomial of mean mu and dispersion alpha (variance mu + alpha "
      "mu^2; Poisson for alpha 0).";
  Define<UniformParam>("_random_uniform", uniform).add_alias("uniform").add_alias("random_uniform");
  Define<NormalParam>("_random_normal", normal).add_alias("normal").add_alias("random_normal");
  Define<ExponentialParam>("_random_exponential", exponential).add_alias("random_exponential");
  Define<RandIntParam>("_random_randint", "Draws integers uniformly from [low, high).")
      .add_alias("random_randint");
  Define<GammaParam>("_random_gamma", gamma).add_alias("random_gamma");
  Define<PoissonParam>("_random_poisson", poisson).add_alias("random_poisson");
  Define<NegativeBinomialParam>("_random_negative_binomial", negative_binomial)
      .add_alias("random_negative_binomial");
  Define<GeneralizedNegativeBinomialParam>("_random_generalized_negative_binomial",
                                           generalized_negative_binomial)
      .add_alias("random_generalized_negative_binomial");
  DefineLike<UniformParam>("_random_uniform", uniform);
  DefineLike<NormalParam>("_random_normal", normal);
  DefineLike<ExponentialParam>("_random_exponential", exponential);
  DefineLike<GammaParam>("_random_gamma", gamma);
  DefineLike<PoissonParam>("_random_poisson", poisson);
  DefineLike<NegativeBinomialParam>("_random_negative_binomial", negative_binomial);
  DefineLike<GeneralizedNegativeBinomialParam>("_random_generalized_negative_binomial",
                                               generalized_negative_binomial);
  SetSampleCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace sample
}  // namespace ops
