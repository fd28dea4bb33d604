// FCompute<gpu> of Convolution (convolution-inl.h).
#include "mshadow/tensor.h"
#include "ops/convolution-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace convolution {
namespace {

const bool kRegistered = [] {
  SetConvolutionCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace convolution
}  // namespace ops
