// ops/pdf-inl.h: MXNet 1.9.1's density operators _random_pdf_<distribution>: the density (or,
// with is_log, its log) of each sample under the distribution whose parameters it sits
// under, for the uniform (low, high), normal (mu, sigma), gamma (alpha, beta: shape and rate),
// exponential (lam), Poisson (lam), negative binomial (k, p), generalized negative binomial
// (mu, alpha) and Dirichlet (alpha) distributions. The parameters' shape S leads the sample's:
// a sample S + E holds prod(E) samples of each distribution, and the output has the sample's
// shape (Dirichlet: a sample S + E + (k) of k-vectors, alpha S + (k), the output S + E).
//
// The backward gives the gradients in the sample and in every parameter (the parameters'
// summed over their samples), as MXNet's; as there, the discrete distributions' and the
// uniform's sample gradients are zero, and no sample is checked against the support (the
// uniform's density is 1 / (high - low) at any sample). Unlike MXNet, parameters outside a
// distribution's domain (sigma <= 0, p >= 1) are a dmlc::Error naming the distribution.
// Written once for every device: pdf.cc registers the CPU, pdf.cu adds FCompute<gpu>.
#ifndef OPS_PDF_INL_H_
#define OPS_PDF_INL_H_

#include <algorithm>
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
#include "ops/registration_util.h"
#include "ops/special_functions.h"
#include "ops/vector_loop.h"

