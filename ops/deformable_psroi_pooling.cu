// FCompute<gpu> of _contrib_DeformablePSROIPooling and its backward operator
// (deformable_psroi_pooling-inl.h).
#include "mshadow/tensor.h"
#include "ops/deformable_psroi_pooling-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace deformable_psroi_pooling {
namespace {

const bool kRegistered = [] {
  SetDeformablePSROIPoolingCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace deformable_psroi_pooling
}  // namespace ops
