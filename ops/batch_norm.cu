// FCompute<gpu> of BatchNorm (batch_norm-inl.h), with kernels of its own for the passes over
// the data (ChannelKernels<gpu>):
// - the per-channel sums: blocks of (channel, part), each summing a part of its channel's
//   elements around the channel's first element (as the CPU's ChannelSums, so that the
//   one-pass variance does not cancel), then one thread per channel adding the parts in a
//   fixed order (the same result on every run);
// - the elementwise passes: 16-byte loads and stores where every channel's runs allow, the
//   channel of each vector found by 32-bit division where the sizes fit.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "mshadow/cuda/check.h"
#include "mshadow/cuda/flat_eval.cuh"
#include "mshadow/tensor.h"
#include "ops/batch_norm-inl.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/warp_sum.cuh"

namespace ops {
namespace batch_norm {
namespace {

constexpr int kThreads = 256;
using cuda::WarpSum;
constexpr int kWarp = cuda::kWarpSize;
// Blocks the sums aim for: a few per multiprocessor, so that the loads keep memory busy.
constexpr index_t kSumBlocksPerSm = 4;
// Fewest vectors a thread of the sums loads: below, the parts' own cost dominates.
constexpr index_t kMinVectorsPerThread = 8;

template <typename DType>
using Vec = mshadow::cuda::Vec16<DType>;
template <typename DType>
constexpr int kVecLanes = mshadow::cuda::kVecLanes<DType>;

// Lanes per load for rows of `inner` elements from x (and dy, out): 16 bytes where every run
// of a channel starts on a 16-byte boundary, else one element.
template <typename DType>
int LanesFor(index_t inner, std::initializer_list<const void*> pointers) {
  bool aligned = inner % kVecLanes<DType> == 0;
  for (const void* p : pointers) aligned = aligned && reinterpret_cast<uintptr_t>(p) % 16 == 0;
  return aligned ? kVecLanes<DType> : 1;
}

// kLanes consecutive elements at p (16 bytes, aligned, or one element).
template <int kLanes, typename DType>
struct Lanes {
  DType v[kLanes];
  __device__ void Load(const DType* p) {
    if constexpr (kLanes == 1) {
      v[0] = *p;
    } else {
      const Vec<DType> in = *reinterpret_cast<const Vec<DType>*>(p);
#pragma unroll
      for (int k = 0; k < kLanes; ++k) v[k] = in.lane[k];
    }
  }
  __device__ void Store(DType* p) const {
    if constexpr (kLanes == 1) {
      *p = v[0];
    } else {
      Vec<DType> out;
#pragma unroll
      for (int k = 0; k < kLanes; ++k) out.lane[k] = v[k];
      *reinterpret_cast<Vec<DType>*>(p) = out;
    }
  }
};

// Block (c, part) of the sums: over the vectors j = part * kThreads + t, stepping by the
// parts' width, of channel c's outer * inner_v vectors, the sums of x - s, (x - s)^2 and,
// kWithGrad, dy and dy * (x - s), s the channel's first element. partial[(k * channels + c) *
// parts + part] gets sum k.
template <bool kWithGrad, int kLanes, typename Index, typename DType>
__global__ void __launch_bounds__(kThreads)
    ChannelPartialSumsKernel(Index outer, Index channels, Index inner_v, const DType* x,
                             const DType* dy, DType* partial) {
  constexpr int kSums = kWithGrad ? 4 : 2;
  const Index c = blockIdx.x, part = blockIdx.y, parts = gridDim.y;
  const Index n = outer * inner_v;
  const DType shift = x[c * inner_v * kLanes];
  DType acc[kSums] = {};
#pragma unroll 4
  for (Index j = part * kThreads + threadIdx.x; j < n; j += parts * kThreads) {
    const Index o = j / inner_v;
    const Index at = ((o * channels + c) * inner_v + (j - o * inner_v)) * kLanes;
    Lanes<kLanes, DType> xs;
    xs.Load(x + at);
    Lanes<kLanes, DType> gs;
    if constexpr (kWithGrad) gs.Load(dy + at);
#pragma unroll
    for (int k = 0; k < kLanes; ++k) {
      const DType xc = xs.v[k] - shift;
      acc[0] += xc;
      acc[1] += xc * xc;
      if constexpr (kWithGrad) {
        acc[2] += gs.v[k];
        acc[3] += gs.v[k] * xc;
      }
    }
  }
  __shared__ DType warp_sums[kSums][kThreads / kWarp];
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
#pragma unroll
  for (int k = 0; k < kSums; ++k) {
    const DType s = WarpSum(acc[k]);
    if (lane == 0) warp_sums[k][warp] = s;
  }
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int k = 0; k < kSums; ++k) {
      const DType s = WarpSum(lane < kThreads / kWarp ? warp_sums[k][lane] : DType(0));
      if (lane == 0) partial[(k * channels + c) * parts + part] = s;
    }
  }
}

// Thread c: channel c's parts added in order into the rows MomentsFromSums reads (the sums,
// then the shift), and the moments from them.
template <bool kWithGrad, typename DType>
__global__ void __launch_bounds__(kThreads)
    ChannelMomentsKernel(index_t channels, index_t inner, index_t parts, DType count,
                         const DType* x, const DType* partial, DType* sums, DType* mean, DType* var,
                         DType* sum_dy, DType* sum_dy_xc) {
  const index_t c = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (c >= channels) return;
  for (int k = 0; k < (kWithGrad ? 4 : 2); ++k) {
    const DType* p = partial + (k * channels + c) * parts;
    DType s = 0;
    for (index_t i = 0; i < parts; ++i) s += p[i];
    sums[k * channels + c] = s;
  }
  sums[4 * channels + c] = x[c * inner];
  MomentsFromSums<kWithGrad>::Map(c, channels, count, sums, mean, var, sum_dy, sum_dy_xc);
}

// out = fn(c, x, dy) elementwise (dy read only kWithGrad), c the element's channel; over the
// n_v vectors of the (outer, channels, inner_v) data, grid-stride.
template <int kReq, bool kWithGrad, int kLanes, typename Index, typename DType, typename Fn>
__global__ void __launch_bounds__(kThreads)
    ChannelMapKernel(Index n_v, Index channels, Index inner_v, const DType* x, const DType* dy,
                     Fn fn, DType* out) {
  const Index step = static_cast<Index>(gridDim.x) * kThreads;
  for (Index j = static_cast<Index>(blockIdx.x) * kThreads + threadIdx.x; j < n_v; j += step) {
    const Index c = j / inner_v % channels;
    Lanes<kLanes, DType> xs, gs, result;
    xs.Load(x + j * kLanes);
    if constexpr (kWithGrad) gs.Load(dy + j * kLanes);
    if constexpr (kReq == kAddTo) result.Load(out + j * kLanes);
#pragma unroll
    for (int k = 0; k < kLanes; ++k) {
      const DType value = fn(c, xs.v[k], kWithGrad ? gs.v[k] : DType(0));
      result.v[k] = kReq == kAddTo ? result.v[k] + value : value;
    }
    result.Store(out + j * kLanes);
  }
}

template <typename DType>
struct AffineFn {
  const DType *scale, *shift;
  __device__ DType operator()(index_t c, DType x, DType) const { return x * scale[c] + shift[c]; }
};

template <typename DType>
struct DataGradientFn {
  const DType *a, *k, *b;
  __device__ DType operator()(index_t c, DType x, DType dy) const {
    return dy * a[c] - x * k[c] + b[c];
  }
};

// The sums' parts per channel for data of `shape`.
index_t PartsFor(const mshadow::Shape<3>& shape) {
  const index_t target = kSumBlocksPerSm * mshadow::cuda::MultiprocessorCount();
  const index_t per_channel = shape[0] * shape[2];
  const index_t most = std::max<index_t>(1, per_channel / (kThreads * kMinVectorsPerThread));
  const index_t wanted = (target + shape[1] - 1) / shape[1];
  // Bounded by the grid's height limit too (gridDim.x is the channels, gridDim.y the parts).
  return std::max<index_t>(1, std::min<index_t>({wanted, most, 65535}));
}

template <typename Fn>
void WithLanes(int lanes, Fn&& fn) {
  if (lanes == 1) {
    fn(std::integral_constant<int, 1>());
  } else if (lanes == 2) {
    fn(std::integral_constant<int, 2>());
  } else {
    fn(std::integral_constant<int, 4>());
  }
}

}  // namespace

