// FCompute<gpu> of _contrib_quadratic, _contrib_gradientmultiplier and their backward
// operators (contrib_elemwise-inl.h).
#include "mshadow/tensor.h"
#include "ops/contrib_elemwise-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace contrib {
namespace {

const bool kRegistered = [] {
  SetContribElemwiseCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace contrib
}  // namespace ops
