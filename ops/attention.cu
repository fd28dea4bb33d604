// FCompute<gpu> of the attention products and div_sqrt_dim (attention-inl.h).
#include "mshadow/tensor.h"
#include "ops/attention-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace attention {
namespace {

const bool kRegistered = [] {
  SetAttentionCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace attention
}  // namespace ops