template <>
struct ChannelKernels<gpu> {
  // The parts of each of the four sums, then ChannelMomentsKernel's five rows.
  static index_t MomentRows(const mshadow::Shape<3>& shape) { return 4 * PartsFor(shape) + 5; }

  template <typename DType>
  static void Moments(Tensor<gpu, 3, DType> x, const DType* dy, Tensor<gpu, 2, DType> scratch,
                      DType* mean, DType* var, DType* sum_dy, DType* sum_dy_xc) {
    const mshadow::Shape<3> shape = x.shape_;
    const index_t channels = shape[1], inner = shape[2];
    if (shape.Size() == 0) return;  // shape inference gives no empty channel; no data, no sums
    const index_t parts = PartsFor(shape);
    DType* partial = scratch.dptr_;
    DType* sums = scratch.dptr_ + 4 * parts * channels;
    const cudaStream_t stream = mshadow::Stream<gpu>::GetStream(x.stream_);
    const int lanes = LanesFor<DType>(inner, {x.dptr_, dy});
    const dim3 grid(static_cast<unsigned>(channels), static_cast<unsigned>(parts));
    const DType count = DType(shape[0] * inner);
    const unsigned moment_blocks = static_cast<unsigned>((channels + kThreads - 1) / kThreads);
    // Positions up to the data's size, stepping by at most 65535 blocks of parts.
    cuda::WithGridIndex(shape.Size(), 65535 * kThreads, [&](auto index) {
      using Index = decltype(index);
      WithLanes(lanes, [&](auto lanes_c) {
        constexpr int kLanes = decltype(lanes_c)::value;
        if constexpr (kLanes == 1 || kLanes == kVecLanes<DType>) {
          const Index outer = shape[0], inner_v = inner / kLanes;
          if (dy != nullptr) {
            ChannelPartialSumsKernel<true, kLanes><<<grid, kThreads, 0, stream>>>(
                outer, Index(channels), inner_v, x.dptr_, dy, partial);
          } else {
            ChannelPartialSumsKernel<false, kLanes><<<grid, kThreads, 0, stream>>>(
                outer, Index(channels), inner_v, x.dptr_, dy, partial);
          }
          MSHADOW_CUDA_CHECK_LAUNCH("ChannelPartialSumsKernel");
        }
      });
    });
    if (dy != nullptr) {
      ChannelMomentsKernel<true><<<moment_blocks, kThreads, 0, stream>>>(
          channels, inner, parts, count, x.dptr_, partial, sums, mean, var, sum_dy, sum_dy_xc);
    } else {
      ChannelMomentsKernel<false><<<moment_blocks, kThreads, 0, stream>>>(
          channels, inner, parts, count, x.dptr_, partial, sums, mean, var, sum_dy, sum_dy_xc);
    }
    MSHADOW_CUDA_CHECK_LAUNCH("ChannelMomentsKernel");
  }

