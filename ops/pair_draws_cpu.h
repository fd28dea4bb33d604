// ops/pair_draws_cpu.h: the draws of ops/pair_draws.h on the CPU's SIMD packets, threaded: the
// same uniforms as DrawPair's, so the same values to the rounding of the packet functions
// (through libm one element at a time, a normal pair's log, square root, sine and cosine had
// been most of _random_normal's time).
#ifndef OPS_PAIR_DRAWS_CPU_H_
#define OPS_PAIR_DRAWS_CPU_H_

#include <cstdint>
#include <tuple>

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
// kLanes whole blocks on packets (their uniforms into packets, the distribution on them, the
// pairs interleaved into the output), the rest one block at a time. Callers start begin at a
// multiple of kLanes, so that the split of the work does not move the runs.
template <typename Draw, int kReq, typename DType, typename... Args>
void DrawPairsOnCpu(DType* out, index_t n, const mshadow::PhiloxKey& key, uint64_t counter,
                    index_t begin, index_t end, Args... args) {
  using Real = DrawType<DType>;
  using P = vec::Full<Real>;
  constexpr index_t kLanes = P::kSize;
  alignas(64) Real u[kLanes], v[kLanes], first[kLanes], second[kLanes];
  index_t b = begin;
  for (; b + kLanes <= end && (b + kLanes) * kPerBlock <= n; b += kLanes) {
    for (index_t j = 0; j < kLanes; ++j) {
      // One block at a time: the compiler's SIMD form of the rounds (32 x 32 -> 64-bit
      // multiplies in lanes, with their shuffles) ran slower (docs/benchmarks.md).
      const mshadow::PhiloxBlock block =
          mshadow::Philox4x32(key, counter + static_cast<uint64_t>(b + j));
      u[j] = Unit<Real>(block, 0);
      v[j] = Unit<Real>(block, 1);
    }
    P x, y;
    PacketDraw<Draw>::template Pair<Real>(P::Load(u), P::Load(v), args..., &x, &y);
    x.Store(first);
    y.Store(second);
    DType* to = out + b * kPerBlock;
    for (index_t j = 0; j < kLanes; ++j) {
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
  constexpr index_t kPieceBlocks = vec::Full<DrawType<DType>>::kSize * 16;
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
