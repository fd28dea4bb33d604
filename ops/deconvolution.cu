// FCompute<gpu> of Deconvolution (deconvolution-inl.h).
#include "mshadow/tensor.h"
#include "ops/deconvolution-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace deconvolution {
namespace {

const bool kRegistered = [] {
  SetDeconvolutionCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace deconvolution
}  // namespace ops
