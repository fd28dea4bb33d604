// FCompute<gpu> of the resizing operators and their gradients (resize-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/resize-inl.h"

namespace ops {
namespace resize {
namespace {

const bool kRegistered = [] {
  SetResizeCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace resize
}  // namespace ops
