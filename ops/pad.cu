// FCompute<gpu> of Pad (pad-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/pad-inl.h"

namespace ops {
namespace pad {
namespace {

const bool kRegistered = [] {
  SetPadCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace pad
}  // namespace ops
