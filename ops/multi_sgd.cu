// FCompute<gpu> of the batched SGD updates (multi_sgd-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/multi_sgd-inl.h"

namespace ops {
namespace optimizer {
namespace {

const bool kRegistered = [] {
  SetMultiSGDCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace ops
