// FCompute<gpu> of GridGenerator, BilinearSampler, SpatialTransformer and their backward
// operators (spatial_transformer-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/spatial_transformer-inl.h"

namespace ops {
namespace spatial_transformer {
namespace {

const bool kRegistered = [] {
  SetSpatialTransformerCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace spatial_transformer
}  // namespace ops
