// ops/sample-inl.h: the operators that draw arrays of random numbers, with MXNet 1.9.1's names
// and parameters: _random_uniform (low, high), _random_normal (loc, scale),
// _random_exponential (lam), _random_randint (low, high: integers in [low, high)),
// _random_gamma (alpha, beta), _random_poisson (lam), _random_negative_binomial (k, p) and
// _random_generalized_negative_binomial (mu, alpha) with the shape and dtype their parameters
// give, and the _like forms of all but randint, which take another array's shape and type.
// Written once for every device. The last four take a varying number of uniforms per element:
// each element reads its own sequence (ops/rejection_draws.h).
//
// The draws come from the random resource (ops/random_source.h); the first four draw a pair
// of elements from each Philox block (ops/pair_draws.h), so the values depend only on the seed
// and the call order, never on the thread count or the device. They are not MXNet's values
// (its generators differ); the tests check the distributions. sample.cc registers them with
// FCompute<cpu>; sample.cu adds FCompute<gpu>.
#ifndef OPS_SAMPLE_INL_H_
#define OPS_SAMPLE_INL_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "mshadow/philox.h"
#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/pair_draws.h"
#include "ops/rejection_draws.h"

namespace ops {
namespace sample {

// shape, ctx and dtype (real types, None: float32), the fields the sampling operators share.
#define OPS_SAMPLE_SHAPE_CTX_DTYPE_FIELDS                               \
  DMLC_DECLARE_FIELD(shape).set_default(TShape()).describe(             \
      "The output's shape (the _like forms take their input's).");      \
  DMLC_DECLARE_FIELD(ctx).set_default("").describe(                     \
      "Accepted for MXNet compatibility; the host places the output."); \
  DMLC_DECLARE_FIELD(dtype)                                             \
      .add_enum("None", -1)                                             \
      .add_enum("float32", mshadow::kFloat32)                           \
      .add_enum("float64", mshadow::kFloat64)                           \
      .add_enum("float16", mshadow::kFloat16)                           \
      .set_default(-1)                                                  \
      .describe("The output's type; None: float32 (the _like forms: their input's).")

struct UniformParam : public dmlc::Parameter<UniformParam> {
  float low;
  float high;
  TShape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(UniformParam) {
    DMLC_DECLARE_FIELD(low).set_default(0.0f).describe("The lower bound, included.");
    DMLC_DECLARE_FIELD(high).set_default(1.0f).describe("The upper bound, excluded (>= low).");
    OPS_SAMPLE_SHAPE_CTX_DTYPE_FIELDS;
  }
};

struct NormalParam : public dmlc::Parameter<NormalParam> {
  float loc;
  float scale;
  TShape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(NormalParam) {
    DMLC_DECLARE_FIELD(loc).set_default(0.0f).describe("The mean.");
    DMLC_DECLARE_FIELD(scale).set_default(1.0f).describe("The standard deviation (> 0).");
    OPS_SAMPLE_SHAPE_CTX_DTYPE_FIELDS;
  }
};

struct ExponentialParam : public dmlc::Parameter<ExponentialParam> {
  float lam;
  TShape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(ExponentialParam) {
    DMLC_DECLARE_FIELD(lam).set_default(1.0f).describe("The rate (> 0); the mean is 1 / lam.");
    OPS_SAMPLE_SHAPE_CTX_DTYPE_FIELDS;
  }
};

struct GammaParam : public dmlc::Parameter<GammaParam> {
  float alpha;
  float beta;
  TShape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(GammaParam) {
    DMLC_DECLARE_FIELD(alpha).set_default(1.0f).describe("The shape (> 0).");
    DMLC_DECLARE_FIELD(beta).set_default(1.0f).describe(
        "The scale (> 0); the mean is alpha * beta.");
    OPS_SAMPLE_SHAPE_CTX_DTYPE_FIELDS;
  }
};

struct PoissonParam : public dmlc::Parameter<PoissonParam> {
  float lam;
  TShape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(PoissonParam) {
    DMLC_DECLARE_FIELD(lam).set_default(1.0f).describe("The mean (>= 0).");
    OPS_SAMPLE_SHAPE_CTX_DTYPE_FIELDS;
  }
};

struct NegativeBinomialParam : public dmlc::Parameter<NegativeBinomialParam> {
  int k;
  float p;
  TShape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(NegativeBinomialParam) {
    DMLC_DECLARE_FIELD(k).set_default(1).describe("The successes to wait for (> 0).");
    DMLC_DECLARE_FIELD(p).set_default(1.0f).describe("A trial's success probability, (0, 1].");
    OPS_SAMPLE_SHAPE_CTX_DTYPE_FIELDS;
  }
};

struct GeneralizedNegativeBinomialParam : public dmlc::Parameter<GeneralizedNegativeBinomialParam> {
  float mu;
  float alpha;
  TShape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(GeneralizedNegativeBinomialParam) {
    DMLC_DECLARE_FIELD(mu).set_default(1.0f).describe("The mean (>= 0).");
    DMLC_DECLARE_FIELD(alpha).set_default(1.0f).describe(
        "The dispersion (>= 0): the variance is mu + alpha * mu^2.");
    OPS_SAMPLE_SHAPE_CTX_DTYPE_FIELDS;
  }
};

#undef OPS_SAMPLE_SHAPE_CTX_DTYPE_FIELDS

struct RandIntParam : public dmlc::Parameter<RandIntParam> {
  int64_t low;
  int64_t high;
  TShape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(RandIntParam) {
    DMLC_DECLARE_FIELD(low).describe("The lower bound, included.");
    DMLC_DECLARE_FIELD(high).describe("The upper bound, excluded (> low).");
    DMLC_DECLARE_FIELD(shape).set_default(TShape()).describe("The output's shape.");
    DMLC_DECLARE_FIELD(ctx).set_default("").describe(
        "Accepted for MXNet compatibility; the host places the output.");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("None", -1)
        .add_enum("int32", mshadow::kInt32)
        .add_enum("int64", mshadow::kInt64)
        .set_default(-1)
        .describe("The output's type; None: int32.");
  }
};

// The real draws on the CPU, on packets (sample.cc, ops/pair_draws_cpu.h).
template <typename DType>
void UniformOnCpu(OpReqType req, DType* out, index_t n, PhiloxRange range, float low, float high);
template <typename DType>
void ExponentialOnCpu(OpReqType req, DType* out, index_t n, PhiloxRange range, float lam);
template <typename DType>
void NormalOnCpu(OpReqType req, DType* out, index_t n, PhiloxRange range, float loc, float scale);
// Poisson draws of one mean below 10, the sums counted for many draws at once (sample.cc,
// ops/poisson_inversion_cpu.h).
template <typename DType>
void PoissonInversionOnCpu(OpReqType req, DType* out, index_t n, PhiloxRange range,
                           const PoissonInversionSums& sums);

// out = draws of Draw with these arguments, from fresh blocks of the random resource.
template <typename xpu, typename Draw, typename... Args>
void DrawInto(const OpContext& ctx, OpReqType req, const TBlob& out, Args... args) {
  if (req == kNullOp) return;
  const index_t n = out.Size();
  auto launch = [&](auto type_tag) {
    using DType = decltype(type_tag);
    const index_t blocks = PairBlocks(n);
    const PhiloxRange range = ctx.requested[0].TakeRandom(static_cast<uint64_t>(blocks));
    if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
      if constexpr (std::is_same_v<Draw, uniform_draw>) {
        return UniformOnCpu(req, out.dptr<DType>(), n, range, args...);
      } else if constexpr (std::is_same_v<Draw, exponential_draw>) {
        return ExponentialOnCpu(req, out.dptr<DType>(), n, range, args...);
      } else if constexpr (std::is_same_v<Draw, normal_draw>) {
        return NormalOnCpu(req, out.dptr<DType>(), n, range, args...);
      }
    }
    OPS_REQ_SWITCH(req, kReq, {
      Kernel<draw_block<Draw, kReq>, xpu>::LaunchItems(ctx.get_stream<xpu>(), blocks, 64,
                                                       out.dptr<DType>(), n, range, args...);
    });
  };
  if constexpr (std::is_same_v<Draw, randint_draw>) {
    MSHADOW_IDX_TYPE_SWITCH(out.type_flag_, DType, { launch(DType()); });
  } else {
    MSHADOW_REAL_TYPE_SWITCH(out.type_flag_, DType, { launch(DType()); });
  }
}

// Element i: Draw::Value of its own uniforms (ops/rejection_draws.h), written as kReq says.
// float32 takes 32-bit uniforms; float64 and the 16-bit types 53-bit ones, so that a 16-bit
// draw is the float64 draw rounded (32-bit uniforms could take other rejection branches).
template <typename Draw, int kReq>
struct draw_element {
  template <typename DType, typename... Args>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, PhiloxRange range, Args... args) {
    ElementUniforms<!std::is_same_v<DType, float>> uniforms(range, i);
    AssignReq<kReq>(out + i, static_cast<DType>(Draw::Value(&uniforms, args...)));
  }
};

