// FCompute<gpu> of LRN (lrn-inl.h): a thread per sample and spatial position.
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/lrn-inl.h"

namespace ops {
namespace lrn {
namespace {

const bool kRegistered = [] {
  SetLRNCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace lrn
}  // namespace ops
