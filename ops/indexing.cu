// FCompute<gpu> of take, pick and one_hot (indexing-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/indexing-inl.h"

namespace ops {
namespace indexing {
namespace {

const bool kRegistered = [] {
  SetIndexingCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace indexing
}  // namespace ops