struct gamma_draw {
  template <typename Uniforms>
  MSHADOW_XINLINE static double Value(Uniforms* u, double alpha, double beta) {
    return GammaDraw(u, alpha, beta);
  }
};
struct poisson_draw {
  template <typename Uniforms>
  MSHADOW_XINLINE static double Value(Uniforms* u, const PoissonMean& mean) {
    return PoissonDraw(u, mean);
  }
};
struct negative_binomial_draw {
  template <typename Uniforms>
  MSHADOW_XINLINE static double Value(Uniforms* u, double k, double p) {
    return NegativeBinomialDraw(u, k, p);
  }
};
struct generalized_negative_binomial_draw {
  template <typename Uniforms>
  MSHADOW_XINLINE static double Value(Uniforms* u, double mu, double alpha) {
    return GeneralizedNegativeBinomialDraw(u, mu, alpha);
  }
};

// out = Draw's values, one element's sequence each (counters from the random resource).
template <typename xpu, typename Draw, typename... Args>
void DrawElementsInto(const OpContext& ctx, OpReqType req, const TBlob& out, Args... args) {
  if (req == kNullOp) return;
  const index_t n = out.Size();
  const PhiloxRange range = ctx.requested[0].TakeRandom(static_cast<uint64_t>(n));
  MSHADOW_REAL_TYPE_SWITCH(out.type_flag_, DType, {
    OPS_REQ_SWITCH(req, kReq, {
      Kernel<draw_element<Draw, kReq>, xpu>::Launch(ctx.get_stream<xpu>(), n, out.dptr<DType>(),
                                                    range, args...);
    });
  });
}

