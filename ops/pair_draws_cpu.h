// ops/pair_draws_cpu.h: the draws of ops/pair_draws.h on the CPU's SIMD packets, threaded: the
// same uniforms as DrawPair's, so the same values to the rounding of the packet functions
// (through libm one element at a time, a normal pair's log, square root, sine and cosine had
// been most of _random_normal's time).
#ifndef OPS_PAIR_DRAWS_CPU_H_
#define OPS_PAIR_DRAWS_CPU_H_

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "mshadow/cpu/philox_lanes.h"
#include "ops/pair_draws.h"
#include "ops/vector_loop.h"

namespace ops {
namespace sample {

// Each distribution on packets of the uniforms u (a block's first) and v (its second): the
// values of the pair's two elements, as Draw::Value computes them one at a time.
template <typename Draw>
struct PacketDraw;

template <>
struct PacketDraw<uniform_draw> {
  template <typename Real, typename P, typename A>
  static void Pair(P u, P v, A low, A high, P* first, P* second) {
    const P span = P::Fill(Real(high) - Real(low));
    *first = P::Fill(Real(low)) + span * u;
    *second = P::Fill(Real(low)) + span * v;
  }
};

template <>
struct PacketDraw<exponential_draw> {
  template <typename Real, typename P, typename A>
  static void Pair(P u, P v, A lam, P* first, P* second) {
    using mshadow::packet::Log;
    const P one = P::Fill(Real(1)), rate = P::Fill(Real(lam));
    *first = (P::Fill(Real(0)) - Log(one - u)) / rate;
    *second = (P::Fill(Real(0)) - Log(one - v)) / rate;
  }
};

template <>
struct PacketDraw<normal_draw> {
  template <typename Real, typename P, typename A>
  static void Pair(P u, P v, A loc, A scale, P* first, P* second) {
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

// Blocks [begin, end) of the run of n draws at out whose block 0 is at counter: runs of
// kPhiloxLaneBlocks whole blocks from SIMD lanes (mshadow/cpu/philox_lanes.h), their uniforms
// into packets, the distribution on them, the pairs interleaved into the output; the rest one
// block at a time. Callers start begin at a multiple of kPhiloxLaneBlocks, so that the split of
// the work does not move the runs.
template <typename Draw, int kReq, typename DType, typename... Args>
void DrawPairsOnCpu(DType* out, index_t n, const mshadow::PhiloxKey& key, uint64_t counter,
                    index_t begin, index_t end, Args... args) {
  using Real = DrawType<DType>;
  using P = vec::Full<Real>;
  constexpr index_t kLanes = P::kSize, kRun = mshadow::kPhiloxLaneBlocks;
  static_assert(kRun % kLanes == 0, "a run of whole packets");
  mshadow::PhiloxLaneWords words;
  alignas(64) Real u[kRun], v[kRun], first[kRun], second[kRun];
  index_t b = begin;
  for (; b + kRun <= end && (b + kRun) * kPerBlock <= n; b += kRun) {
    mshadow::PhiloxLanes(key, counter + static_cast<uint64_t>(b), 0, &words);
    // Uniform k of block j from its words (Unit).
    if constexpr (std::is_same_v<Real, double>) {
      OPS_SIMD_LOOP
      for (index_t j = 0; j < kRun; ++j) {
        u[j] = mshadow::UnitDouble(words.w[0][j], words.w[1][j]);
        v[j] = mshadow::UnitDouble(words.w[2][j], words.w[3][j]);
      }
    } else {
      OPS_SIMD_LOOP
      for (index_t j = 0; j < kRun; ++j) {
        u[j] = mshadow::UnitFloat(words.w[0][j]);
        v[j] = mshadow::UnitFloat(words.w[2][j]);
      }
    }
    for (index_t j = 0; j < kRun; j += kLanes) {
      P x, y;
      PacketDraw<Draw>::template Pair<Real>(P::Load(u + j), P::Load(v + j), args..., &x, &y);
      x.Store(first + j);
      y.Store(second + j);
    }
    DType* to = out + b * kPerBlock;
    for (index_t j = 0; j < kRun; ++j) {
      AssignReq<kReq>(to + 2 * j, static_cast<DType>(first[j]));
      AssignReq<kReq>(to + 2 * j + 1, static_cast<DType>(second[j]));
    }
  }
  for (; b < end; ++b) DrawPair<Draw, kReq>(b, out, n, key, counter, args...);
}

// count runs of per draws each, one distribution each, written one after another at out:
// run i draws with the parameters parameters_of(i) (a tuple) from the blocks at
// range.counter + i * PairBlocks(per). Threads take pieces of runs, pieces that start at
// fixed blocks.
template <typename Draw, typename DType, typename ParametersOf>
void DrawRunsOnCpu(OpReqType req, DType* out, index_t count, index_t per, PhiloxRange range,
                   ParametersOf parameters_of) {
  if (req == kNullOp || count == 0 || per == 0) return;
  constexpr index_t kPieceBlocks =
      std::max<index_t>(vec::Full<DrawType<DType>>::kSize * 16, mshadow::kPhiloxLaneBlocks);
  const index_t blocks = PairBlocks(per);
  const index_t pieces = (blocks + kPieceBlocks - 1) / kPieceBlocks;
  const mshadow::PhiloxKey key = mshadow::PhiloxKeyFromSeed(range.seed);
  OPS_REQ_SWITCH(req, kReq, {
    ParallelRows(count * pieces, kPieceBlocks * kPerBlock, [&](index_t first, index_t last) {
      for (index_t t = first; t < last; ++t) {
        const index_t i = t / pieces, begin = t % pieces * kPieceBlocks;
        const index_t end = std::min(blocks, begin + kPieceBlocks);
        std::apply(
            [&](auto... args) {
              DrawPairsOnCpu<Draw, kReq>(out + i * per, per, key,
                                         range.counter + static_cast<uint64_t>(i * blocks), begin,
                                         end, args...);
            },
            parameters_of(i));
      }
    });
  });
}

}  // namespace sample
}  // namespace ops

#endif  // OPS_PAIR_DRAWS_CPU_H_
