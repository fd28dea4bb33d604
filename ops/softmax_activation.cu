// FCompute<gpu> of SoftmaxActivation (softmax_activation-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/softmax_activation-inl.h"

namespace ops {
namespace softmax_activation {
namespace {

const bool kRegistered = [] {
  SetSoftmaxActivationCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace softmax_activation
}  // namespace ops
