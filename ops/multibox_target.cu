// FCompute<gpu> of _contrib_MultiBoxTarget and its zero gradient (multibox_target-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/multibox_target-inl.h"

namespace ops {
namespace bounding_box {
namespace {

const bool kRegistered = [] {
  SetMultiBoxTargetCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace bounding_box
}  // namespace ops
