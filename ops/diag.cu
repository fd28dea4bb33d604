// FCompute<gpu> of diag and its gradient (diag-inl.h).
#include "mshadow/tensor.h"
#include "ops/diag-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace diag {
namespace {

const bool kRegistered = [] {
  SetDiagCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace diag
}  // namespace ops
