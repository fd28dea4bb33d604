// FCompute<gpu> of _contrib_DeformableConvolution and its backward operator
// (deformable_convolution-inl.h).
#include "mshadow/tensor.h"
#include "ops/deformable_convolution-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace deformable_convolution {
namespace {

const bool kRegistered = [] {
  SetDeformableConvolutionCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace deformable_convolution
}  // namespace ops
