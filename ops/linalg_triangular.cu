// FCompute<gpu> of _linalg_trmm, _linalg_trsm, _linalg_syrk, _linalg_potrf, _linalg_potri and
// their backward operators (linalg_triangular-inl.h), on cuBLAS and cuSOLVER.
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/linalg_lapack_gpu.h"
#include "ops/linalg_triangular-inl.h"

namespace ops {
namespace linalg {
namespace {

const bool kRegistered = [] {
  SetLinalgTriangularCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace linalg
}  // namespace ops
