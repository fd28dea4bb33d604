// FCompute<gpu> of BatchNorm (batch_norm-inl.h).
#include "mshadow/tensor.h"
#include "ops/batch_norm-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace batch_norm {
namespace {

const bool kRegistered = [] {
  SetBatchNormCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace batch_norm
}  // namespace ops
