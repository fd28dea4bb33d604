// FCompute<gpu> of _sample_multinomial and its gradient (sample_multinomial-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/sample_multinomial-inl.h"

namespace ops {
namespace sample_multinomial {
namespace {

const bool kRegistered = [] {
  SetSampleMultinomialCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace sample_multinomial
}  // namespace ops
