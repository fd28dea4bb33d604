// FCompute<gpu> of _linalg_syevd, _linalg_gelqf and their backward
// operators (linalg_orthogonal-inl.h), on cuSOLVER.
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/linalg_lapack_gpu.h"
#include "ops/linalg_orthogonal-inl.h"

namespace ops {
namespace linalg {
namespace {

const bool kRegistered = [] {
  SetLinalgOrthogonalCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace linalg
}  // namespace ops