namespace ops {
namespace pdf {

struct PdfParam : public dmlc::Parameter<PdfParam> {
  bool is_log;
  DMLC_DECLARE_PARAMETER(PdfParam) {
    DMLC_DECLARE_FIELD(is_log).set_default(false).describe(
        "Give the log of the density instead of the density.");
  }
};

// ---- The distributions: names, domains, and each distribution's log density log p(x) with
// its derivatives in x and in the parameters (a, b). Of<DType, kGradient> holds one
// distribution's terms that do not depend on x, computed once per run of its samples (those
// only the derivatives need when kGradient). One-parameter distributions ignore b.

// A finite, positive parameter (a scale, a rate, a shape).
inline bool PositiveFinite(double x) { return x > 0 && x < INFINITY; }

template <typename DType>
MSHADOW_XINLINE DType DigammaOf(DType x) {
  return special::Narrowed<DType>(special::Digamma(static_cast<double>(x)));
}

struct uniform_pdf {
  static constexpr const char* kName = "uniform";
  static constexpr const char* kParams[] = {"low", "high"};
  static constexpr const char* kDomain = "finite low < high";
  static constexpr const char* kLogDensity = "-log(high - low)";
  static bool Valid(double low, double high) { return low < high && std::isfinite(high - low); }
  static constexpr bool kConstantDensity = true;  // no check that the sample is in [low, high)
  template <typename DType, bool kGradient>
  struct Of {
    DType inv_width, log_width;
    MSHADOW_XINLINE Of(DType low, DType high)
        : inv_width(DType(1) / (high - low)), log_width(std::log(high - low)) {}
    MSHADOW_XINLINE DType LogDensity(DType /*x*/) const { return -log_width; }
    MSHADOW_XINLINE void Gradient(DType /*x*/, DType* gx, DType* ga, DType* gb) const {
      *gx = 0;
      *ga = inv_width;
      *gb = -inv_width;
    }
  };
};

struct normal_pdf {
  static constexpr const char* kName = "normal";
  static constexpr const char* kParams[] = {"mu", "sigma"};
  static constexpr const char* kDomain = "finite mu, finite sigma > 0";
  static constexpr const char* kLogDensity = "-(x - mu)^2 / (2 sigma^2) - log(sigma sqrt(2 pi))";
  static bool Valid(double mu, double sigma) { return std::isfinite(mu) && PositiveFinite(sigma); }
  template <typename DType, bool kGradient>
  struct Of {
    DType mu, inv_sigma, log_normalizer;  // log(sigma sqrt(2 pi))
    MSHADOW_XINLINE Of(DType mu, DType sigma)
        : mu(mu),
          inv_sigma(DType(1) / sigma),
          log_normalizer(std::log(sigma) + DType(0.91893853320467274178)) {}
    MSHADOW_XINLINE DType LogDensity(DType x) const {
      const DType z = (x - mu) * inv_sigma;
      return DType(-0.5) * z * z - log_normalizer;
    }
    MSHADOW_XINLINE void Gradient(DType x, DType* gx, DType* ga, DType* gb) const {
      const DType z = (x - mu) * inv_sigma;
      *gx = -z * inv_sigma;
      *ga = z * inv_sigma;
      *gb = (z * z - DType(1)) * inv_sigma;
    }
  };
};

struct gamma_pdf {
  static constexpr const char* kName = "gamma";
  static constexpr const char* kParams[] = {"alpha", "beta"};
  static constexpr const char* kDomain = "finite alpha > 0 and beta > 0 (shape and rate)";
  static constexpr const char* kLogDensity =
      "alpha log(beta) + (alpha - 1) log(x) - beta x - lgamma(alpha)";
  static bool Valid(double alpha, double beta) {
    return PositiveFinite(alpha) && PositiveFinite(beta);
  }
  template <typename DType, bool kGradient>
  struct Of {
    DType alpha, beta, log_beta, normalizer, digamma_alpha = 0;
    MSHADOW_XINLINE Of(DType alpha, DType beta)
        : alpha(alpha),
          beta(beta),
          log_beta(std::log(beta)),
          normalizer(alpha * log_beta - special::LogGamma(alpha)) {
      if constexpr (kGradient) digamma_alpha = DigammaOf(alpha);
    }
    MSHADOW_XINLINE DType LogDensity(DType x) const {
      return normalizer + (alpha - DType(1)) * std::log(x) - beta * x;
    }
    MSHADOW_XINLINE void Gradient(DType x, DType* gx, DType* ga, DType* gb) const {
      *gx = (alpha - DType(1)) / x - beta;
      *ga = log_beta + std::log(x) - digamma_alpha;
      *gb = alpha / beta - x;
    }
  };
};

struct exponential_pdf {
  static constexpr const char* kName = "exponential";
  static constexpr const char* kParams[] = {"lam"};
  static constexpr const char* kDomain = "finite lam > 0";
  static constexpr const char* kLogDensity = "log(lam) - lam x";
  static bool Valid(double lam, double) { return PositiveFinite(lam); }
  template <typename DType, bool kGradient>
  struct Of {
    DType lam, log_lam;
    MSHADOW_XINLINE Of(DType lam, DType) : lam(lam), log_lam(std::log(lam)) {}
    MSHADOW_XINLINE DType LogDensity(DType x) const { return log_lam - lam * x; }
    MSHADOW_XINLINE void Gradient(DType x, DType* gx, DType* ga, DType*) const {
      *gx = -lam;
      *ga = DType(1) / lam - x;
    }
  };
};

struct poisson_pdf {
  static constexpr const char* kName = "poisson";
  static constexpr const char* kParams[] = {"lam"};
  static constexpr const char* kDomain = "finite lam > 0";
  static constexpr const char* kLogDensity = "x log(lam) - lgamma(x + 1) - lam";
  static bool Valid(double lam, double) { return PositiveFinite(lam); }
  template <typename DType, bool kGradient>
  struct Of {
    DType lam, log_lam;
    MSHADOW_XINLINE Of(DType lam, DType) : lam(lam), log_lam(std::log(lam)) {}
    MSHADOW_XINLINE DType LogDensity(DType x) const {
      return x * log_lam - special::LogGamma(x + DType(1)) - lam;
    }
    MSHADOW_XINLINE void Gradient(DType x, DType* gx, DType* ga, DType*) const {
      *gx = 0;
      *ga = x / lam - DType(1);
    }
  };
};

// MXNet's parameters: k, the failure limit (real-valued), and p, the failure probability.
struct negative_binomial_pdf {
  static constexpr const char* kName = "negative_binomial";
  static constexpr const char* kParams[] = {"k", "p"};
  static constexpr const char* kDomain = "finite k > 0 and 0 < p < 1";
  static constexpr const char* kLogDensity =
      "lgamma(x + k) - lgamma(x + 1) - lgamma(k) + k log(p) + x log(1 - p)";
  static bool Valid(double k, double p) { return PositiveFinite(k) && p > 0 && p < 1; }
  template <typename DType, bool kGradient>
  struct Of {
    DType k, p, log_p, log_q, normalizer, digamma_k = 0;
    MSHADOW_XINLINE Of(DType k, DType p)
        : k(k),
          p(p),
          log_p(std::log(p)),
          log_q(std::log(DType(1) - p)),
          normalizer(k * log_p - special::LogGamma(k)) {
      if constexpr (kGradient) digamma_k = DigammaOf(k);
    }
    MSHADOW_XINLINE DType LogDensity(DType x) const {
      return special::LogGamma(x + k) - special::LogGamma(x + DType(1)) + normalizer + x * log_q;
    }
    MSHADOW_XINLINE void Gradient(DType x, DType* gx, DType* ga, DType* gb) const {
      *gx = 0;
      *ga = DigammaOf(x + k) - digamma_k + log_p;
      *gb = k / p - x / (DType(1) - p);
    }
  };
};

// The negative binomial of k = 1 / alpha and p = 1 / (mu alpha + 1).
struct generalized_negative_binomial_pdf {
  static constexpr const char* kName = "generalized_negative_binomial";
  static constexpr const char* kParams[] = {"mu", "alpha"};
  static constexpr const char* kDomain = "finite mu > 0 and alpha > 0";
  static constexpr const char* kLogDensity =
      "the negative binomial's, of k = 1 / alpha and p = 1 / (mu alpha + 1)";
  static bool Valid(double mu, double alpha) { return PositiveFinite(mu) && PositiveFinite(alpha); }
  template <typename DType, bool kGradient>
  struct Of {
    DType mu, alpha, den;  // mu alpha + 1
    negative_binomial_pdf::Of<DType, kGradient> nb;
    MSHADOW_XINLINE Of(DType mu, DType alpha)
        : mu(mu), alpha(alpha), den(mu * alpha + DType(1)), nb(DType(1) / alpha, DType(1) / den) {}
    MSHADOW_XINLINE DType LogDensity(DType x) const { return nb.LogDensity(x); }
    MSHADOW_XINLINE void Gradient(DType x, DType* gx, DType* ga, DType* gb) const {
      DType gk, gp;
      nb.Gradient(x, gx, &gk, &gp);
      const DType dp = gp / (den * den);  // dp/dmu = -alpha / den^2, dp/dalpha = -mu / den^2
      *ga = -dp * alpha;
      *gb = -gk / (alpha * alpha) - dp * mu;
    }
  };
};

// Vectors of k parameters alpha, and of k samples x (no check that x sums to 1, as MXNet).
struct dirichlet_pdf {
  static constexpr const char* kName = "dirichlet";
  static constexpr const char* kParams[] = {"alpha"};
  static constexpr const char* kDomain = "finite alpha > 0";
  static constexpr const char* kLogDensity =
      "sum_j (alpha_j - 1) log(x_j) + lgamma(sum_j alpha_j) - sum_j lgamma(alpha_j)";
  static bool Valid(double alpha, double) { return PositiveFinite(alpha); }
};

// Whether a distribution's density is the same at every sample (a run computes it once).
template <typename Dist, typename = void>
constexpr bool kConstantDensity = false;
template <typename Dist>
constexpr bool kConstantDensity<Dist, std::void_t<decltype(Dist::kConstantDensity)>> = true;

// Calls fn(TypeTag<Dist>()) for every distribution with scalar parameters.
template <typename Fn>
void ForEachScalarDistribution(Fn&& fn) {
  fn(TypeTag<uniform_pdf>());
  fn(TypeTag<normal_pdf>());
  fn(TypeTag<gamma_pdf>());
  fn(TypeTag<exponential_pdf>());
  fn(TypeTag<poisson_pdf>());
  fn(TypeTag<negative_binomial_pdf>());
  fn(TypeTag<generalized_negative_binomial_pdf>());
}

// ---- The kernels. An item is a run of up to kRun samples of one distribution, so that its
// terms are computed once a run: 256 on the CPU; 1 on the GPU, where a thread an element
// keeps the loads coalesced.
template <typename xpu>
constexpr index_t kRun = std::is_same_v<xpu, mshadow::cpu> ? 256 : 1;

struct Run {
  index_t dist, first, last;  // samples [first, last) of distribution dist
};

MSHADOW_XINLINE Run RunOf(index_t item, index_t per_dist, index_t runs_per_dist, index_t run) {
  const index_t dist = item / runs_per_dist;
  const index_t first = dist * per_dist + item % runs_per_dist * run;
  const index_t end = (dist + 1) * per_dist;
  return {dist, first, first + run < end ? first + run : end};
}

template <typename Dist, bool kLog, int kReq>
struct density_run {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t item, DType* out, const DType* x, const DType* a,
                                  const DType* b, index_t per_dist, index_t runs_per_dist,
                                  index_t run) {
    const Run r = RunOf(item, per_dist, runs_per_dist, run);
    const typename Dist::template Of<DType, false> dist(a[r.dist], b[r.dist]);
    if constexpr (kConstantDensity<Dist>) {
      const DType log_density = dist.LogDensity(DType(0));
      const DType value = kLog ? log_density : std::exp(log_density);
      OPS_SIMD_LOOP
      for (index_t i = r.first; i < r.last; ++i) AssignReq<kReq>(out + i, value);
    } else {
      for (index_t i = r.first; i < r.last; ++i) {
        const DType log_density = dist.LogDensity(x[i]);
        AssignReq<kReq>(out + i, kLog ? log_density : std::exp(log_density));
      }
    }
  }
};

// grad_x[i] (as req_x says) and terms_a[i], terms_b[i]: the output gradient times the
// derivatives of the density (of the log density, when kLog) in x and in the parameters;
// the terms are summed per distribution afterwards.
template <typename Dist, bool kLog>
struct density_gradient_run {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t item, DType* grad_x, DType* terms_a, DType* terms_b,
                                  const DType* out_grad, const DType* x, const DType* a,
                                  const DType* b, const DType* density, index_t per_dist,
                                  index_t runs_per_dist, index_t run, OpReqType req_x) {
    const Run r = RunOf(item, per_dist, runs_per_dist, run);
    const typename Dist::template Of<DType, true> dist(a[r.dist], b[r.dist]);
    for (index_t i = r.first; i < r.last; ++i) {
      const DType scale = kLog ? out_grad[i] : out_grad[i] * density[i];  // dp = p dlog p
      DType gx, ga, gb = 0;
      dist.Gradient(x[i], &gx, &ga, &gb);
      AssignReq(grad_x + i, scale * gx, req_x);
      terms_a[i] = scale * ga;
      if constexpr (kNumParams<Dist> == 2) terms_b[i] = scale * gb;
    }
  }
};

