// FCompute<gpu> of all_finite and multi_all_finite (all_finite-inl.h).
#include "mshadow/tensor.h"
#include "ops/all_finite-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace all_finite {
namespace {

const bool kRegistered = [] {
  SetAllFiniteCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace all_finite
}  // namespace ops
