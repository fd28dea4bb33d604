// FCompute<gpu> of the batched adaptive updates (multi_adaptive_optimizer-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/multi_adaptive_optimizer-inl.h"

namespace ops {
namespace optimizer {
namespace {

const bool kRegistered = [] {
  SetMultiAdaptiveOptimizerCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace ops
