// FCompute<gpu> of L2Normalization (l2_normalization-inl.h): a thread per line.
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/l2_normalization-inl.h"

namespace ops {
namespace l2_normalization {
namespace {

const bool kRegistered = [] {
  SetL2NormalizationCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace l2_normalization
}  // namespace ops
