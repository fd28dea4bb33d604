// FCompute<gpu> of reverse / flip (flip-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/flip-inl.h"

namespace ops {
namespace flip {
namespace {

const bool kRegistered = [] {
  SetFlipCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace flip
}  // namespace ops
