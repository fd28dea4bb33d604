// FCompute<gpu> of the _sample_ operators
// (multisample-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/multisample-inl.h"

namespace ops {
namespace multisample {
namespace {

const bool kRegistered = [] {
  SetMultiSampleCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace multisample
}  // namespace ops
