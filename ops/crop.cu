// FCompute<gpu> of Crop and its gradient (crop-inl.h).
#include "mshadow/tensor.h"
#include "ops/crop-inl.h"
#include "ops/kernel_launch_gpu.cuh"

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
