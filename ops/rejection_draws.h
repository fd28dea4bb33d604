// ops/rejection_draws.h: draws that take a varying number of uniforms, for every device: gamma
// (Marsaglia and Tsang's squeeze and rejection), Poisson (inversion below a mean of 10, Hormann's
// transformed rejection PTRS above), and the negative binomials as gamma-Poisson
// mixtures.
//
// Element i of a call reads its own sequence: Philox4x32 blocks at counter range.counter + i
// in streams 0, 1, 2, ... (the high half of Philox's 128-bit counter), so its value depends
// on the seed, the call, i and the output's width alone, never on the thread count, the
// device or how many uniforms the other elements rejected. The arithmetic is in double for
// every output type (log k! by Stirling's series, the rejection tests).
#ifndef OPS_REJECTION_DRAWS_H_
#define OPS_REJECTION_DRAWS_H_

#include <cmath>
#include <cstdint>

#include "mshadow/base.h"
#include "mshadow/philox.h"
#include "ops/op_types.h"

namespace ops {
namespace sample {

// Element i's uniforms in (0, 1]: for a float64 output 53 bits each, two from each Philox
// block of its sequence; for the narrower outputs 32 bits each, four a block. Normal draws
// come in Box-Muller pairs, the second kept for the next call.
template <bool kWide>
class ElementUniforms {
 public:
  MSHADOW_XINLINE ElementUniforms(const PhiloxRange& range, index_t i)
      : key_(mshadow::PhiloxKeyFromSeed(range.seed)),
        counter_(range.counter + static_cast<uint64_t>(i)) {}

  MSHADOW_XINLINE double Next() {
    constexpr int kPerBlock = kWide ? 2 : 4;
    if (used_ == kPerBlock) {
      block_ = mshadow::Philox4x32(key_, counter_, stream_++);
      used_ = 0;
    }
    const int k = used_++;
    return kWide ? FromWords(block_.w[2 * k], block_.w[2 * k + 1]) : FromWords(block_.w[k], 0);
  }

  // A uniform in (0, 1] from a block's words: for kWide 53 bits of two, then half a step up
  // (never 0); otherwise the middle of the first word's step.
  MSHADOW_XINLINE static double FromWords(uint32_t first, uint32_t second) {
    if constexpr (kWide) {
      return mshadow::UnitDouble(first, second) + 0x1p-54;
    } else {
      return (static_cast<double>(first) + 0.5) * 0x1p-32;
    }
  }

  // A standard normal draw.
  // Box-Muller's pair is radius (cos, sin) of the angle; the sine is taken only when the
  // spare is asked for (most draws ask for one normal: the sine was a third of Gamma's time).
  MSHADOW_XINLINE double Normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_radius_ * std::sin(spare_angle_);
    }
    const double radius = std::sqrt(-2.0 * std::log(Next())), angle = 6.283185307179586 * Next();
    spare_radius_ = radius;
    spare_angle_ = angle;
    has_spare_ = true;
    return radius * std::cos(angle);
  }

 private:
  mshadow::PhiloxKey key_;
  uint64_t counter_;
  uint64_t stream_ = 0;
  mshadow::PhiloxBlock block_{};
  int used_ = kWide ? 2 : 4;
  bool has_spare_ = false;
  double spare_radius_ = 0, spare_angle_ = 0;
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
template <typename Uniforms>
MSHADOW_XINLINE double GammaDraw(Uniforms* u, double alpha, double beta) {
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
  if (alpha < 1) value *= std::pow(u->Next(), 1.0 / alpha);
  return value * beta;
}

// What a Poisson draw of mean lam >= 0 computes from lam alone, once for every draw of that
// mean: below a mean of 10, e^-lam for inversion; above, the constants of Hormann's
// transformed rejection (PTRS).
struct PoissonMean {
  double lam;
  double exp_minus_lam = 0;                                    // inversion
  double log_lam = 0, b = 0, a = 0, log_inv_alpha = 0, vr = 0;  // PTRS

  static constexpr double kInversionBelow = 10;

  MSHADOW_XINLINE explicit PoissonMean(double mean) : lam(mean) {
    if (lam < kInversionBelow) {
      exp_minus_lam = std::exp(-lam);
      return;
    }
    log_lam = std::log(lam);
    b = 0.931 + 2.53 * std::sqrt(lam);
    a = -0.059 + 0.02483 * b;
    log_inv_alpha = std::log(1.1239 + 1.1328 / (b - 3.4));
    vr = 0.9277 - 3.6224 / (b - 2);
  }
};

// Inversion's walk over P(X <= k), k = 0, 1, ...: the one sequence of additions both the
// search (PoissonDraw) and the CPU's sums (PoissonInversionSums) take, so they agree bit for
// bit.
struct PoissonInversionStep {
  double lam, k = 0, term, cumulative;

