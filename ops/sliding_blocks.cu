// FCompute<gpu> of im2col, col2im and their gradients
// (sliding_blocks-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/sliding_blocks-inl.h"

namespace ops {
namespace sliding_blocks {
namespace {

const bool kRegistered = [] {
  SetSlidingBlocksCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace sliding_blocks
}  // namespace ops
