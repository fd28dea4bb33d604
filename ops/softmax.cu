// FCompute<gpu> of softmax, log_softmax and softmax_cross_entropy and their backward operators.
// Along the last axis a block of threads normalizes each row (block-wide maximum and sum by warp
// shuffles, in a fixed order), holding rows of up to 4096 elements in registers; along another axis
// one thread normalizes each column of the (outer, n, inner) view, adjacent threads reading
// adjacent columns.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/cuda/check.h"
#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/softmax-inl.h"

namespace ops {
namespace softmax {
namespace {

constexpr int kRowThreads = 256;

// The larger of a and b; NaN if either is NaN (as the CPU's maximum).
template <typename DType>
MSHADOW_XINLINE DType MaxOrNaN(DType a, DType b) {
  if (a != a) return a;
  if (b != b) return b;
  return b > a ? b : a;
}

constexpr int kWarps = kRowThreads / 32;

// `value` folded over a warp (sum, or max when kMax), in a fixed order; valid in lane 0.
template <bool kMax, typename DType>
__device__ DType WarpReduce(DType value) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const DType other = __shfl_down_sync(0xffffffffu, value, offset);
    value = kMax ? MaxOrNaN(value, other) : value + other;
  }
  return value;
}

// Every thread's `value` folded into one (sum, or max when kMax), returned to every thread:
// warp shuffles, then the warps' results through `shared` (kWarps elements). The order is
// fixed, so every thread (and every run) gets the same value.
template <bool kMax, typename DType>
__device__ DType BlockReduce(DType value, DType* shared) {
  value = WarpReduce<kMax>(value);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) shared[warp] = value;
  __syncthreads();
  const DType identity = kMax ? -std::numeric_limits<DType>::infinity() : DType(0);
  value = WarpReduce<kMax>(lane < kWarps ? shared[lane] : identity);
  value = __shfl_sync(0xffffffffu, value, 0);
  __syncthreads();  // shared is reused by the next reduction
  return value;
}

// Rows of at most kPerThread * kRowThreads elements: each thread holds its elements in
// registers, so the row is read from memory once and each exp computed once.
template <bool kLog, int kReq, int kPerThread, typename DType>
__global__ void __launch_bounds__(kRowThreads)
    SoftmaxShortRowsKernel(const DType* x, DType* y, index_t rows, index_t n, DType inv_t) {
  __shared__ DType shared[kWarps];
  const DType sign = inv_t < 0 ? DType(-1) : DType(1);
  for (index_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const DType* row = x + r * n;
    DType* out = y + r * n;
    DType v[kPerThread];
    // The shift: the maximum, or the minimum for a negative temperature.
    DType max = -std::numeric_limits<DType>::infinity();
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const index_t i = threadIdx.x + static_cast<index_t>(k) * kRowThreads;
      v[k] = i < n ? row[i] : DType(0);
      if (i < n) max = MaxOrNaN(max, v[k] * sign);
    }
    max = BlockReduce<true>(max, shared) * sign;
    DType sum(0);
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const index_t i = threadIdx.x + static_cast<index_t>(k) * kRowThreads;
      v[k] = (v[k] - max) * inv_t;
      if (!kLog) v[k] = exp(v[k]);
      if (i < n) sum += kLog ? exp(v[k]) : v[k];
    }
    sum = BlockReduce<false>(sum, shared);
    const DType log_sum = log(sum);
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const index_t i = threadIdx.x + static_cast<index_t>(k) * kRowThreads;
      if (i < n) AssignReq<kReq>(out + i, kLog ? v[k] - log_sum : v[k] / sum);
    }
  }
}

// y = softmax(x * inv_t) (or its log) of each contiguous row of n elements; a block per row.
// Three passes over the row: for rows too long for SoftmaxShortRowsKernel.
template <bool kLog, int kReq, typename DType>
__global__ void SoftmaxRowsKernel(const DType* x, DType* y, index_t rows, index_t n, DType inv_t) {
  __shared__ DType shared[kWarps];
  for (index_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const DType* row = x + r * n;
    DType* out = y + r * n;
    // The shift: the maximum, or the minimum for a negative temperature.
    const DType sign = inv_t < 0 ? DType(-1) : DType(1);
    DType max = -std::numeric_limits<DType>::infinity();
    for (index_t i = threadIdx.x; i < n; i += kRowThreads) max = MaxOrNaN(max, row[i] * sign);
    max = BlockReduce<true>(max, shared) * sign;
    DType sum(0);
    for (index_t i = threadIdx.x; i < n; i += kRowThreads) sum += exp((row[i] - max) * inv_t);
    sum = BlockReduce<false>(sum, shared);
    const DType log_sum = log(sum);
    for (index_t i = threadIdx.x; i < n; i += kRowThreads) {
      const DType shifted = (row[i] - max) * inv_t;
      AssignReq<kReq>(out + i, kLog ? shifted - log_sum : exp(shifted) / sum);
    }
  }
}

