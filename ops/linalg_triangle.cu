// FCompute<gpu> of the diagonal and triangle operators and their gradients
// (linalg_triangle-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/linalg_triangle-inl.h"

namespace ops {
namespace linalg {
namespace {

const bool kRegistered = [] {
  SetLinalgTriangleCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace linalg
}  // namespace ops
