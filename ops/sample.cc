// _random_uniform, _random_normal, _random_exponential, _random_randint and the _like forms
// of the first three: parameters checked as MXNet checks them, shapes and types, the random
// resource. The draws, for every device: sample-inl.h; FCompute<gpu>: sample.cu.
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/sample-inl.h"
#include "ops/vector_loop.h"

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

// Each distribution on packets of the uniforms u (a block's first) and v (its second): the
// values of the pair's two elements, as draw_block's Draw computes them one at a time.
template <typename Draw>
struct PacketDraw;

template <>
struct PacketDraw<uniform_draw> {
  template <typename Real, typename P>
  static void Pair(P u, P v, float low, float high, P* first, P* second) {
    const P span = P::Fill(Real(high) - Real(low));
    *first = P::Fill(Real(low)) + span * u;
    *second = P::Fill(Real(low)) + span * v;
  }
};

template <>
struct PacketDraw<exponential_draw> {
  template <typename Real, typename P>
  static void Pair(P u, P v, float lam, P* first, P* second) {
    using mshadow::packet::Log;
    const P one = P::Fill(Real(1)), rate = P::Fill(Real(lam));
    *first = (P::Fill(Real(0)) - Log(one - u)) / rate;
    *second = (P::Fill(Real(0)) - Log(one - v)) / rate;
  }
};

template <>
struct PacketDraw<normal_draw> {
  template <typename Real, typename P>
  static void Pair(P u, P v, float loc, float scale, P* first, P* second) {
    using mshadow::packet::Cos;
    using mshadow::packet::Log;
    using mshadow::packet::Sin;
    using mshadow::packet::Sqrt;
    const P radius = Sqrt(P::Fill(Real(-2)) * Log(P::Fill(Real(1)) - u));
    const P angle = P::Fill(Real(6.283185307179586)) * v;
    const P scaled = P::Fill(Real(scale)) * radius;
    *first = P::Fill(Real(loc)) + scaled * Cos(angle);
    *second = P::Fill(Real(loc)) + scaled * Sin(angle);
  }
};

// Runs of kLanes blocks: their uniforms into packets, the distribution on the packets (PacketDraw;
// through libm one element at a time, a normal pair's log, square root, sine and cosine had been
// most of that operator's time), the pairs interleaved into the output. The last partial run goes
// through draw_block. Runs start at fixed blocks, so that the values do not depend on the thread
// count.
template <typename Draw, typename DType, typename... Args>
void DrawOnCpu(OpReqType req, DType* out, index_t n, PhiloxRange range, Args... args) {
  using Real = DrawType<DType>;
  using P = vec::Full<Real>;
  constexpr index_t kLanes = P::kSize;
  const index_t runs = n / (kPerBlock * kLanes);
  const mshadow::PhiloxKey key = mshadow::PhiloxKeyFromSeed(range.seed);
  OPS_REQ_SWITCH(req, kReq, {
    ParallelRows(runs, kPerBlock * kLanes * 16, [&](index_t begin, index_t end) {
      alignas(64) Real u[kLanes], v[kLanes], first[kLanes], second[kLanes];
      for (index_t r = begin; r < end; ++r) {
        for (index_t j = 0; j < kLanes; ++j) {
          // One block at a time: the compiler's SIMD form of the rounds (32 x 32 -> 64-bit
          // multiplies in lanes, with their shuffles) ran slower (docs/benchmarks.md).
          const mshadow::PhiloxBlock block =
              mshadow::Philox4x32(key, range.counter + static_cast<uint64_t>(r * kLanes + j));
          u[j] = Unit<Real>(block, 0);
          v[j] = Unit<Real>(block, 1);
        }
        P a, b;
        PacketDraw<Draw>::template Pair<Real>(P::Load(u), P::Load(v), args..., &a, &b);
        a.Store(first);
        b.Store(second);
        DType* to = out + r * kPerBlock * kLanes;
        for (index_t j = 0; j < kLanes; ++j) {
          AssignReq<kReq>(to + 2 * j, static_cast<DType>(first[j]));
          AssignReq<kReq>(to + 2 * j + 1, static_cast<DType>(second[j]));
        }
      }
    });
    for (index_t b = runs * kLanes; b * kPerBlock < n; ++b) {
      draw_block<Draw, kReq>::Map(b, out, n, range, args...);
    }
  });
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
  template void NormalOnCpu(OpReqType, DType*, index_t, PhiloxRange, float, float);
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

std::vector<ResourceRequest> RequestRandom(const NodeAttrs&) {
  ResourceRequest request;
  request.type = ResourceRequest::kRandom;
  return {request};
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
  Define<UniformParam>("_random_uniform", uniform).add_alias("uniform").add_alias("random_uniform");
  Define<NormalParam>("_random_normal", normal).add_alias("normal").add_alias("random_normal");
  Define<ExponentialParam>("_random_exponential", exponential).add_alias("random_exponential");
  Define<RandIntParam>("_random_randint", "Draws integers uniformly from [low, high).")
      .add_alias("random_randint");
  Define<GammaParam>("_random_gamma",
                     "Draws from the gamma distribution of shape alpha, scale beta.")
      .add_alias("random_gamma");
  Define<PoissonParam>("_random_poisson", "Draws from the Poisson distribution of mean lam.")
      .add_alias("random_poisson");
  Define<NegativeBinomialParam>(
      "_random_negative_binomial",
      "Draws the failures before the k-th success of trials that succeed with probability p.")
      .add_alias("random_negative_binomial");
  Define<GeneralizedNegativeBinomialParam>(
      "_random_generalized_negative_binomial",
      "Draws from the negative binomial of mean mu and dispersion alpha (variance mu + alpha "
      "mu^2; Poisson for alpha 0).")
      .add_alias("random_generalized_negative_binomial");
  DefineLike<UniformParam>("_random_uniform", uniform);
  DefineLike<NormalParam>("_random_normal", normal);
  DefineLike<ExponentialParam>("_random_exponential", exponential);
  SetSampleCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace sample
}  // namespace ops
