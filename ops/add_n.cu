// FCompute<gpu> of add_n (add_n-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/add_n-inl.h"

namespace ops {
namespace add_n {
namespace {

const bool kRegistered = [] {
  SetAddNCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace add_n
}  // namespace ops