// Dirichlet: item runs over the k-vector samples of distribution dist (alpha + dist * k).
template <bool kLog, int kReq>
struct dirichlet_density_run {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t item, DType* out, const DType* x, const DType* alpha,
                                  index_t k, index_t per_dist, index_t runs_per_dist, index_t run) {
    const Run r = RunOf(item, per_dist, runs_per_dist, run);
    const DType* a = alpha + r.dist * k;
    DType sum = 0, normalizer = 0;
    for (index_t j = 0; j < k; ++j) {
      sum += a[j];
      normalizer -= special::LogGamma(a[j]);
    }
    normalizer += special::LogGamma(sum);
    for (index_t i = r.first; i < r.last; ++i) {
      DType log_density = normalizer;
      for (index_t j = 0; j < k; ++j) log_density += (a[j] - DType(1)) * std::log(x[i * k + j]);
      AssignReq<kReq>(out + i, kLog ? log_density : std::exp(log_density));
    }
  }
};

// The terms of alpha's gradient go to terms[(dist k + j) per_dist + sample]: each alpha_j's
// terms in a row of their own, for the sums.
template <bool kLog>
struct dirichlet_gradient_run {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t item, DType* grad_x, DType* terms, const DType* out_grad,
                                  const DType* x, const DType* alpha, const DType* density,
                                  index_t k, index_t per_dist, index_t runs_per_dist, index_t run,
                                  OpReqType req_x) {
    const Run r = RunOf(item, per_dist, runs_per_dist, run);
    const DType* a = alpha + r.dist * k;
    DType sum = 0;
    for (index_t j = 0; j < k; ++j) sum += a[j];
    const DType digamma_sum = DigammaOf(sum);
    for (index_t i = r.first; i < r.last; ++i) {
      const DType scale = kLog ? out_grad[i] : out_grad[i] * density[i];
      const index_t sample = i - r.dist * per_dist;
      for (index_t j = 0; j < k; ++j) {
        const DType xj = x[i * k + j];
        AssignReq(grad_x + i * k + j, scale * (a[j] - DType(1)) / xj, req_x);
        terms[(r.dist * k + j) * per_dist + sample] =
            scale * (std::log(xj) + digamma_sum - DigammaOf(a[j]));
      }
    }
  }
};

