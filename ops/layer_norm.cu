// FCompute<gpu> of LayerNorm (layer_norm-inl.h), with its own kernels for contiguous rows:
// a warp per row, the row's elements strided over the lanes (coalesced loads), its sums by
// warp shuffles. The generic kernel gives each line to one thread, which on a GPU reads a
// long row one element at a time from a single thread.
#include "mshadow/cuda/check.h"
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/layer_norm-inl.h"

namespace ops {
namespace layer_norm {
namespace {

constexpr int kWarp = 32;
constexpr int kRowsPerBlock = 8;

// The sum of `value` over the warp, in every lane.
template <typename DType>
__device__ DType WarpSum(DType value) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  }
  return value;
}

// The mean and rstd = 1 / sqrt(var + eps) of a row of n, in two passes as the CPU
// (line_moments.h), every lane getting both.
template <typename DType>
__device__ void WarpRowMoments(const DType* row, index_t n, DType eps, int lane, DType* mean,
                               DType* rstd) {
  DType sum = 0;
  for (index_t j = lane; j < n; j += kWarp) sum += row[j];
  const DType m = WarpSum(sum) / DType(n);
  DType sq = 0;
  for (index_t j = lane; j < n; j += kWarp) {
    const DType d = row[j] - m;
    sq += d * d;
  }
  *mean = m;
  *rstd = DType(1) / sqrt(WarpSum(sq) / DType(n) + eps);
}

// This warp's row: index and lane.
__device__ bool WarpRow(index_t rows, index_t* row, int* lane) {
  *row = static_cast<index_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kWarp;
  *lane = static_cast<int>(threadIdx.x % kWarp);
  return *row < rows;
}

template <int kReq, typename DType>
__global__ void __launch_bounds__(kWarp* kRowsPerBlock)
    LayerNormRowsKernel(index_t rows, index_t n, const DType* x, const DType* gamma,
                        const DType* beta, DType eps, DType* out, DType* mean, DType* rstd) {
  index_t l;
  int lane;
  if (!WarpRow(rows, &l, &lane)) return;
  const DType* row = x + l * n;
  DType m, r;
  WarpRowMoments(row, n, eps, lane, &m, &r);
  if (lane == 0) {
    mean[l] = m;
    rstd[l] = r;
  }
  for (index_t j = lane; j < n; j += kWarp) {
    AssignReq<kReq>(out + l * n + j, (row[j] - m) * r * gamma[j] + beta[j]);
  }
}

// dx = rstd * (g * gamma - mean(g * gamma) - xhat * mean(g * gamma * xhat)), as
// LayerNormRowGrad.
template <int kReq, typename DType>
__global__ void __launch_bounds__(kWarp* kRowsPerBlock)
    LayerNormRowsGradKernel(index_t rows, index_t n, const DType* g, const DType* x,
                            const DType* gamma, DType eps, DType* dx, DType* mean, DType* rstd) {
  index_t l;
  int lane;
  if (!WarpRow(rows, &l, &lane)) return;
  const DType* row = x + l * n;
  const DType* grow = g + l * n;
  DType m, r;
  WarpRowMoments(row, n, eps, lane, &m, &r);
  if (lane == 0) {
    mean[l] = m;
    rstd[l] = r;
  }
  DType a = 0, b = 0;
  for (index_t j = lane; j < n; j += kWarp) {
    const DType gg = grow[j] * gamma[j];
    a += gg;
    b += gg * (row[j] - m);
  }
  a = WarpSum(a) / DType(n);
  b = WarpSum(b) * r / DType(n);
  for (index_t j = lane; j < n; j += kWarp) {
    AssignReq<kReq>(dx + l * n + j, r * (grow[j] * gamma[j] - a - (row[j] - m) * r * b));
  }
}

unsigned BlocksFor(index_t rows) {
  return static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
}

}  // namespace

template <>
struct RowKernels<gpu> {
  template <int kReq, typename DType>
  static void Forward(mshadow::Stream<gpu>* stream, index_t rows, index_t n, const DType* x,
                      const DType* gamma, const DType* beta, DType eps, DType* out, DType* mean,
                      DType* rstd) {
    if (rows == 0) return;
    LayerNormRowsKernel<kReq>
        <<<BlocksFor(rows), kWarp * kRowsPerBlock, 0, mshadow::Stream<gpu>::GetStream(stream)>>>(
            rows, n, x, gamma, beta, eps, out, mean, rstd);
    MSHADOW_CUDA_CHECK_LAUNCH("LayerNormRowsKernel");
  }
  template <int kReq, typename DType>
  static void Backward(mshadow::Stream<gpu>* stream, index_t rows, index_t n, const DType* g,
                       const DType* x, const DType* gamma, DType eps, DType* dx, DType* mean,
                       DType* rstd) {
    if (rows == 0) return;
    LayerNormRowsGradKernel<kReq>
        <<<BlocksFor(rows), kWarp * kRowsPerBlock, 0, mshadow::Stream<gpu>::GetStream(stream)>>>(
            rows, n, g, x, gamma, eps, dx, mean, rstd);
    MSHADOW_CUDA_CHECK_LAUNCH("LayerNormRowsGradKernel");
  }
};

namespace {

const bool kRegistered = [] {
  SetLayerNormCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace layer_norm
}  // namespace ops
