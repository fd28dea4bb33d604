// FCompute<gpu> of Dropout (dropout-inl.h).
#include "mshadow/tensor.h"
#include "ops/dropout-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace dropout {
namespace {

const bool kRegistered = [] {
  SetDropoutCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace dropout
}  // namespace ops
