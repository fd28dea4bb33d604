// FCompute<gpu> of adam_update, rmsprop_update and rmspropalex_update
// (adaptive_optimizer-inl.h).
#include "mshadow/tensor.h"
#include "ops/adaptive_optimizer-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace optimizer {
namespace {

const bool kRegistered = [] {
  SetAdaptiveOptimizerCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace ops
