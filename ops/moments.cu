// FCompute<gpu> of moments and its gradient (moments-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/moments-inl.h"

namespace ops {
namespace moments {
namespace {

const bool kRegistered = [] {
  SetMomentsCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace moments
}  // namespace ops