// ---- The computes.

// Every distribution's parameters checked on the host (a GPU's copied: one per distribution,
// no more than the samples).
template <typename Dist, typename xpu, typename DType>
void CheckParametersOf(const TBlob& a, const TBlob& b, mshadow::Stream<xpu>* s) {
  WithIndicesOnHost<xpu, DType>(a, s, [&](const DType* host_a, index_t count) {
    WithIndicesOnHost<xpu, DType>(
        b, s, [&](const DType* host_b, index_t) { CheckParameters<Dist>(host_a, host_b, count); });
  });
}

// Calls fn(std::integral_constant<bool, is_log>()).
template <typename Fn>
void WithLog(bool is_log, Fn&& fn) {
  if (is_log) {
    fn(std::true_type());
  } else {
    fn(std::false_type());
  }
}

// Runs launch(log) for the densities: launch(std::true_type()) gives log densities. On the
// CPU, whose exp is a scalar libm call an element, densities that vary by sample and are
// written (not added) are the log densities exponentiated afterwards on SIMD packets.
template <typename xpu, typename DType, typename Launch>
void LaunchDensities(bool is_log, bool varying, OpReqType req, const TBlob& out,
                     mshadow::Stream<xpu>* s, Launch&& launch) {
  if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
    if (!is_log && varying && (req == kWriteTo || req == kWriteInplace)) {
      launch(std::true_type());
      const mshadow::Tensor<xpu, 1, DType> densities = Flat<xpu, DType>(out, s);
      Assign(densities, kWriteTo, mshadow::expr::F<mshadow::op::exp>(densities));
      return;
    }
  }
  WithLog(is_log, launch);
}

