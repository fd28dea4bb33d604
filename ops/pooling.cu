// FCompute<gpu> of Pooling (pooling-inl.h).
#include "mshadow/tensor.h"
#include "ops/pooling-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace pooling {
namespace {

const bool kRegistered = [] {
  SetPoolingCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace pooling
}  // namespace ops
