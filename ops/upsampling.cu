// FCompute<gpu> of UpSampling (upsampling-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/upsampling-inl.h"

namespace ops {
namespace upsampling {
namespace {

const bool kRegistered = [] {
  SetUpSamplingCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace upsampling
}  // namespace ops
