// FCompute<gpu> of gather_nd and scatter_nd (gather_nd-inl.h).
#include "mshadow/tensor.h"
#include "ops/gather_nd-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace gather_nd {
namespace {

const bool kRegistered = [] {
  SetGatherNDCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace gather_nd
}  // namespace ops
