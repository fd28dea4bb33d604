// FCompute<gpu> of the LAMB phases (lamb-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/lamb-inl.h"

namespace ops {
namespace optimizer {
namespace {

const bool kRegistered = [] {
  SetLambCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace ops
