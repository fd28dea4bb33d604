// ops/multisample-inl.h: the operators that draw from many distributions at once, with MXNet
// 1.9.1's names and parameters: _sample_uniform (low, high), _sample_normal (mu, sigma),
// _sample_gamma (alpha, beta), _sample_exponential (lam), _sample_poisson (lam),
// _sample_negative_binomial (k, p) and _sample_generalized_negative_binomial (mu, alpha).
// Their inputs are arrays of one shape S holding each distribution's parameters; the output,
// S + shape, holds prod(shape) draws from each. Written once for every device.
//
// Uniform, normal and exponential draws take a pair of a distribution's elements from each
// Philox block (ops/pair_draws.h); the others give element j of the output its own sequence
// (ops/rejection_draws.h). Either way a draw depends on the seed, the call and its position
// alone, never on the thread count or the device. Every
// parameter is checked on the host before anything is drawn: one outside its distribution's
// domain (a negative deviation, a shape of 0) is a dmlc::Error naming its position, where
// MXNet draws garbage or, for a gamma of negative shape, never returns.
// multisample.cc registers them with FCompute<cpu>; multisample.cu adds FCompute<gpu>.
#ifndef OPS_MULTISAMPLE_INL_H_
#define OPS_MULTISAMPLE_INL_H_

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/distribution_domain.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/pair_draws.h"
#include "ops/registration_util.h"
#include "ops/rejection_draws.h"