// The samples' shape as (distributions, samples of each[, k]).
struct Layout {
  index_t dists, per_dist, runs_per_dist;
};

template <typename xpu>
Layout LayoutOf(index_t dists, index_t samples) {
  const index_t per_dist = dists == 0 ? 0 : samples / dists;
  return {dists, per_dist, (per_dist + kRun<xpu> - 1) / kRun<xpu>};
}

// grad (dists) = the sums of `terms` (dists, per_dist), written as `req` says.
template <typename xpu, typename DType>
void SumTerms(mshadow::Stream<xpu>* s, const DType* terms, const Layout& l, const TBlob& grad,
              OpReqType req) {
  if (req == kNullOp) return;
  if (l.per_dist == 0) {
    WriteZeroGradient<xpu, DType>(grad, req, s);
    return;
  }
  const mshadow::Tensor<xpu, 2, DType> rows(const_cast<DType*>(terms),
                                            mshadow::Shape2(l.dists, l.per_dist), s);
  Assign(grad.get_with_shape<xpu, 1, DType>(mshadow::Shape1(l.dists), s), req,
         mshadow::expr::sumall_except_dim<0>(rows));
}

// Inputs: sample, the parameters. Output: the densities.
template <typename xpu, typename Dist>
void DensityCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TBlob& a = in[1];
  const TBlob& b = in[kNumParams<Dist>];
  const Layout l = LayoutOf<xpu>(a.Size(), in[0].Size());
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    CheckParametersOf<Dist, xpu, DType>(a, b, s);
    const bool is_log = GetParam<PdfParam>(attrs).is_log;
    LaunchDensities<xpu, DType>(is_log, !kConstantDensity<Dist>, req[0], out[0], s, [&](auto log) {
      OPS_REQ_SWITCH(req[0], Req, {
        Kernel<density_run<Dist, decltype(log)::value, Req>, xpu>::LaunchItems(
            s, l.dists * l.runs_per_dist, kRun<xpu>, out[0].dptr<DType>(), in[0].dptr<DType>(),
            a.dptr<DType>(), b.dptr<DType>(), l.per_dist, l.runs_per_dist, kRun<xpu>);
      });
    });
  });
}

