// FCompute<gpu> of the binary elementwise operators (elemwise_binary-inl.h).
#include "mshadow/tensor.h"
#include "ops/elemwise_binary-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace binary {
namespace {

const bool kRegistered = [] {
  SetBinaryCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace binary
}  // namespace ops
