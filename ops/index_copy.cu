// FCompute<gpu> of _contrib_index_copy and its backward operator
// (index_copy-inl.h).
#include "mshadow/tensor.h"
#include "ops/index_copy-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace index_copy {
namespace {

const bool kRegistered = [] {
  SetIndexCopyCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace index_copy
}  // namespace ops
