// ops/kernel_launch_gpu.cuh: Kernel<OP, gpu>::Launch, a grid-stride CUDA kernel on the
// operator's stream (see ops/kernel_launch.h). CUDA translation units only.
#ifndef OPS_KERNEL_LAUNCH_GPU_CUH_
#define OPS_KERNEL_LAUNCH_GPU_CUH_

#include <cstdint>
#include <limits>

#include "mshadow/tensor.h"
#include "ops/kernel_launch.h"

namespace ops {
namespace cuda {

constexpr int kLaunchThreads = 256;

// OP::Map(i, args...) for i in [0, n), grid-stride; Index is 32-bit where n fits.
template <typename OP, typename Index, typename... Args>
__global__ void __launch_bounds__(kLaunchThreads) LaunchKernel(const Index n, Args... args) {
  const Index step = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    OP::Map(static_cast<index_t>(i), args...);
  }
}

// fn(Index()) for a grid-stride loop over n items, `per_block` a block per step: Index is
// uint32_t where its positions (and one grid step past them) fit (mshadow::cuda::FitsUint32),
// uint64_t otherwise. Kernels index in 32 bits where they can: a GPU divides 64-bit integers
// in software.
template <typename Fn>
void WithGridIndex(index_t n, index_t per_block, Fn&& fn) {
  if (mshadow::cuda::FitsUint32(n, per_block)) {
    fn(uint32_t{});
  } else {
    fn(uint64_t{});
  }
}

}  // namespace cuda

template <typename OP>
struct Kernel<OP, gpu> {
  template <typename... Args>
  static void Launch(mshadow::Stream<gpu>* stream, index_t n, Args... args) {
    if (n <= 0) return;
    const unsigned grid = mshadow::cuda::GridFor(n, cuda::kLaunchThreads);
    const cudaStream_t s = mshadow::Stream<gpu>::GetStream(stream);
    cuda::WithGridIndex(n, cuda::kLaunchThreads, [&](auto index) {
      using Index = decltype(index);
      cuda::LaunchKernel<OP, Index>
          <<<grid, cuda::kLaunchThreads, 0, s>>>(static_cast<Index>(n), args...);
    });
    MSHADOW_CUDA_CHECK_LAUNCH("ops::Kernel::Launch");
  }

  // One thread per index whatever its work (see Kernel<OP, cpu>::LaunchItems).
  template <typename... Args>
  static void LaunchItems(mshadow::Stream<gpu>* stream, index_t n, index_t /*work_per_item*/,
                          Args... args) {
    Launch(stream, n, args...);
  }
};

}  // namespace ops

#endif  // OPS_KERNEL_LAUNCH_GPU_CUH_
