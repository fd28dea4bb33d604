// FCompute<gpu> of multi_sum_sq and multi_lars (lars-inl.h), and the GPU's parts of a sum of
// squares: a thread block per part of kSumPart elements, its threads reading consecutive
// elements, their sums added by warp shuffles and then across the block's warps.
#include <type_traits>

#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/lars-inl.h"
#include "ops/warp_sum.cuh"

namespace ops {
namespace lars {
namespace {

constexpr int kThreads = 256;

template <typename DType>
__global__ void __launch_bounds__(kThreads)
    PartSumsOfSquaresKernel(const DType* x, index_t n, double* parts) {
  using Acc = std::conditional_t<std::is_same_v<DType, double>, double, float>;
  const index_t first = static_cast<index_t>(blockIdx.x) * kSumPart;
  const index_t end = first + kSumPart < n ? first + kSumPart : n;
  Acc sum = 0;
  for (index_t i = first + threadIdx.x; i < end; i += kThreads) {
    const Acc v = static_cast<Acc>(x[i]);
    sum += v * v;
  }
  sum = cuda::WarpSum(sum);
  __shared__ Acc warp_sums[kThreads / cuda::kWarpSize];
  const int warp = threadIdx.x / cuda::kWarpSize, lane = threadIdx.x % cuda::kWarpSize;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    double total = 0;
    for (int w = 0; w < kThreads / cuda::kWarpSize; ++w) total += warp_sums[w];
    parts[blockIdx.x] = total;
  }
}

}  // namespace

void SumOfSquares<gpu>::Parts(const TBlob& x, mshadow::Stream<gpu>* s, double* parts) {
  const index_t n = x.Size(), count = PartsOf(n);
  if (count == 0) return;
  MSHADOW_REAL_TYPE_SWITCH_EX(x.type_flag_, DType, {
    PartSumsOfSquaresKernel<DType>
        <<<static_cast<unsigned>(count), kThreads, 0, mshadow::Stream<gpu>::GetStream(s)>>>(
            x.dptr<DType>(), n, parts);
  });
  MSHADOW_CUDA_CHECK_LAUNCH("PartSumsOfSquaresKernel");
}

namespace {

const bool kRegistered = [] {
  SetLARSCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace lars
}  // namespace ops
