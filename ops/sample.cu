// FCompute<gpu> of the sampling operators (sample-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/sample-inl.h"

namespace ops {
namespace sample {
namespace {

const bool kRegistered = [] {
  SetSampleCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace sample
}  // namespace ops
