// FCompute<gpu> of the unary elementwise operators (elemwise_unary-inl.h).
#include "mshadow/tensor.h"
#include "ops/elemwise_unary-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace unary {
namespace {

const bool kRegistered = [] {
  SetUnaryCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace unary
}  // namespace ops
