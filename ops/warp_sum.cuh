// ops/warp_sum.cuh: the sum of a value over a warp's 32 lanes, every lane getting it (the
// reductions of the GPU's own normalization kernels). CUDA translation units only.
#ifndef OPS_WARP_SUM_CUH_
#define OPS_WARP_SUM_CUH_

namespace ops {
namespace cuda {

constexpr int kWarpSize = 32;

template <typename DType>
__device__ DType WarpSum(DType value) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  }
  return value;
}

}  // namespace cuda
}  // namespace ops

#endif  // OPS_WARP_SUM_CUH_