namespace ops {
namespace multisample {

struct MultiSampleParam : public dmlc::Parameter<MultiSampleParam> {
  TShape shape;
  int dtype;
  DMLC_DECLARE_PARAMETER(MultiSampleParam) {
    DMLC_DECLARE_FIELD(shape).set_default(TShape()).describe(
        "The draws from each distribution: the output is the parameters' shape + shape.");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("None", -1)
        .add_enum("float32", mshadow::kFloat32)
        .add_enum("float64", mshadow::kFloat64)
        .add_enum("float16", mshadow::kFloat16)
        .set_default(-1)
        .describe("The output's type; None: float32 (whatever the parameters' type).");
  }
};

// Each distribution: its parameters' names, their domain (Valid, in words kDomain) and its
// draws: a fixed count of uniforms, a pair of elements from each Philox block (PairDraw, from
// ops/pair_draws.h), or a varying count, an element's own sequence (Draw, from
// ops/rejection_draws.h). The one-parameter distributions ignore b.
struct uniform_dist {
  static constexpr const char* kName = "uniform";
  static constexpr const char* kParams[] = {"low", "high"};
  static constexpr const char* kDomain = "finite low <= high";
  static bool Valid(double low, double high) { return low <= high && std::isfinite(high - low); }
  using PairDraw = sample::uniform_draw;  // high itself is never drawn
};

struct normal_dist {
  static constexpr const char* kName = "normal";
  static constexpr const char* kParams[] = {"mu", "sigma"};
  static constexpr const char* kDomain = "finite mu, sigma > 0";
  static bool Valid(double mu, double sigma) {
    return std::isfinite(mu) && sigma > 0 && sigma < INFINITY;
  }
  using PairDraw = sample::normal_draw;
};

struct gamma_dist {
  static constexpr const char* kName = "gamma";
  static constexpr const char* kParams[] = {"alpha", "beta"};
  static constexpr const char* kDomain = "finite alpha > 0 and beta > 0";
  static bool Valid(double alpha, double beta) {
    return alpha > 0 && alpha < INFINITY && beta > 0 && beta < INFINITY;
  }
  template <typename Uniforms>
  MSHADOW_XINLINE static double Draw(Uniforms* u, double alpha, double beta) {
    return sample::GammaDraw(u, alpha, beta);
  }
};

struct exponential_dist {
  static constexpr const char* kName = "exponential";
  static constexpr const char* kParams[] = {"lam"};
  static constexpr const char* kDomain = "lam > 0";
  static bool Valid(double lam, double) { return lam > 0; }
  using PairDraw = sample::exponential_draw;
};

struct poisson_dist {
  static constexpr const char* kName = "poisson";
  static constexpr const char* kParams[] = {"lam"};
  static constexpr const char* kDomain = "finite lam >= 0";
  static bool Valid(double lam, double) { return lam >= 0 && lam < INFINITY; }
  template <typename Uniforms>
  MSHADOW_XINLINE static double Draw(Uniforms* u, double lam, double) {
    return sample::PoissonDraw(u, lam);
  }
};

struct negative_binomial_dist {
  static constexpr const char* kName = "negative_binomial";
  static constexpr const char* kParams[] = {"k", "p"};
  static constexpr const char* kDomain = "finite k > 0 and 0 < p <= 1";
  static bool Valid(double k, double p) { return k > 0 && k < INFINITY && p > 0 && p <= 1; }
  template <typename Uniforms>
  MSHADOW_XINLINE static double Draw(Uniforms* u, double k, double p) {
    return sample::NegativeBinomialDraw(u, k, p);
  }
};

struct generalized_negative_binomial_dist {
  static constexpr const char* kName = "generalized_negative_binomial";
  static constexpr const char* kParams[] = {"mu", "alpha"};
  static constexpr const char* kDomain = "finite mu >= 0 and alpha >= 0";
  static bool Valid(double mu, double alpha) {
    return mu >= 0 && mu < INFINITY && alpha >= 0 && alpha < INFINITY;
  }
  template <typename Uniforms>
  MSHADOW_XINLINE static double Draw(Uniforms* u, double mu, double alpha) {
    return sample::GeneralizedNegativeBinomialDraw(u, mu, alpha);
  }
};

template <typename Dist, typename = void>
constexpr bool kDrawsPairs = false;
template <typename Dist>
constexpr bool kDrawsPairs<Dist, std::void_t<typename Dist::PairDraw>> = true;

// Output element j: a draw from distribution j / per_distribution, from j's own uniforms.
template <typename Dist, int kReq>
struct draw_from_parameters {
  template <typename DType, typename PType>
  MSHADOW_XINLINE static void Map(index_t j, DType* out, const PType* a, const PType* b,
                                  index_t per_distribution, PhiloxRange range) {
    const index_t i = j / per_distribution;
    sample::ElementUniforms<std::is_same_v<DType, double>> uniforms(range, j);
    AssignReq<kReq>(out + j, static_cast<DType>(Dist::Draw(&uniforms, static_cast<double>(a[i]),
                                                           static_cast<double>(b[i]))));
  }
};

// The pair draws: distribution i's per_distribution elements take blocks_per_distribution
// blocks from range.counter + i * blocks_per_distribution on; item g draws block
// g % blocks_per_distribution of distribution g / blocks_per_distribution.
template <typename Dist, int kReq>
struct draw_pairs_from_parameters {
  template <typename DType, typename PType>
  MSHADOW_XINLINE static void Map(index_t g, DType* out, const PType* a, const PType* b,
                                  index_t per_distribution, index_t blocks_per_distribution,
                                  PhiloxRange range) {
    const index_t i = g / blocks_per_distribution;
    const index_t first = i * blocks_per_distribution;
    const mshadow::PhiloxKey key = mshadow::PhiloxKeyFromSeed(range.seed);
    if constexpr (kNumParams<Dist> == 1) {
      sample::DrawPair<typename Dist::PairDraw, kReq>(
          g - first, out + i * per_distribution, per_distribution, key,
          range.counter + static_cast<uint64_t>(first), static_cast<double>(a[i]));
    } else {
      sample::DrawPair<typename Dist::PairDraw, kReq>(
          g - first, out + i * per_distribution, per_distribution, key,
          range.counter + static_cast<uint64_t>(first), static_cast<double>(a[i]),
          static_cast<double>(b[i]));
    }
  }
};

// The pair draws on the CPU, on packets (defined in multisample.cc, from
// ops/pair_draws_cpu.h): the values of draw_pairs_from_parameters.
template <typename Dist, typename DType, typename PType>
void DrawPairsFromParametersOnCpu(OpReqType req, DType* out, const PType* a, const PType* b,
                                  index_t count, index_t per_distribution, PhiloxRange range);

template <typename xpu, typename Dist>
void MultiSampleCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob& a = in[0];
  const TBlob& b = in[kNumParams<Dist> - 1];
  const index_t count = a.Size();
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL(a.type_flag_, PType, {
    if constexpr (std::is_same_v<PType, bool>) {
      throw dmlc::Error("the parameters are bool; valid: a number type");  // as type inference
    } else {
      // A GPU's parameters are copied to the host for the check (they are one per
      // distribution, prod(shape) times fewer than the draws).
      WithIndicesOnHost<xpu, PType>(a, s, [&](const PType* host_a, index_t) {
        WithIndicesOnHost<xpu, PType>(b, s, [&](const PType* host_b, index_t) {
          CheckParameters<Dist>(host_a, host_b, count);
        });
      });
      if (req[0] == kNullOp || out[0].Size() == 0) return;
      const index_t n = out[0].Size(), per_distribution = n / count;
      MSHADOW_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
        DType* to = out[0].dptr<DType>();
        if constexpr (kDrawsPairs<Dist>) {
          const index_t blocks = sample::PairBlocks(per_distribution);
          const PhiloxRange range =
              ctx.requested[0].TakeRandom(static_cast<uint64_t>(count * blocks));
          if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
            DrawPairsFromParametersOnCpu<Dist>(req[0], to, a.dptr<PType>(), b.dptr<PType>(), count,
                                               per_distribution, range);
          } else {
            OPS_REQ_SWITCH(req[0], kReq, {
              Kernel<draw_pairs_from_parameters<Dist, kReq>, xpu>::Launch(
                  s, count * blocks, to, a.dptr<PType>(), b.dptr<PType>(), per_distribution, blocks,
                  range);
            });
          }
        } else {
          const PhiloxRange range = ctx.requested[0].TakeRandom(static_cast<uint64_t>(n));
          OPS_REQ_SWITCH(req[0], kReq, {
            Kernel<draw_from_parameters<Dist, kReq>, xpu>::Launch(
                s, n, to, a.dptr<PType>(), b.dptr<PType>(), per_distribution, range);
          });
        }
      });
    }
  });
}

// Calls fn(TypeTag<Dist>(), "_sample_<name>") for every distribution.
template <typename Fn>
void ForEachDistribution(Fn&& fn) {
  fn(TypeTag<uniform_dist>());
  fn(TypeTag<normal_dist>());
  fn(TypeTag<gamma_dist>());
  fn(TypeTag<exponential_dist>());
  fn(TypeTag<poisson_dist>());
  fn(TypeTag<negative_binomial_dist>());
  fn(TypeTag<generalized_negative_binomial_dist>());
}

template <typename xpu>
void SetMultiSampleCompute() {
  ForEachDistribution([](auto tag) {
    using Dist = typename decltype(tag)::type;
    const std::string name = std::string("_sample_") + Dist::kName;
    RegisterOp(name).set_attr<FCompute>(ComputeAttrName<xpu>(),
                                        FCompute(MultiSampleCompute<xpu, Dist>));
    RegisterOp("_backward" + name)
        .set_attr<FCompute>(ComputeAttrName<xpu>(), FCompute(ZeroGradientCompute<xpu>));
  });
}

}  // namespace multisample
}  // namespace ops

#endif  // OPS_MULTISAMPLE_INL_H_
