// FCompute<gpu> of argmax and argmin (arg_reduce-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/arg_reduce-inl.h"

namespace ops {
namespace arg_reduce {
namespace {

const bool kRegistered = [] {
  SetArgReduceCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace arg_reduce
}  // namespace ops
