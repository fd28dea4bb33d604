// FCompute<gpu> of the SGD-family updates (optimizer-inl.h).
#include "mshadow/tensor.h"
#include "ops/optimizer-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace optimizer {
namespace {

const bool kRegistered = [] {
  SetOptimizerCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace ops
