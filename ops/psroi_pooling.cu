// FCompute<gpu> of _contrib_PSROIPooling and its gradient (psroi_pooling-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/psroi_pooling-inl.h"

namespace ops {
namespace psroi_pooling {
namespace {

const bool kRegistered = [] {
  SetPSROIPoolingCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace psroi_pooling
}  // namespace ops
