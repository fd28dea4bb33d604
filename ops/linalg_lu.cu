// FCompute<gpu> of _linalg_inverse, _linalg_det, _linalg_slogdet and their
// backward operators (linalg_lu-inl.h), on cuBLAS.
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/linalg_lapack_gpu.h"
#include "ops/linalg_lu-inl.h"

namespace ops {
namespace linalg {
namespace {

const bool kRegistered = [] {
  SetLinalgLuCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace linalg
}  // namespace ops
