// FCompute<gpu> of FullyConnected (fully_connected-inl.h).
#include "mshadow/cuda/gemm_bias.h"
#include "mshadow/tensor.h"
#include "ops/fully_connected-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace fully_connected {

// y (batch x hidden, row-major) is, column-major, the hidden x batch product
// weight^T-stored (transposed) times data, with the bias added to each of its columns.
template <typename DType>
struct FusedGemmBias<gpu, DType> {
  static bool Run(mshadow::Stream<gpu>* stream, Tensor<gpu, 2, DType> data,
                  Tensor<gpu, 2, DType> weight, Tensor<gpu, 1, DType> bias,
                  Tensor<gpu, 2, DType> y) {
    return mshadow::cuda::GemmBias(
        stream, /*transa=*/true, /*transb=*/false, static_cast<int>(y.size(1)),
        static_cast<int>(y.size(0)), static_cast<int>(data.size(1)), weight.dptr_,
        static_cast<int>(weight.stride_), data.dptr_, static_cast<int>(data.stride_), bias.dptr_,
        y.dptr_, static_cast<int>(y.stride_));
  }
};

namespace {

const bool kRegistered = [] {
  SetFullyConnectedCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace fully_connected
}  // namespace ops
