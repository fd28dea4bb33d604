// FCompute<gpu> of _linalg_gemm, _linalg_gemm2 and their backward operators (linalg_gemm-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/linalg_gemm-inl.h"

namespace ops {
namespace linalg {
namespace {

const bool kRegistered = [] {
  SetLinalgGemmCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace linalg
}  // namespace ops
