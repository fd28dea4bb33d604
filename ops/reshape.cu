// FCompute<gpu> of Reshape, Flatten and _backward_copy (reshape-inl.h).
#include "mshadow/tensor.h"
#include "ops/reshape-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace reshape {
namespace {

const bool kRegistered = [] {
  SetCopyCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace reshape
}  // namespace ops
