// FCompute<gpu> of _contrib_bipartite_matching (bipartite_matching-inl.h): a block per matrix
// takes the best free candidate, matches it if it passes, and looks again; the CPU's sorted
// walk picks the same candidates (every candidate it skips has a row or column matched before
// it is reached, and stays so).
#include <cub/block/block_reduce.cuh>

#include "mshadow/cuda/check.h"
#include "mshadow/tensor.h"
#include "ops/bipartite_matching-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace bipartite_matching {
namespace {

constexpr int kThreads = 256;

template <typename DType>
struct Candidate {
  DType score;
  index_t at;  // -1: none
};

// The candidate taken first of two.
template <typename DType>
struct FirstTaken {
  bool ascend;
  __device__ Candidate<DType> operator()(const Candidate<DType>& a,
                                         const Candidate<DType>& b) const {
    if (a.at < 0) return b;
    if (b.at < 0) return a;
    return Precedes(a.score, a.at, b.score, b.at, ascend) ? a : b;
  }
};

template <typename DType>
__global__ void __launch_bounds__(kThreads)
    MatchKernel(DType* all_row_of, DType* all_col_of, const DType* scores, index_t rows,
                index_t cols, Rule rule) {
  using Reduce = cub::BlockReduce<Candidate<DType>, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ bool done;
  const index_t item = blockIdx.x;
  const DType* s = scores + item * rows * cols;
  DType* row_of = all_row_of + item * rows;
  DType* col_of = all_col_of + item * cols;
  for (index_t r = threadIdx.x; r < rows; r += kThreads) row_of[r] = DType(-1);
  for (index_t c = threadIdx.x; c < cols; c += kThreads) col_of[c] = DType(-1);
  __syncthreads();
  for (index_t matched = 0; matched < rule.limit; ++matched) {
    Candidate<DType> best{DType(0), -1};
    const FirstTaken<DType> first{rule.ascend};
    for (index_t k = threadIdx.x; k < rows * cols; k += kThreads) {
      if (row_of[k / cols] == DType(-1) && col_of[k % cols] == DType(-1)) {
        best = first(best, Candidate<DType>{s[k], k});
      }
    }
    best = Reduce(temp).Reduce(best, first);
    if (threadIdx.x == 0) {
      done = best.at < 0 || !Passes(best.score, rule);
      if (!done) {
        row_of[best.at / cols] = static_cast<DType>(best.at % cols);
        col_of[best.at % cols] = static_cast<DType>(best.at / cols);
      }
    }
    __syncthreads();
    if (done) break;
  }
}

const bool kRegistered = [] {
  SetBipartiteMatchingCompute<gpu>();
  return true;
}();

}  // namespace

template <typename DType>
void MatchOnGpu(mshadow::Stream<gpu>* s, DType* row_of, DType* col_of, const DType* scores,
                index_t matrices, index_t rows, index_t cols, Rule rule) {
  CHECK_LE(matrices, index_t{0x7fffffff}) << "_contrib_bipartite_matching: too many matrices";
  MatchKernel<<<static_cast<unsigned>(matrices), kThreads, 0, mshadow::Stream<gpu>::GetStream(s)>>>(
      row_of, col_of, scores, rows, cols, rule);
  MSHADOW_CUDA_CHECK_LAUNCH("MatchKernel");
}

template void MatchOnGpu<float>(mshadow::Stream<gpu>*, float*, float*, const float*, index_t,
                                index_t, index_t, Rule);
template void MatchOnGpu<double>(mshadow::Stream<gpu>*, double*, double*, const double*, index_t,
                                 index_t, index_t, Rule);

}  // namespace bipartite_matching
}  // namespace ops
