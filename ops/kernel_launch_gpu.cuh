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

}  // namespace cuda

template <typename OP>
struct Kernel<OP, gpu> {
  template <typename... Args>
  static void Launch(mshadow::Stream<gpu>* stream, index_t n, Args... args) {
    if (n <= 0) return;
    const unsigned grid = mshadow::cuda::GridFor(n, cuda::kLaunchThreads);
    const cudaStream_t s = mshadow::Stream<gpu>::GetStream(stream);
    if (mshadow::cuda::FitsUint32(n, cuda::kLaunchThreads)) {
      cuda::LaunchKernel<OP, uint32_t>
          <<<grid, cuda::kLaunchThreads, 0, s>>>(static_cast<uint32_t>(n), args...);
    } else {
      cuda::LaunchKernel<OP, uint64_t>
          <<<grid, cuda::kLaunchThreads, 0, s>>>(static_cast<uint64_t>(n), args...);
    }
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
