// FCompute<gpu> of _contrib_ROIAlign and its gradient (roi_align-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/roi_align-inl.h"

namespace ops {
namespace roi_align {
namespace {

const bool kRegistered = [] {
  SetROIAlignCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace roi_align
}  // namespace ops
