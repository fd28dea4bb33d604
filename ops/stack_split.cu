// FCompute<gpu> of stack and split (stack_split-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/stack_split-inl.h"

namespace ops {
namespace stack_split {
namespace {

const bool kRegistered = [] {
  SetStackSplitCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace stack_split
}  // namespace ops