// Inputs: the output's gradient, sample, the parameters, the densities. Outputs: the
// gradients of sample and of the parameters.
template <typename xpu, typename Dist>
void DensityBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                            const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                            const std::vector<TBlob>& out) {
  constexpr int kParams = kNumParams<Dist>;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TBlob& x = in[1];
  const TBlob& a = in[2];
  const TBlob& b = in[1 + kParams];
  const index_t size = x.Size();
  const Layout l = LayoutOf<xpu>(a.Size(), size);
  MSHADOW_SGL_DBL_TYPE_SWITCH(x.type_flag_, DType, {
    DType* terms = ctx.requested[0]
                       .get_space_typed<xpu, 1, DType>(mshadow::Shape1(kParams * size + 1), s)
                       .dptr_;
    WithLog(GetParam<PdfParam>(attrs).is_log, [&](auto log) {
      Kernel<density_gradient_run<Dist, decltype(log)::value>, xpu>::LaunchItems(
          s, l.dists * l.runs_per_dist, kRun<xpu>, out[0].dptr<DType>(), terms,
          terms + (kParams - 1) * size, in[0].dptr<DType>(), x.dptr<DType>(), a.dptr<DType>(),
          b.dptr<DType>(), in[2 + kParams].dptr<DType>(), l.per_dist, l.runs_per_dist, kRun<xpu>,
          req[0]);
    });
    for (int p = 0; p < kParams; ++p) SumTerms<xpu>(s, terms + p * size, l, out[1 + p], req[1 + p]);
  });
}

// Dirichlet: sample (S + E + (k)), alpha (S + (k)); the densities (S + E), (1) for a sample
// of one axis.
template <typename xpu>
void DirichletCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TBlob& alpha = in[1];
  const index_t k = alpha.shape_[alpha.ndim() - 1];
  const Layout l = LayoutOf<xpu>(k == 0 ? 0 : alpha.Size() / k, out[0].Size());
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    CheckParametersOf<dirichlet_pdf, xpu, DType>(alpha, alpha, s);
    const bool is_log = GetParam<PdfParam>(attrs).is_log;
    LaunchDensities<xpu, DType>(is_log, true, req[0], out[0], s, [&](auto log) {
      OPS_REQ_SWITCH(req[0], Req, {
        Kernel<dirichlet_density_run<decltype(log)::value, Req>, xpu>::LaunchItems(
            s, l.dists * l.runs_per_dist, kRun<xpu> * k, out[0].dptr<DType>(), in[0].dptr<DType>(),
            alpha.dptr<DType>(), k, l.per_dist, l.runs_per_dist, kRun<xpu>);
      });
    });
  });
}

template <typename xpu>
void DirichletBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TBlob& x = in[1];
  const TBlob& alpha = in[2];
  const index_t k = alpha.shape_[alpha.ndim() - 1];
  const Layout vectors = LayoutOf<xpu>(k == 0 ? 0 : alpha.Size() / k, in[0].Size());
  MSHADOW_SGL_DBL_TYPE_SWITCH(x.type_flag_, DType, {
    DType* terms =
        ctx.requested[0].get_space_typed<xpu, 1, DType>(mshadow::Shape1(x.Size() + 1), s).dptr_;
    WithLog(GetParam<PdfParam>(attrs).is_log, [&](auto log) {
      Kernel<dirichlet_gradient_run<decltype(log)::value>, xpu>::LaunchItems(
          s, vectors.dists * vectors.runs_per_dist, kRun<xpu> * k, out[0].dptr<DType>(), terms,
          in[0].dptr<DType>(), x.dptr<DType>(), alpha.dptr<DType>(), in[3].dptr<DType>(), k,
          vectors.per_dist, vectors.runs_per_dist, kRun<xpu>, req[0]);
    });
    // One row of terms per element of alpha.
    SumTerms<xpu>(s, terms, {alpha.Size(), vectors.per_dist, 0}, out[1], req[1]);
  });
}

template <typename Dist>
std::string OpName() {
  return std::string("_random_pdf_") + Dist::kName;
}

template <typename Dist>
std::string BackwardOpName() {
  return std::string("_backward_pdf_") + Dist::kName;
}

// Adds FCompute<xpu> to every density operator and its backward.
template <typename xpu>
void SetPdfCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  ForEachScalarDistribution([&](auto tag) {
    using Dist = typename decltype(tag)::type;
    Op& forward = RegisterOp(OpName<Dist>());
    Op& backward = RegisterOp(BackwardOpName<Dist>());
    forward.set_attr<FCompute>(attr_name, FCompute(DensityCompute<xpu, Dist>));
    backward.set_attr<FCompute>(attr_name, FCompute(DensityBackwardCompute<xpu, Dist>));
  });
  RegisterOp(OpName<dirichlet_pdf>())
      .set_attr<FCompute>(attr_name, FCompute(DirichletCompute<xpu>));
  RegisterOp(BackwardOpName<dirichlet_pdf>())
      .set_attr<FCompute>(attr_name, FCompute(DirichletBackwardCompute<xpu>));
}

}  // namespace pdf
}  // namespace ops

#endif  // OPS_PDF_INL_H_
