// ops/pair_draws.h: the draws that take a fixed count of uniforms, for every device: uniform,
// exponential, normal (Box-Muller) and integers in a range. Philox block b of a run of draws
// gives its elements 2b and 2b + 1, each from two of the block's four words (a normal pair
// from all four), so a value depends on the seed, the run's first counter and b alone, never
// on the thread count or the device. A float draw is the top 24 bits of the float64 draw's
// 53: the same seed gives the same values in every type, to the type's precision.
// ops/pair_draws_cpu.h runs the same draws on SIMD packets.
#ifndef OPS_PAIR_DRAWS_H_
#define OPS_PAIR_DRAWS_H_

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "mshadow/philox.h"
#include "ops/kernel_launch.h"
#include "ops/op_types.h"

namespace ops {
namespace sample {

// What a distribution computes in: float for the 16- and 32-bit float types, double for
// float64, the type itself for integers.
template <typename DType>
using DrawType =
    std::conditional_t<std::is_integral_v<DType>, DType,
                       std::conditional_t<std::is_same_v<DType, double>, double, float>>;

constexpr index_t kPerBlock = 2;

// The blocks a run of n draws takes.
MSHADOW_XINLINE index_t PairBlocks(index_t n) { return (n + kPerBlock - 1) / kPerBlock; }

// Uniform k of a block's two, in [0, 1): 53 bits of words 2k and 2k + 1, or the top 24 of
// them (word 2k's).
template <typename Real>
MSHADOW_XINLINE Real Unit(const mshadow::PhiloxBlock& b, int k) {
  if constexpr (std::is_same_v<Real, double>) {
    return mshadow::UnitDouble(b.w[2 * k], b.w[2 * k + 1]);
  } else {
    return mshadow::UnitFloat(b.w[2 * k]);
  }
}

// Each draw's Value<Real>(block, k, parameters...): element k of the block's pair. The
// parameters come in whatever type the caller holds them (float from an operator's
// attributes, double from the arrays of ops/multisample-inl.h) and are rounded to Real.
struct uniform_draw {
  template <typename Real, typename A>
  MSHADOW_XINLINE static Real Value(const mshadow::PhiloxBlock& b, int k, A low, A high) {
    return Real(low) + (Real(high) - Real(low)) * Unit<Real>(b, k);
  }
};

struct exponential_draw {
  // 1 - u is in (0, 1]: the log is finite.
  template <typename Real, typename A>
  MSHADOW_XINLINE static Real Value(const mshadow::PhiloxBlock& b, int k, A lam) {
    return -std::log(Real(1) - Unit<Real>(b, k)) / Real(lam);
  }
};

// Box-Muller: the block's two uniforms give a radius and an angle; element 0 of the pair
// takes the cosine, element 1 the sine.
struct normal_draw {
  template <typename Real, typename A>
  MSHADOW_XINLINE static Real Value(const mshadow::PhiloxBlock& b, int k, A loc, A scale) {
    const Real u1 = Unit<Real>(b, 0), u2 = Unit<Real>(b, 1);
    const Real radius = std::sqrt(Real(-2) * std::log(Real(1) - u1));
    const Real angle = Real(6.283185307179586) * u2;
    return Real(loc) + Real(scale) * radius * (k == 0 ? std::cos(angle) : std::sin(angle));
  }
};

// An integer in [low, low + range) from a block's two 64-bit halves (the modulo's bias is
// below range / 2^64).
struct randint_draw {
  template <typename Real>
  MSHADOW_XINLINE static Real Value(const mshadow::PhiloxBlock& b, int k, int64_t low,
                                    uint64_t range) {
    const uint64_t bits = (static_cast<uint64_t>(b.w[2 * k]) << 32) | b.w[2 * k + 1];
    return static_cast<Real>(low + static_cast<int64_t>(bits % range));
  }
};

// Elements 2b and 2b + 1 (those below n) of the run of n draws at out whose block 0 is at
// counter, written as kReq says.
template <typename Draw, int kReq, typename DType, typename... Args>
MSHADOW_XINLINE void DrawPair(index_t b, DType* out, index_t n, const mshadow::PhiloxKey& key,
                              uint64_t counter, Args... args) {
  const mshadow::PhiloxBlock block = mshadow::Philox4x32(key, counter + static_cast<uint64_t>(b));
  for (int k = 0; k < static_cast<int>(kPerBlock); ++k) {
    const index_t i = b * kPerBlock + k;
    if (i >= n) return;
    AssignReq<kReq>(out + i,
                    static_cast<DType>(Draw::template Value<DrawType<DType>>(block, k, args...)));
  }
}

// Item b: DrawPair of block b of one run of n draws.
template <typename Draw, int kReq>
struct draw_block {
  template <typename DType, typename... Args>
  MSHADOW_XINLINE static void Map(index_t b, DType* out, index_t n, PhiloxRange range,
                                  Args... args) {
    DrawPair<Draw, kReq>(b, out, n, mshadow::PhiloxKeyFromSeed(range.seed), range.counter, args...);
  }
};

}  // namespace sample
}  // namespace ops

#endif  // OPS_PAIR_DRAWS_H_
