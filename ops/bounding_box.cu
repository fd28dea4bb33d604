// FCompute<gpu> of MultiBoxPrior, box_iou and their zero gradients (bounding_box-inl.h).
#include "mshadow/tensor.h"
#include "ops/bounding_box-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace bounding_box {
namespace {

const bool kRegistered = [] {
  SetBoundingBoxCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace bounding_box
}  // namespace ops
