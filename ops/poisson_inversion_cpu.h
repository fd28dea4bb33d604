// ops/poisson_inversion_cpu.h: Poisson draws of one mean below 10 on the CPU, the values
// PoissonDraw gives element by element (ops/rejection_draws.h), many at a time: element i's
// one uniform is the first of its own sequence (Philox block counter + i of stream 0, from
// SIMD lanes, mshadow/cpu/philox_lanes.h), and its draw the count of inversion's cumulative
// sums below it (PoissonInversionSums, computed once a call), counted for a run of elements
// at once instead of searched element by element (a mispredicted branch a draw).
#ifndef OPS_POISSON_INVERSION_CPU_H_
#define OPS_POISSON_INVERSION_CPU_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "mshadow/cpu/philox_lanes.h"
#include "ops/kernel_launch.h"
#include "ops/rejection_draws.h"
#include "ops/vector_loop.h"

namespace ops {
namespace sample {

// out[i] (written as req says) = the draw of element i of a call whose random blocks start at
// range (PoissonDraw's, for a float64 output from 53-bit uniforms, 32-bit ones otherwise).
template <typename DType>
void PoissonInversionOnCpu(OpReqType req, DType* out, index_t n, PhiloxRange range,
                           const PoissonInversionSums& sums) {
  constexpr bool kWide = std::is_same_v<DType, double>;
  constexpr index_t kRun = mshadow::kPhiloxLaneBlocks;
  constexpr index_t kPiece = 64 * kRun;  // elements a thread takes at a time
  // A draw costs about what a few elements of a map do.
  constexpr index_t kWeight = 4;
  const mshadow::PhiloxKey key = mshadow::PhiloxKeyFromSeed(range.seed);
  OPS_REQ_SWITCH(req, kReq, {
    ParallelRows((n + kPiece - 1) / kPiece, kPiece * kWeight, [&](index_t p0, index_t p1) {
      mshadow::PhiloxLaneWords words;
      alignas(64) double u[kRun];
      alignas(64) int32_t k[kRun];
      const index_t end = std::min(n, p1 * kPiece);
      index_t i = p0 * kPiece;
      for (; i + kRun <= end; i += kRun) {
        mshadow::PhiloxLanes(key, range.counter + static_cast<uint64_t>(i), 0, &words);
        double largest = 0;
        OPS_SIMD_LOOP
        for (index_t j = 0; j < kRun; ++j) {
          // ElementUniforms's first uniform of element i + j.
          u[j] = ElementUniforms<kWide>::FromWords(words.w[0][j], words.w[1][j]);
          k[j] = 0;
        }
        for (index_t j = 0; j < kRun; ++j) largest = std::max(largest, u[j]);
        // Sums at or above the run's largest uniform count for none of its elements.
        for (int s = 0; s < sums.count && largest > sums.sum[s]; ++s) {
          const double sum = sums.sum[s];
          OPS_SIMD_LOOP
          for (index_t j = 0; j < kRun; ++j) k[j] += u[j] > sum;
        }
        for (index_t j = 0; j < kRun; ++j) {
          AssignReq<kReq>(out + i + j, static_cast<DType>(static_cast<double>(k[j])));
        }
      }
      for (; i < end; ++i) {
        ElementUniforms<kWide> uniforms(range, i);
        AssignReq<kReq>(out + i, static_cast<DType>(sums.Draw(uniforms.Next())));
      }
    });
  });
}

}  // namespace sample
}  // namespace ops

#endif  // OPS_POISSON_INVERSION_CPU_H_
