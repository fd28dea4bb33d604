// FCompute<gpu> of Crop and its gradient (crop-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/crop-inl.h"

namespace ops {
namespace crop {
namespace {

const bool kRegistered = [] {
  SetCropCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace crop
}  // namespace ops