// The forward of each operator (the _like forms too: the output is what differs).
template <typename xpu>
void UniformCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const UniformParam& p = GetParam<UniformParam>(attrs);
  DrawInto<xpu, uniform_draw>(ctx, req[0], out[0], p.low, p.high);
}

template <typename xpu>
void NormalCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const NormalParam& p = GetParam<NormalParam>(attrs);
  DrawInto<xpu, normal_draw>(ctx, req[0], out[0], p.loc, p.scale);
}

template <typename xpu>
void ExponentialCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  DrawInto<xpu, exponential_draw>(ctx, req[0], out[0], GetParam<ExponentialParam>(attrs).lam);
}

template <typename xpu>
void RandIntCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const RandIntParam& p = GetParam<RandIntParam>(attrs);
  DrawInto<xpu, randint_draw>(ctx, req[0], out[0], p.low,
                              static_cast<uint64_t>(p.high) - static_cast<uint64_t>(p.low));
}

template <typename xpu>
void GammaCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const GammaParam& p = GetParam<GammaParam>(attrs);
  DrawElementsInto<xpu, gamma_draw>(ctx, req[0], out[0], double(p.alpha), double(p.beta));
}

template <typename xpu>
void PoissonCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const PoissonMean mean(GetParam<PoissonParam>(attrs).lam);
  if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
    if (mean.lam < PoissonMean::kInversionBelow && req[0] != kNullOp) {
      const PoissonInversionSums sums(mean);
      if (sums.count > 0) {
        const index_t n = out[0].Size();
        const PhiloxRange range = ctx.requested[0].TakeRandom(static_cast<uint64_t>(n));
        MSHADOW_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
          PoissonInversionOnCpu(req[0], out[0].dptr<DType>(), n, range, sums);
        });
        return;
      }
    }
  }
  DrawElementsInto<xpu, poisson_draw>(ctx, req[0], out[0], mean);
}

template <typename xpu>
void NegativeBinomialCompute(const NodeAttrs& attrs, const OpContext& ctx,
                             const std::vector<TBlob>&, const std::vector<OpReqType>& req,
                             const std::vector<TBlob>& out) {
  const NegativeBinomialParam& p = GetParam<NegativeBinomialParam>(attrs);
  DrawElementsInto<xpu, negative_binomial_draw>(ctx, req[0], out[0], double(p.k), double(p.p));
}

template <typename xpu>
void GeneralizedNegativeBinomialCompute(const NodeAttrs& attrs, const OpContext& ctx,
                                        const std::vector<TBlob>&,
                                        const std::vector<OpReqType>& req,
                                        const std::vector<TBlob>& out) {
  const GeneralizedNegativeBinomialParam& p = GetParam<GeneralizedNegativeBinomialParam>(attrs);
  DrawElementsInto<xpu, generalized_negative_binomial_draw>(ctx, req[0], out[0], double(p.mu),
                                                            double(p.alpha));
}

// Adds FCompute<xpu> to every sampling operator, its _like form (randint has none) and their
// zero gradients.
template <typename xpu>
void SetSampleCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  const std::pair<const char*, FCompute> with_like_forms[] = {
      {"_random_uniform", UniformCompute<xpu>},
      {"_random_normal", NormalCompute<xpu>},
      {"_random_exponential", ExponentialCompute<xpu>},
      {"_random_gamma", GammaCompute<xpu>},
      {"_random_poisson", PoissonCompute<xpu>},
      {"_random_negative_binomial", NegativeBinomialCompute<xpu>},
      {"_random_generalized_negative_binomial", GeneralizedNegativeBinomialCompute<xpu>}};
  for (const std::pair<const char*, FCompute>& op : with_like_forms) {
    const std::string like = std::string(op.first) + "_like";
    RegisterOp(op.first).set_attr<FCompute>(attr_name, op.second);
    RegisterOp(like).set_attr<FCompute>(attr_name, op.second);
    RegisterOp("_backward_" + like)
        .set_attr<FCompute>(attr_name, FCompute(ZeroGradientCompute<xpu>));
  }
  RegisterOp("_random_randint").set_attr<FCompute>(attr_name, FCompute(RandIntCompute<xpu>));
}

}  // namespace sample
}  // namespace ops

#endif  // OPS_SAMPLE_INL_H_
