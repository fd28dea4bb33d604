// Compile-only check that every extension's Plan evaluates in CUDA device code, so the CUDA
// backend can run them unchanged: `./tools/bazel build --config=cuda
// //mshadow:extension_device_check` (nvcc, warnings as errors, so a host-only call in a Plan
// fails it; no GPU needed, nothing runs). CI builds it.
#include "mshadow/extension.h"

namespace mshadow {
namespace expr {
namespace {

template <typename PlanType>
__global__ void EvaluateKernel(PlanType plan, float* out, index_t n) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = plan.Eval(i / 4, i % 4);
}

template <typename E>
void Evaluate(const E& e, float* out) {
  const auto plan = MakePlan(e);
  EvaluateKernel<<<1, 32>>>(plan, out, 16);
}

}  // namespace

void EvaluateEveryExtension(Tensor<gpu, 2> m, Tensor<gpu, 1> v, Tensor<gpu, 4> t4,
                            Tensor<gpu, 3> t3, float* out) {
  Evaluate(repmat(v, 4), out);
  Evaluate(broadcast<1>(v, Shape4(2, v.size(0), 3, 3)), out);
  Evaluate(mask(v, m), out);
  Evaluate(swapaxis<1, 0>(t4), out);
  Evaluate(implicit_dot(m, m), out);
  Evaluate(mat_fill_row_element(m, v, v), out);
  Evaluate(one_hot_encode(v, 4), out);
  Evaluate(take(v, m), out);
  Evaluate(take<false>(v, m), out);
  Evaluate(take_grad(v, m, 4), out);
  Evaluate(upsampling_nearest(t4, 2), out);
  Evaluate(pool<red::maximum>(t4, 2, 2, 1), out);
  Evaluate(unpool<red::maximum>(t4, t4, t4, 1, 1, 1), out);
  Evaluate(unpack_patch2col(t3, 1, 1, 1), out);
  Evaluate(pack_col2patch(m, t3.shape_, 1, 1, 1), out);
  Evaluate(reshape(m, Shape2(2, 8)), out);
}

}  // namespace expr
}  // namespace mshadow
