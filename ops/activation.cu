// FCompute<gpu> of Activation and LeakyReLU (activation-inl.h).
#include "mshadow/tensor.h"
#include "ops/activation-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace activation {
namespace {

const bool kRegistered = [] {
  SetActivationCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace activation
}  // namespace ops
