// FCompute<gpu> of _contrib_hawkesll and its backward operator (hawkes_ll-inl.h).
#include "mshadow/tensor.h"
#include "ops/hawkes_ll-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace hawkes_ll {
namespace {

const bool kRegistered = [] {
  SetHawkesLLCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace hawkes_ll
}  // namespace ops
