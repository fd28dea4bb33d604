// FCompute<gpu> of _contrib_allclose (allclose-inl.h).
#include "mshadow/tensor.h"
#include "ops/allclose-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace allclose {
namespace {

const bool kRegistered = [] {
  SetAllCloseCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace allclose
}  // namespace ops