// Inputs g, y: dx = y * (g - sum(g * y)) * inv_t, or (g - exp(y) * sum(g)) * inv_t for log.
template <bool kLog, int kReq, typename DType>
__global__ void SoftmaxGradRowsKernel(const DType* g, const DType* y, DType* dx, index_t rows,
                                      index_t n, DType inv_t) {
  __shared__ DType shared[kWarps];
  for (index_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const index_t at = r * n;
    DType dot(0);
    for (index_t i = threadIdx.x; i < n; i += kRowThreads) {
      dot += kLog ? g[at + i] : g[at + i] * y[at + i];
    }
    dot = BlockReduce<false>(dot, shared);
    for (index_t i = threadIdx.x; i < n; i += kRowThreads) {
      const DType gi = g[at + i], yi = y[at + i];
      AssignReq<kReq>(dx + at + i, (kLog ? gi - exp(yi) * dot : yi * (gi - dot)) * inv_t);
    }
  }
}

// Column c of the (outer, n, inner) view (c = o * inner + k), normalized down the axis.
template <bool kLog, int kReq>
struct softmax_columns {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t c, const DType* x, DType* y, index_t n, index_t inner,
                                  DType inv_t) {
    const index_t start = c / inner * n * inner + c % inner;
    const DType sign = inv_t < 0 ? DType(-1) : DType(1);  // shift by the minimum if negative
    DType max = -std::numeric_limits<DType>::infinity();
    for (index_t j = 0; j < n; ++j) max = MaxOrNaN(max, x[start + j * inner] * sign);
    max *= sign;
    DType sum(0);
    for (index_t j = 0; j < n; ++j) sum += exp((x[start + j * inner] - max) * inv_t);
    const DType log_sum = log(sum);
    for (index_t j = 0; j < n; ++j) {
      const DType shifted = (x[start + j * inner] - max) * inv_t;
      AssignReq<kReq>(y + start + j * inner, kLog ? shifted - log_sum : exp(shifted) / sum);
    }
  }
};

template <bool kLog, int kReq>
struct softmax_grad_columns {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t c, const DType* g, const DType* y, DType* dx, index_t n,
                                  index_t inner, DType inv_t) {
    const index_t start = c / inner * n * inner + c % inner;
    DType dot(0);
    for (index_t j = 0; j < n; ++j) {
      const index_t at = start + j * inner;
      dot += kLog ? g[at] : g[at] * y[at];
    }
    for (index_t j = 0; j < n; ++j) {
      const index_t at = start + j * inner;
      AssignReq<kReq>(dx + at, (kLog ? g[at] - exp(y[at]) * dot : y[at] * (g[at] - dot)) * inv_t);
    }
  }
};

// Blocks for `rows` rows: one each, up to a cap past which blocks take several rows.
unsigned RowBlocks(index_t rows) {
  return static_cast<unsigned>(std::min<index_t>(rows, index_t{1} << 20));
}

