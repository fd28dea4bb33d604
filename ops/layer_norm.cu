// FCompute<gpu> of LayerNorm (layer_norm-inl.h).
#include "mshadow/tensor.h"
#include "ops/layer_norm-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace layer_norm {
namespace {

const bool kRegistered = [] {
  SetLayerNormCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace layer_norm
}  // namespace ops
