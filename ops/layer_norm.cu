// FCompute<gpu> of LayerNorm (layer_norm-inl.h), with its own kernels for contiguous rows:
// a warp per row, the row's elements strided over the lanes (coalesced loads), its sums by
// warp shuffles. The generic kernel gives each line to one thread, which on a GPU reads a
// long row one element at a time from a single thread.
#include "mshadow/cuda/check.h"
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/layer_norm-inl.h"
#include "ops/warp_sum.cuh"

namespace ops {
namespace layer_norm {
namespace {

using cuda::WarpSum;
constexpr int kWarp = cuda::kWarpSize;
constexpr int kRowsPerBlock = 8;

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

// This warp's row of a kernel: its index and lane, and its moments, which lane 0 saves.
template <typename DType>
struct WarpRow {
  index_t l;
  int lane;
  DType m, r;

  // False for a warp past the last row.
  __device__ bool Begin(index_t rows, index_t n, const DType* x, DType eps, DType* mean,
                        DType* rstd) {
    l = static_cast<index_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kWarp;
    lane = static_cast<int>(threadIdx.x % kWarp);
    if (l >= rows) return false;
    WarpRowMoments(x + l * n, n, eps, lane, &m, &r);
    if (lane == 0) {
      mean[l] = m;
      rstd[l] = r;
    }
    return true;
  }
};

template <int kReq, typename DType>
__global__ void __launch_bounds__(kWarp* kRowsPerBlock)
    LayerNormRowsKernel(index_t rows, index_t n, const DType* x, const DType* gamma,
                        const DType* beta, DType eps, DType* out, DType* mean, DType* rstd) {
  WarpRow<DType> w;
  if (!w.Begin(rows, n, x, eps, mean, rstd)) return;
  const DType* row = x + w.l * n;
  for (index_t j = w.lane; j < n; j += kWarp) {
    AssignReq<kReq>(out + w.l * n + j, (row[j] - w.m) * w.r * gamma[j] + beta[j]);
  }
}

// dx = rstd * (g * gamma - mean(g * gamma) - xhat * mean(g * gamma * xhat)), as
// LayerNormRowGrad.
template <int kReq, typename DType>
__global__ void __launch_bounds__(kWarp* kRowsPerBlock)
    LayerNormRowsGradKernel(index_t rows, index_t n, const DType* g, const DType* x,
                            const DType* gamma, DType eps, DType* dx, DType* mean, DType* rstd) {
  WarpRow<DType> w;
  if (!w.Begin(rows, n, x, eps, mean, rstd)) return;
  const DType* row = x + w.l * n;
  const DType* grow = g + w.l * n;
  const DType m = w.m, r = w.r;
  DType a = 0, b = 0;
  for (index_t j = w.lane; j < n; j += kWarp) {
    const DType gg = grow[j] * gamma[j];
    a += gg;
    b += gg * (row[j] - m);
  }
  a = WarpSum(a) / DType(n);
  b = WarpSum(b) * r / DType(n);
  for (index_t j = w.lane; j < n; j += kWarp) {
    AssignReq<kReq>(dx + w.l * n + j, r * (grow[j] * gamma[j] - a - (row[j] - m) * r * b));
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
