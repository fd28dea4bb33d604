// FCompute<gpu> of ROIPooling and its backward operator (roi_pooling-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/roi_pooling-inl.h"

namespace ops {
namespace roi_pooling {
namespace {

const bool kRegistered = [] {
  SetROIPoolingCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace roi_pooling
}  // namespace ops
