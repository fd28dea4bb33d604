// FCompute<gpu> of _contrib_MultiBoxDetection and its zero gradient
// (multibox_detection-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/multibox_detection-inl.h"

namespace ops {
namespace bounding_box {
namespace {

const bool kRegistered = [] {
  SetMultiBoxDetectionCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace bounding_box
}  // namespace ops
