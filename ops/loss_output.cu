// FCompute<gpu> of the loss layers (loss_output-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/loss_output-inl.h"

namespace ops {
namespace loss_output {
namespace {

const bool kRegistered = [] {
  SetLossOutputCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace loss_output
}  // namespace ops
