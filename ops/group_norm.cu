// FCompute<gpu> of GroupNorm and InstanceNorm (group_norm-inl.h).
#include "mshadow/tensor.h"
#include "ops/group_norm-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace group_norm {
namespace {

const bool kRegistered = [] {
  SetGroupNormCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace group_norm
}  // namespace ops
