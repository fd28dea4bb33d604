// FCompute<gpu> of _contrib_arange_like, _contrib_index_array and their zero
// gradients (positions-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/positions-inl.h"

namespace ops {
namespace positions {
namespace {

const bool kRegistered = [] {
  SetPositionsCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace positions
}  // namespace ops