template <bool kLog>
void SoftmaxComputeGpu(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SoftmaxParam& param = GetParam<SoftmaxParam>(attrs);
  const AxisView v = ViewAround(in[0].shape_, param.axis);
  if (in[0].Size() == 0) return;
  mshadow::Stream<gpu>* s = ctx.get_stream<gpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType inv_t = DType(1) / static_cast<DType>(param.temperature.value_or(1.0));
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    if (param.use_length) {  // softmax alone: a thread per line
      WithIndexType(in[1].type_flag_, [&](auto length_tag) {
        using LType = typename decltype(length_tag)::type;
        OPS_REQ_SWITCH(req[0], Req, {
          Kernel<masked_softmax_line<Req>, gpu>::Launch(s, v.outer * v.inner, v,
                                                         x, in[1].dptr<LType>(), inv_t, y);
        });
      });
      return;
    }
    OPS_REQ_SWITCH(req[0], Req, {
      if (v.inner == 1) {
        const cudaStream_t stream = mshadow::Stream<gpu>::GetStream(s);
        const unsigned blocks = RowBlocks(v.outer);
        auto short_rows = [&](auto per_thread) {
          SoftmaxShortRowsKernel<kLog, Req, decltype(per_thread)::value>
              <<<blocks, kRowThreads, 0, stream>>>(x, y, v.outer, v.n, inv_t);
          MSHADOW_CUDA_CHECK_LAUNCH("SoftmaxShortRowsKernel");
        };
        if (v.n <= kRowThreads) {
          short_rows(std::integral_constant<int, 1>());
        } else if (v.n <= 4 * kRowThreads) {
          short_rows(std::integral_constant<int, 4>());
        } else if (v.n <= 16 * kRowThreads) {
          short_rows(std::integral_constant<int, 16>());
        } else {  // 32 per thread measured twice as slow as three passes (8192-element rows)
          SoftmaxRowsKernel<kLog, Req><<<blocks, kRowThreads, 0, stream>>>(x, y, v.outer, v.n, inv_t);
          MSHADOW_CUDA_CHECK_LAUNCH("SoftmaxRowsKernel");
        }
      } else {
        Kernel<softmax_columns<kLog, Req>, gpu>::Launch(s, v.outer * v.inner, x, y, v.n, v.inner,
                                                        inv_t);
      }
    });
  });
}

// Inputs: out_grad, y.
template <bool kLog>
void SoftmaxBackwardComputeGpu(const NodeAttrs& attrs, const OpContext& ctx,
                               const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                               const std::vector<TBlob>& out) {
  const SoftmaxParam& param = GetParam<SoftmaxParam>(attrs);
  const AxisView v = ViewAround(in[0].shape_, param.axis);
  mshadow::Stream<gpu>* s = ctx.get_stream<gpu>();
  if (out.size() > 1) ZeroLengthGradient<gpu>(s, out[1], req[1]);
  if (in[0].Size() == 0) return;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType inv_t = DType(1) / static_cast<DType>(param.temperature.value_or(1.0));
    const DType* g = in[0].dptr<DType>();
    const DType* y = in[1].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    OPS_REQ_SWITCH(req[0], Req, {
      if (v.inner == 1) {
        SoftmaxGradRowsKernel<kLog, Req>
            <<<RowBlocks(v.outer), kRowThreads, 0, mshadow::Stream<gpu>::GetStream(s)>>>(
                g, y, dx, v.outer, v.n, inv_t);
        MSHADOW_CUDA_CHECK_LAUNCH("SoftmaxGradRowsKernel");
      } else {
        Kernel<softmax_grad_columns<kLog, Req>, gpu>::Launch(s, v.outer * v.inner, g, y, dx, v.n,
                                                             v.inner, inv_t);
      }
    });
  });
}

// ---- softmax_cross_entropy on the GPU: log_softmax of the rows into temporary space, then
// one thread per row picks its label's term and one thread sums the rows in order (the
// result does not depend on the launch). Labels stay on the device: one that is not a class
// index in [0, classes) makes its row's loss and gradient NaN instead of an error (the CPU
// raises one), since checking on the host would wait for the stream; nothing is read
// outside the row.

// The class of `value` as an index, or -1 if it is not an integer in [0, classes).
template <typename DType>
MSHADOW_XINLINE index_t ClassIndex(DType value, index_t classes) {
  if (!(value >= DType(0) && value < static_cast<DType>(classes))) return -1;
  const index_t index = static_cast<index_t>(value);
  return static_cast<DType>(index) == value ? index : -1;
}

struct cross_entropy_row_loss {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t r, const DType* log_softmax, const DType* label,
                                  index_t classes, DType* losses) {
    const index_t target = ClassIndex(label[r], classes);
    losses[r] =
        target < 0 ? std::numeric_limits<DType>::quiet_NaN() : -log_softmax[r * classes + target];
  }
};

template <int kReq>
struct sum_in_order {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t, const DType* values, index_t n, DType* out) {
    DType total = 0;
    for (index_t i = 0; i < n; ++i) total += values[i];
    AssignReq<kReq>(out, total);
  }
};

// data_grad[r][j] = g * (softmax(data[r])[j] - (j == label[r])).
template <int kReq>
struct cross_entropy_gradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, const DType* g, const DType* log_softmax,
                                  const DType* label, index_t classes, DType* dx) {
    const index_t r = i / classes, j = i - r * classes;
    const index_t target = ClassIndex(label[r], classes);
    const DType value = target < 0 ? std::numeric_limits<DType>::quiet_NaN()
                                   : g[0] * (exp(log_softmax[i]) - DType(j == target ? 1 : 0));
    AssignReq<kReq>(dx + i, value);
  }
};

