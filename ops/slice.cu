// FCompute<gpu> of slice / crop (slice-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/slice-inl.h"

namespace ops {
namespace slice {
namespace {

const bool kRegistered = [] {
  SetSliceCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace slice
}  // namespace ops
