// FCompute<gpu> of dot and batch_dot (dot-inl.h).
#include "mshadow/tensor.h"
#include "ops/dot-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace matmul {
namespace {

const bool kRegistered = [] {
  SetDotCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace matmul
}  // namespace ops