  MSHADOW_XINLINE explicit PoissonInversionStep(const PoissonMean& m)
      : lam(m.lam), term(m.exp_minus_lam), cumulative(m.exp_minus_lam) {}

  // To k + 1; false, with k moved on and the sum kept, where the sum stops growing.
  MSHADOW_XINLINE bool Next() {
    k += 1;
    term *= lam / k;
    const double next = cumulative + term;
    if (next == cumulative) return false;
    cumulative = next;
    return true;
  }
};

// Inversion's cumulative probabilities for a mean below PoissonMean::kInversionBelow, each
// sum as PoissonDraw's search computes it: its draw for a uniform u is the count of sums
// below u (Draw), which the CPU counts for many uniforms at once. Up to kMaxSums sums: the
// search stops where they stop growing (at most 48 below a mean of 10).
struct PoissonInversionSums {
  static constexpr int kMaxSums = 64;
  double sum[kMaxSums];
  int count = 0;

  // The sums of m; count 0 where m needs more than kMaxSums (never below a mean of 10).
  MSHADOW_XINLINE explicit PoissonInversionSums(const PoissonMean& m) {
    PoissonInversionStep step(m);
    sum[count++] = step.cumulative;
    while (step.Next()) {
      if (count == kMaxSums) {
        count = 0;
        return;
      }
      sum[count++] = step.cumulative;
    }
  }

  // The draw for uniform u: the count of sums below it.
  MSHADOW_XINLINE double Draw(double u) const {
    int k = 0;
    while (k < count && u > sum[k]) ++k;
    return k;
  }
};

// Poisson of mean m.lam.
template <typename Uniforms>
MSHADOW_XINLINE double PoissonDraw(Uniforms* u, const PoissonMean& m) {
  if (m.lam < PoissonMean::kInversionBelow) {
    // Inversion: the first k whose cumulative probability reaches one uniform (Knuth's
    // products took lam + 1 uniforms and more Philox blocks). A uniform past every sum that
    // rounding lets the cumulative probability reach ends the search where the sum stops
    // growing.
    const double target = u->Next();
    PoissonInversionStep step(m);
    while (target > step.cumulative && step.Next()) {}
    return step.k;
  }
  // Hormann (1993), "The transformed rejection method for generating Poisson random
  // variables", PTRS.
  for (;;) {
    const double U = u->Next() - 0.5, V = u->Next();
    const double us = 0.5 - (U < 0 ? -U : U);
    const double k = std::floor((2 * m.a / us + m.b) * U + m.lam + 0.43);
    if (us >= 0.07 && V <= m.vr) return k;
    if (k < 0 || (us < 0.013 && V > us)) continue;
    if (std::log(V) + m.log_inv_alpha - std::log(m.a / (us * us) + m.b) <=
        -m.lam + k * m.log_lam - LogFactorial(k)) {
      return k;
    }
  }
}

// Poisson of mean lam >= 0.
template <typename Uniforms>
MSHADOW_XINLINE double PoissonDraw(Uniforms* u, double lam) {
  return PoissonDraw(u, PoissonMean(lam));
}

// Failures before k successes of probability p in (0, 1]: Poisson of a Gamma(k, (1 - p) / p)
// mean.
template <typename Uniforms>
MSHADOW_XINLINE double NegativeBinomialDraw(Uniforms* u, double k, double p) {
  if (p >= 1) return 0;
  return PoissonDraw(u, GammaDraw(u, k, (1 - p) / p));
}

// Mean mu, variance mu + alpha mu^2: Poisson of a Gamma(1 / alpha, alpha mu) mean (of mu
// itself for alpha = 0).
template <typename Uniforms>
MSHADOW_XINLINE double GeneralizedNegativeBinomialDraw(Uniforms* u, double mu, double alpha) {
  if (alpha == 0 || mu == 0) return PoissonDraw(u, mu);
  return PoissonDraw(u, GammaDraw(u, 1 / alpha, alpha * mu));
}

}  // namespace sample
}  // namespace ops

#endif  // OPS_REJECTION_DRAWS_H_
