// FCompute<gpu> of _shuffle (shuffle-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/shuffle-inl.h"

namespace ops {
namespace shuffle {
namespace {

const bool kRegistered = [] {
  SetShuffleCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace shuffle
}  // namespace ops
