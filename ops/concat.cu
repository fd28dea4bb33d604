// FCompute<gpu> of Concat (concat-inl.h).
#include "mshadow/tensor.h"
#include "ops/concat-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace concat {
namespace {

const bool kRegistered = [] {
  SetConcatCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace concat
}  // namespace ops
