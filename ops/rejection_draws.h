// ops/rejection_draws.h: draws that take a varying number of uniforms, for every device: gamma
// (Marsaglia and Tsang's squeeze and rejection), Poisson (Knuth's products below a mean of 10,
// Hormann's transformed rejection PTRS above), and the negative binomials as gamma-Poisson
// mixtures.
//
// Element i of a call reads its own sequence: Philox4x32 blocks at counter range.counter + i
// in streams 0, 1, 2, ... (the high half of Philox's 128-bit counter), four words each, so
// its value depends on the seed, the call and i alone, never on the thread count, the device
// or how many uniforms the other elements rejected. The arithmetic is in double for every
// output type (lgamma's Stirling series, the rejection tests).
#ifndef OPS_REJECTION_DRAWS_H_
#define OPS_REJECTION_DRAWS_H_

#include <cmath>
#include <cstdint>

#include "mshadow/base.h"
#include "mshadow/philox.h"
#include "ops/op_types.h"

namespace ops {
namespace sample {

// Element i's uniforms in [0, 1), 53 bits each, two from each block of its sequence.
class ElementUniforms {
 public:
  MSHADOW_XINLINE ElementUniforms(const PhiloxRange& range, index_t i)
      : key_(mshadow::PhiloxKeyFromSeed(range.seed)),
        counter_(range.counter + static_cast<uint64_t>(i)) {}

  MSHADOW_XINLINE double Next() {
    if (half_ == 2) {
      block_ = mshadow::Philox4x32(key_, counter_, stream_++);
      half_ = 0;
    }
    const int h = half_++;
    return mshadow::UnitDouble(block_.w[2 * h], block_.w[2 * h + 1]);
  }

  // A standard normal draw (Box-Muller's cosine; its sine is not kept).
  MSHADOW_XINLINE double Normal() {
    const double u1 = Next(), u2 = Next();
    return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  mshadow::PhiloxKey key_;
  uint64_t counter_;
  uint64_t stream_ = 0;
  mshadow::PhiloxBlock block_{};
  int half_ = 2;
};

// log(k!) for k >= 0: a sum below 16, Stirling's series (error below 1e-15 relative) above.
// (libm's lgamma writes the global signgam: a data race between threads.)
MSHADOW_XINLINE double LogFactorial(double k) {
  if (k < 16) {
    double sum = 0;
    for (double j = 2; j <= k; j += 1) sum += std::log(j);
    return sum;
  }
  const double x = k + 1, inverse = 1.0 / x, inverse2 = inverse * inverse;
  return (x - 0.5) * std::log(x) - x + 0.91893853320467274178 +
         inverse * (1.0 / 12 - inverse2 * (1.0 / 360 - inverse2 * (1.0 / 1260 - inverse2 / 1680)));
}

// Gamma of shape alpha > 0 and scale beta (mean alpha * beta).
MSHADOW_XINLINE double GammaDraw(ElementUniforms* u, double alpha, double beta) {
  // alpha < 1: a draw of alpha + 1 times U^(1 / alpha).
  const double a = alpha < 1 ? alpha + 1 : alpha;
  const double d = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  double value;
  for (;;) {
    const double x = u->Normal();
    double v = 1.0 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double w = u->Next(), x2 = x * x;
    if (w < 1.0 - 0.0331 * x2 * x2 || std::log(w) < 0.5 * x2 + d * (1.0 - v + std::log(v))) {
      value = d * v;
      break;
    }
  }
  if (alpha < 1) value *= std::pow(1.0 - u->Next(), 1.0 / alpha);
  return value * beta;
}

// Poisson of mean lam >= 0.
MSHADOW_XINLINE double PoissonDraw(ElementUniforms* u, double lam) {
  if (lam < 10) {  // Knuth: the number of uniforms whose product stays above e^-lam
    const double limit = std::exp(-lam);
    double k = 0, product = u->Next();
    while (product > limit) {
      k += 1;
      product *= u->Next();
    }
    return k;
  }
  // Hormann (1993), "The transformed rejection method for generating Poisson random
  // variables", PTRS.
  const double slam = std::sqrt(lam), loglam = std::log(lam);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double U = u->Next() - 0.5, V = u->Next();
    const double us = 0.5 - (U < 0 ? -U : U);
    const double k = std::floor((2 * a / us + b) * U + lam + 0.43);
    if (us >= 0.07 && V <= vr) return k;
    if (k < 0 || (us < 0.013 && V > us)) continue;
    if (std::log(V) + std::log(inv_alpha) - std::log(a / (us * us) + b) <=
        -lam + k * loglam - LogFactorial(k)) {
      return k;
    }
  }
}

// Failures before k successes of probability p in (0, 1]: Poisson of a Gamma(k, (1 - p) / p)
// mean.
MSHADOW_XINLINE double NegativeBinomialDraw(ElementUniforms* u, double k, double p) {
  if (p >= 1) return 0;
  return PoissonDraw(u, GammaDraw(u, k, (1 - p) / p));
}

// Mean mu, variance mu + alpha mu^2: Poisson of a Gamma(1 / alpha, alpha mu) mean (of mu
// itself for alpha = 0).
MSHADOW_XINLINE double GeneralizedNegativeBinomialDraw(ElementUniforms* u, double mu,
                                                       double alpha) {
  if (alpha == 0 || mu == 0) return PoissonDraw(u, mu);
  return PoissonDraw(u, GammaDraw(u, 1 / alpha, alpha * mu));
}

}  // namespace sample
}  // namespace ops

#endif  // OPS_REJECTION_DRAWS_H_
