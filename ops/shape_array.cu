// FCompute<gpu> of shape_array and size_array (shape_array-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/shape_array-inl.h"

namespace ops {
namespace shape_array {
namespace {

const bool kRegistered = [] {
  SetShapeArrayCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace shape_array
}  // namespace ops
