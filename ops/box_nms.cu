// FCompute<gpu> of _contrib_box_nms and its backward operator
// (box_nms-inl.h).
#include "mshadow/tensor.h"
#include "ops/box_nms-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace bounding_box {
namespace {

const bool kRegistered = [] {
  SetBoxNmsCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace bounding_box
}  // namespace ops
