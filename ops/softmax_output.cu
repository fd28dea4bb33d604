// FCompute<gpu> of SoftmaxOutput (softmax_output-inl.h).
#include "mshadow/tensor.h"
#include "ops/softmax_output-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace softmax_output {
namespace {

const bool kRegistered = [] {
  SetSoftmaxOutputCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace softmax_output
}  // namespace ops
