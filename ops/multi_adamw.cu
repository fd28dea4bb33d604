// FCompute<gpu> of _multi_adamw_update and _multi_mp_adamw_update (multi_adamw-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/multi_adamw-inl.h"

namespace ops {
namespace optimizer {
namespace {

const bool kRegistered = [] {
  SetMultiAdamWCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace ops
