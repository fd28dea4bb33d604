// FCompute<gpu> of Correlation and its gradient (correlation-inl.h).
#include "mshadow/tensor.h"
#include "ops/correlation-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace correlation {
namespace {

const bool kRegistered = [] {
  SetCorrelationCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace correlation
}  // namespace ops
