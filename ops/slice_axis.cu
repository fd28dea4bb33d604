// FCompute<gpu> of slice_axis (slice_axis-inl.h).
#include "mshadow/tensor.h"
#include "ops/slice_axis-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace slice_axis {
namespace {

const bool kRegistered = [] {
  SetSliceAxisCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace slice_axis
}  // namespace ops
