// FCompute<gpu> of where (where-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/where-inl.h"

namespace ops {
namespace where {
namespace {

const bool kRegistered = [] {
  SetWhereCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace where
}  // namespace ops