  template <typename DType>
  static void Affine(OpReqType req, Tensor<gpu, 3, DType> x, Tensor<gpu, 1, DType> scale,
                     Tensor<gpu, 1, DType> shift, Tensor<gpu, 3, DType> y) {
    Map<false>(req, x, x.dptr_, AffineFn<DType>{scale.dptr_, shift.dptr_}, y);
  }

  template <typename DType>
  static void DataGradient(OpReqType req, Tensor<gpu, 3, DType> dy, Tensor<gpu, 3, DType> x,
                           Tensor<gpu, 1, DType> a, Tensor<gpu, 1, DType> k,
                           Tensor<gpu, 1, DType> b, Tensor<gpu, 3, DType> dx) {
    Map<true>(req, x, dy.dptr_, DataGradientFn<DType>{a.dptr_, k.dptr_, b.dptr_}, dx);
  }

 private:
  template <bool kWithGrad, typename DType, typename Fn>
  static void Map(OpReqType req, Tensor<gpu, 3, DType> x, const DType* dy, Fn fn,
                  Tensor<gpu, 3, DType> out) {
    const mshadow::Shape<3> shape = x.shape_;
    if (req == kNullOp || shape.Size() == 0) return;
    const cudaStream_t stream = mshadow::Stream<gpu>::GetStream(x.stream_);
    const int lanes = LanesFor<DType>(shape[2], {x.dptr_, dy, out.dptr_});
    OPS_REQ_SWITCH(req, Req, {
      cuda::WithGridIndex(shape.Size(), kThreads, [&](auto index) {
        using Index = decltype(index);
        WithLanes(lanes, [&](auto lanes_c) {
          constexpr int kLanes = decltype(lanes_c)::value;
          if constexpr (kLanes == 1 || kLanes == kVecLanes<DType>) {
            const index_t n_v = shape.Size() / kLanes;
            ChannelMapKernel<Req, kWithGrad, kLanes>
                <<<mshadow::cuda::GridFor(n_v, kThreads), kThreads, 0, stream>>>(
                    Index(n_v), Index(shape[1]), Index(shape[2] / kLanes), x.dptr_, dy, fn,
                    out.dptr_);
            MSHADOW_CUDA_CHECK_LAUNCH("ChannelMapKernel");
          }
        });
      });
    });
  }
};

namespace {

const bool kRegistered = [] {
  SetBatchNormCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace batch_norm
}  // namespace ops
