// FCompute<gpu> of Cast (cast-inl.h).
#include "mshadow/tensor.h"
#include "ops/cast-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace cast {
namespace {

const bool kRegistered = [] {
  SetCastCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace cast
}  // namespace ops
