// FCompute<gpu> of _ravel_multi_index, _unravel_index and their zero gradients (ravel-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/ravel-inl.h"

namespace ops {
namespace ravel {
namespace {

const bool kRegistered = [] {
  SetRavelCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace ravel
}  // namespace ops