// log_softmax of `data` (batch, classes) into the first batch * classes elements of the
// call's temporary space; `extra` more elements follow it for the caller.
template <typename DType>
DType* LogSoftmaxRows(const OpContext& ctx, const TBlob& data, index_t extra) {
  static const NodeAttrs log_softmax = ParseAttrs(Op::Get("log_softmax"), {{"axis", "-1"}});
  mshadow::Stream<gpu>* s = ctx.get_stream<gpu>();
  DType* space =
      ctx.requested[0].get_space_typed<gpu, 1, DType>(Shape1(data.Size() + extra), s).dptr_;
  SoftmaxComputeGpu<true>(log_softmax, ctx, {data}, {kWriteTo},
                          {TBlob(space, data.shape_, data.dev_mask_, data.type_flag_)});
  return space;
}

void CrossEntropyComputeGpu(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const index_t batch = in[0].shape_[0], classes = in[0].shape_[1];
  mshadow::Stream<gpu>* s = ctx.get_stream<gpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* log_softmax = LogSoftmaxRows<DType>(ctx, in[0], batch);
    DType* losses = log_softmax + batch * classes;
    Kernel<cross_entropy_row_loss, gpu>::Launch(s, batch, log_softmax, in[1].dptr<DType>(), classes,
                                                losses);
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<sum_in_order<Req>, gpu>::Launch(s, 1, static_cast<const DType*>(losses), batch,
                                             out[0].dptr<DType>());
    });
  });
}

// Inputs: out_grad (1,), data, label. Outputs: data_grad, label_grad (zero).
void CrossEntropyBackwardComputeGpu(const NodeAttrs&, const OpContext& ctx,
                                    const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                    const std::vector<TBlob>& out) {
  const index_t batch = in[1].shape_[0], classes = in[1].shape_[1];
  mshadow::Stream<gpu>* s = ctx.get_stream<gpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[1].type_flag_, DType, {
    if (req[0] != kNullOp && batch * classes > 0) {
      const DType* log_softmax = LogSoftmaxRows<DType>(ctx, in[1], 0);
      OPS_REQ_SWITCH(req[0], Req, {
        Kernel<cross_entropy_gradient<Req>, gpu>::Launch(s, batch * classes, in[0].dptr<DType>(),
                                                         log_softmax, in[2].dptr<DType>(), classes,
                                                         out[0].dptr<DType>());
      });
    }
    if (req[1] == kWriteTo || req[1] == kWriteInplace) Flat<gpu, DType>(out[1], s) = DType(0);
  });
}

const bool kRegistered = [] {
  RegisterOp("softmax").set_attr<FCompute>(
      "FCompute<gpu>", ForwardInComputeType<gpu, SoftmaxComputeGpu<false>>);
  RegisterOp("log_softmax").set_attr<FCompute>(
      "FCompute<gpu>", ForwardInComputeType<gpu, SoftmaxComputeGpu<true>>);
  RegisterOp("_backward_softmax").set_attr<FCompute>(
      "FCompute<gpu>", BackwardInComputeType<gpu, SoftmaxBackwardComputeGpu<false>>);
  RegisterOp("_backward_log_softmax").set_attr<FCompute>(
      "FCompute<gpu>", BackwardInComputeType<gpu, SoftmaxBackwardComputeGpu<true>>);
  // softmin: softmax's kernels at the negated temperature (its parser negates it).
  RegisterOp("softmin").set_attr<FCompute>("FCompute<gpu>",
                                           ForwardInComputeType<gpu, SoftmaxComputeGpu<false>>);
  RegisterOp("_backward_softmin")
      .set_attr<FCompute>("FCompute<gpu>",
                          BackwardInComputeType<gpu, SoftmaxBackwardComputeGpu<false>>);
  RegisterOp("softmax_cross_entropy").set_attr<FCompute>("FCompute<gpu>", CrossEntropyComputeGpu);
  RegisterOp("_backward_softmax_cross_entropy")
      .set_attr<FCompute>("FCompute<gpu>", CrossEntropyBackwardComputeGpu);
  return true;
}();

}  // namespace
}  // namespace softmax
}  // namespace ops
