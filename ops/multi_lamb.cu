// FCompute<gpu> of _multi_lamb_update and _multi_mp_lamb_update (multi_lamb-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/multi_lamb-inl.h"

namespace ops {
namespace optimizer {
namespace {

const bool kRegistered = [] {
  SetMultiLambCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace ops
