// FCompute<gpu> of topk, sort and argsort (sort-inl.h).
#include "mshadow/tensor.h"
#include "ops/sort-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace sort {
namespace {

const bool kRegistered = [] {
  SetSortCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace sort
}  // namespace ops
