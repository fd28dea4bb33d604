// mshadow/cuda/tensor_gpu-inl.cuh: evaluation of expressions on the GPU (CUDA translation
// units only; included by mshadow/tensor_gpu-inl.h under nvcc): MapExp (one fused
// grid-stride kernel per assignment) and the reductions MapReduceKeepLowest/KeepHighDim.
//
// Every kernel runs on the destination tensor's stream and returns without synchronizing.
// Indices are 32-bit where the element count fits (integer division is several times
// cheaper) and 64-bit above. Results do not depend on the launch configuration: each output
// is reduced in a fixed order for a given shape.
#ifndef MSHADOW_CUDA_TENSOR_GPU_INL_CUH_
#define MSHADOW_CUDA_TENSOR_GPU_INL_CUH_

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "mshadow/cuda/check.h"
#include "mshadow/cuda/flat_eval.cuh"
#include "mshadow/cuda/scratch_pool.h"
#include "mshadow/cuda/stream.h"
#include "mshadow/tensor_core.h"

namespace mshadow {
namespace cuda {

// Threads per block of the elementwise kernels.
constexpr int kMapThreads = 256;

// Streaming multiprocessors of the current device (queried once per device).
inline int MultiprocessorCount() {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> cached[kMaxDevices] = {};
  int device = 0;
  MSHADOW_CUDA_CALL(cudaGetDevice(&device));
  if (device < 0 || device >= kMaxDevices) device = 0;
  int count = cached[device].load(std::memory_order_relaxed);
  if (count == 0) {
    MSHADOW_CUDA_CALL(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    cached[device].store(count, std::memory_order_relaxed);
  }
  return count;
}

// Blocks for `items` work items of `threads` each: as many as the items need, so that each
// thread of a grid-stride kernel usually makes one pass (the loop only matters past the
// grid's limit). A grid capped at a few blocks per multiprocessor, each thread looping, fell
// short of copy bandwidth on an H100 where one pass per thread reached it (docs/benchmarks.md).
inline unsigned GridFor(index_t items, int threads) {
  constexpr index_t kMaxGrid = std::numeric_limits<int32_t>::max();
  const index_t needed = (items + threads - 1) / threads;
  return static_cast<unsigned>(std::max<index_t>(1, std::min(needed, kMaxGrid)));
}

// Whether a grid-stride loop over `n` items, `per_block` a block per step and its grid from
// GridFor, may count in 32 bits: an index plus one grid step (about n) must not wrap.
inline bool FitsUint32(index_t n, index_t per_block) {
  return n <= (static_cast<index_t>(std::numeric_limits<uint32_t>::max()) - per_block) / 2;
}

// dst[y][x] Saver= src[y][x] for the n = rows * width elements, flat, grid-stride.
template <typename Saver, typename DType, typename Index, typename DstPlan, typename SrcPlan>
__global__ void __launch_bounds__(kMapThreads)
    MapPlanKernel(DstPlan dst, const SrcPlan src, const Index width, const Index n) {
  const Index step = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const Index y = i / width;
    const Index x = i - y * width;
    Saver::template Save<DType>(dst.REval(y, x), src.Eval(y, x));
  }
}

template <typename Saver, typename DType, typename DstPlan, typename SrcPlan>
inline void MapPlan(const DstPlan& dst, const SrcPlan& src, Shape<2> shape, cudaStream_t stream) {
  const index_t n = shape.Size();
  if (n == 0) return;
  const unsigned grid = GridFor(n, kMapThreads);
  if (FitsUint32(n, kMapThreads)) {
    MapPlanKernel<Saver, DType, uint32_t><<<grid, kMapThreads, 0, stream>>>(
        dst, src, static_cast<uint32_t>(shape[1]), static_cast<uint32_t>(n));
  } else {
    MapPlanKernel<Saver, DType, uint64_t><<<grid, kMapThreads, 0, stream>>>(
        dst, src, static_cast<uint64_t>(shape[1]), static_cast<uint64_t>(n));
  }
  MSHADOW_CUDA_CHECK_LAUNCH("MapPlanKernel");
}

// Elements per thread per step of the flat kernel: its loads are issued together, before
// any store, so each thread keeps this many reads in flight (one 4-byte load is too little
// to cover memory latency at full bandwidth). The 16-byte kernel takes one vector a thread,
// which measured best on an H100 (docs/benchmarks.md).
constexpr int kFlatUnroll = 4;
constexpr int kVecUnroll = 1;

// dst[k] Saver= src[k] for the n elements of a packed expression (cuda::FlatEval), grid-stride
// over runs of kFlatUnroll * blockDim.x elements, each thread taking every blockDim.x-th
// element of a run (coalesced).
template <typename Saver, typename DType, typename Index, typename DstPlan, typename SrcPlan>
__global__ void __launch_bounds__(kMapThreads)
    MapFlatKernel(DstPlan dst, const SrcPlan src, const Index n) {
  const Index run = static_cast<Index>(kFlatUnroll) * blockDim.x;
  const Index step = static_cast<Index>(gridDim.x) * run;
  for (Index base = static_cast<Index>(blockIdx.x) * run + threadIdx.x; base < n; base += step) {
    DType value[kFlatUnroll];
#pragma unroll
    for (int k = 0; k < kFlatUnroll; ++k) {
      const Index i = base + static_cast<Index>(k) * blockDim.x;
      if (i < n) value[k] = src.Eval(0, i);
    }
#pragma unroll
    for (int k = 0; k < kFlatUnroll; ++k) {
      const Index i = base + static_cast<Index>(k) * blockDim.x;
      if (i < n) Saver::template Save<DType>(dst.REval(0, i), value[k]);
    }
  }
}

template <typename Saver, typename DType, typename DstPlan, typename SrcPlan>
inline void MapFlat(const DstPlan& dst, const SrcPlan& src, index_t n, cudaStream_t stream) {
  if (n == 0) return;
  const index_t run = static_cast<index_t>(kFlatUnroll) * kMapThreads;
  const unsigned grid = GridFor((n + kFlatUnroll - 1) / kFlatUnroll, kMapThreads);
  if (FitsUint32(n, run)) {
    MapFlatKernel<Saver, DType, uint32_t>
        <<<grid, kMapThreads, 0, stream>>>(dst, src, static_cast<uint32_t>(n));
  } else {
    MapFlatKernel<Saver, DType, uint64_t>
        <<<grid, kMapThreads, 0, stream>>>(dst, src, static_cast<uint64_t>(n));
  }
  MSHADOW_CUDA_CHECK_LAUNCH("MapFlatKernel");
}

// The flat kernel with 16-byte loads and stores (every tensor aligned, cuda::VecPlan): each
// thread takes kVecUnroll vectors a step, loads first; the n % kVecLanes elements past the
// last whole vector go to block 0 through the scalar plans.
template <typename Saver, typename DType, typename Index, typename DstPlan, typename SrcPlan,
          typename SrcVecPlan>
__global__ void __launch_bounds__(kMapThreads)
    MapVecKernel(DstPlan dst, const SrcPlan src, DType* dst_data, const SrcVecPlan src_vec,
                 const Index n) {
  constexpr int kLanes = kVecLanes<DType>;
  const Index vectors = n / kLanes;
  const Index run = static_cast<Index>(kVecUnroll) * blockDim.x;
  const Index step = static_cast<Index>(gridDim.x) * run;
  for (Index base = static_cast<Index>(blockIdx.x) * run + threadIdx.x; base < vectors;
       base += step) {
    Vec16<DType> value[kVecUnroll];
#pragma unroll
    for (int k = 0; k < kVecUnroll; ++k) {
      const Index v = base + static_cast<Index>(k) * blockDim.x;
      if (v < vectors) src_vec.Load(static_cast<index_t>(v) * kLanes, &value[k]);
    }
#pragma unroll
    for (int k = 0; k < kVecUnroll; ++k) {
      const Index v = base + static_cast<Index>(k) * blockDim.x;
      if (v >= vectors) continue;
      auto* out = reinterpret_cast<Vec16<DType>*>(dst_data) + v;
      if (std::is_same<Saver, sv::saveto>::value) {
        *out = value[k];
      } else {
        Vec16<DType> current = *out;
#pragma unroll
        for (int lane = 0; lane < kLanes; ++lane) {
          Saver::template Save<DType>(current.lane[lane], value[k].lane[lane]);
        }
        *out = current;
      }
    }
  }
  if (blockIdx.x == 0) {
    for (Index i = vectors * kLanes + threadIdx.x; i < n; i += blockDim.x) {
      Saver::template Save<DType>(dst.REval(0, i), src.Eval(0, i));
    }
  }
}

template <typename Saver, typename DType, typename DstPlan, typename SrcPlan, typename SrcVecPlan>
inline void MapVec(const DstPlan& dst, const SrcPlan& src, DType* dst_data,
                   const SrcVecPlan& src_vec, index_t n, cudaStream_t stream) {
  if (n == 0) return;
  const index_t vectors = n / kVecLanes<DType>;
  const unsigned grid =
      GridFor(std::max<index_t>(1, (vectors + kVecUnroll - 1) / kVecUnroll), kMapThreads);
  if (FitsUint32(n, static_cast<index_t>(kVecUnroll) * kMapThreads * kVecLanes<DType>)) {
    MapVecKernel<Saver, DType, uint32_t>
        <<<grid, kMapThreads, 0, stream>>>(dst, src, dst_data, src_vec, static_cast<uint32_t>(n));
  } else {
    MapVecKernel<Saver, DType, uint64_t>
        <<<grid, kMapThreads, 0, stream>>>(dst, src, dst_data, src_vec, static_cast<uint64_t>(n));
  }
  MSHADOW_CUDA_CHECK_LAUNCH("MapVecKernel");
}

// Reduces `value` over the block's threads (blockDim.x * blockDim.y, a power of two at
// most 1024) in a fixed tree order; the result is valid in thread (0, 0).
template <typename Reducer, typename DType>
__device__ DType BlockReduce(DType value, DType* shared) {
  const unsigned tid = threadIdx.y * blockDim.x + threadIdx.x;
  const unsigned size = blockDim.x * blockDim.y;
  shared[tid] = value;
  __syncthreads();
  for (unsigned half = size / 2; half > 0; half /= 2) {
    if (tid < half) Reducer::Reduce(shared[tid], shared[tid + half]);
    __syncthreads();
  }
  return shared[0];
}

// What reductions accumulate in: float for the 16-bit storage types (a sum of thousands of
// half_t values rounded at every step would lose most of its digits), the type itself else.
template <typename DType>
using Accum = std::conditional_t<std::is_same<DType, half::half_t>::value ||
                                     std::is_same<DType, bfloat::bf16_t>::value,
                                 float, DType>;

// Column reduction (MapReduceKeepLowest): a block covers 32 columns and the rows
// [chunk * rows_per_chunk, ...) of its blockIdx.y chunk; its 8 row lanes take every 8th
// row, then fold together in shared memory. With one chunk, the block saves the result;
// with several, it writes its partial row, reduced by ReducePartialsKernel.
constexpr int kColumnTile = 32;
constexpr int kRowLanes = 8;

template <typename Saver, typename Reducer, typename DType, typename DstPlan, typename SrcPlan>
__global__ void __launch_bounds__(kColumnTile* kRowLanes)
    ReduceColumnsKernel(DstPlan dst, const SrcPlan src, const index_t rows, const index_t width,
                        const index_t rows_per_chunk, Accum<DType>* partial,
                        const Accum<DType> scale) {
  __shared__ Accum<DType> shared[kColumnTile * kRowLanes];
  const index_t x = static_cast<index_t>(blockIdx.x) * kColumnTile + threadIdx.x;
  const index_t begin = static_cast<index_t>(blockIdx.y) * rows_per_chunk;
  const index_t end = min(rows, begin + rows_per_chunk);
  Accum<DType> acc;
  Reducer::SetInitValue(acc);
  if (x < width) {
    for (index_t y = begin + threadIdx.y; y < end; y += kRowLanes) {
      Reducer::Reduce(acc, static_cast<Accum<DType>>(src.Eval(y, x)));
    }
  }
  shared[threadIdx.y * kColumnTile + threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y != 0 || x >= width) return;
  for (int lane = 1; lane < kRowLanes; ++lane) {
    Reducer::Reduce(acc, shared[lane * kColumnTile + threadIdx.x]);
  }
  if (partial != nullptr) {
    partial[static_cast<index_t>(blockIdx.y) * width + x] = acc;
  } else {
    Saver::template Save<DType>(dst.REval(0, x), DType(acc * scale));
  }
}

// dst[x] Saver= scale * Reduce over the `chunks` rows of partial[chunk][x] (x: a column of
// MapReduceKeepLowest or a kept index of MapReduceKeepHighDim).
template <typename Saver, typename Reducer, typename DType, typename DstPlan>
__global__ void ReducePartialsKernel(DstPlan dst, const Accum<DType>* partial, const index_t chunks,
                                     const index_t width, const Accum<DType> scale) {
  const index_t x = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (x >= width) return;
  Accum<DType> acc;
  Reducer::SetInitValue(acc);
  for (index_t c = 0; c < chunks; ++c) Reducer::Reduce(acc, partial[c * width + x]);
  Saver::template Save<DType>(dst.REval(0, x), DType(acc * scale));
}

// Kept-index reduction (MapReduceKeepHighDim) over the expression viewed as (outer, kept,
// inner rows, width): block (c, chunk) reduces the elements [chunk * per_chunk, ...) of the
// outer * inner * width that map to kept index c. Each thread walks its elements kKeptThreads
// apart, advancing (n, i, x) by carries instead of dividing (a 64-bit division per element
// cost more than the load), with a few loads unrolled in flight.
constexpr int kKeptThreads = 256;

// The step of kKeptThreads elements in (n, i, x) coordinates, for a (outer, inner, width) walk.
struct KeptStep {
  index_t dn, di, dx;
};

template <typename Saver, typename Reducer, typename DType, typename DstPlan, typename SrcPlan>
__global__ void __launch_bounds__(kKeptThreads)
    ReduceKeptKernel(DstPlan dst, const SrcPlan src, const index_t kept, const index_t inner,
                     const index_t width, const index_t total, const index_t per_chunk,
                     const KeptStep step, Accum<DType>* partial, const Accum<DType> scale) {
  __shared__ Accum<DType> shared[kKeptThreads];
  const index_t c = blockIdx.x;
  const index_t begin = static_cast<index_t>(blockIdx.y) * per_chunk;
  const index_t end = min(total, begin + per_chunk);
  index_t j = begin + threadIdx.x;
  // Coordinates of element j: one division per thread (none when there are no elements).
  index_t x = 0, i = 0, n = 0;
  if (j < end) {
    x = j % width;
    const index_t r = j / width;
    i = r % inner;
    n = r / inner;
  }
  Accum<DType> acc;
  Reducer::SetInitValue(acc);
#pragma unroll 4
  for (; j < end; j += kKeptThreads) {
    Reducer::Reduce(acc, static_cast<Accum<DType>>(src.Eval((n * kept + c) * inner + i, x)));
    x += step.dx;
    i += step.di;
    n += step.dn;
    if (x >= width) {
      x -= width;
      ++i;
    }
    if (i >= inner) {
      i -= inner;
      ++n;
    }
  }
  acc = BlockReduce<Reducer>(acc, shared);
  if (threadIdx.x != 0) return;
  if (partial != nullptr) {
    partial[static_cast<index_t>(blockIdx.y) * kept + c] = acc;  // as ReducePartialsKernel reads
  } else {
    Saver::template Save<DType>(dst.REval(0, c), DType(acc * scale));
  }
}

// ReduceKeptKernel for an expression FlatEval passes with every tensor 16-byte aligned and
// the kept index's contiguous runs (inner * width elements) whole vectors: 16-byte loads
// (cuda::VecPlan), one accumulator per lane. The expression is (outer, kept, run_vectors)
// in vectors; the walk advances (n, v) by carries as ReduceKeptKernel does.
template <typename Saver, typename Reducer, typename DType, typename DstPlan, typename SrcVecPlan>
__global__ void __launch_bounds__(kKeptThreads)
    ReduceKeptVecKernel(DstPlan dst, const SrcVecPlan src, const index_t kept,
                        const index_t run_vectors, const index_t total, const index_t per_chunk,
                        Accum<DType>* partial, const Accum<DType> scale) {
  constexpr int kLanes = kVecLanes<DType>;
  __shared__ Accum<DType> shared[kKeptThreads];
  const index_t c = blockIdx.x;
  const index_t begin = static_cast<index_t>(blockIdx.y) * per_chunk;
  const index_t end = min(total, begin + per_chunk);
  index_t j = begin + threadIdx.x;
  index_t n = 0, v = 0;
  if (j < end) {
    n = j / run_vectors;
    v = j % run_vectors;
  }
  const index_t dn = kKeptThreads / run_vectors, dv = kKeptThreads % run_vectors;
  Accum<DType> acc[kLanes];
#pragma unroll
  for (int lane = 0; lane < kLanes; ++lane) Reducer::SetInitValue(acc[lane]);
#pragma unroll 4
  for (; j < end; j += kKeptThreads) {
    Vec16<DType> value;
    src.Load(((n * kept + c) * run_vectors + v) * kLanes, &value);
#pragma unroll
    for (int lane = 0; lane < kLanes; ++lane)
      Reducer::Reduce(acc[lane], static_cast<Accum<DType>>(value.lane[lane]));
    v += dv;
    n += dn;
    if (v >= run_vectors) {
      v -= run_vectors;
      ++n;
    }
  }
#pragma unroll
  for (int lane = 1; lane < kLanes; ++lane) Reducer::Reduce(acc[0], acc[lane]);
  const Accum<DType> sum = BlockReduce<Reducer>(acc[0], shared);
  if (threadIdx.x != 0) return;
  if (partial != nullptr) {
    partial[static_cast<index_t>(blockIdx.y) * kept + c] = sum;
  } else {
    Saver::template Save<DType>(dst.REval(0, c), DType(sum * scale));
  }
}

// Device memory for partial results, stream-ordered: allocated on `stream` from the scratch
// pool (mshadow/cuda/scratch_pool.h) and freed on it.
template <typename DType>
class StreamBuffer {
 public:
  StreamBuffer(index_t count, cudaStream_t stream) : stream_(stream) {
    MSHADOW_CUDA_CALL(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&data_),
                                              static_cast<size_t>(count) * sizeof(DType),
                                              ScratchPool(), stream));
  }
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  ~StreamBuffer() { cudaFreeAsync(data_, stream_); }
  DType* get() const { return data_; }

 private:
  DType* data_ = nullptr;
  cudaStream_t stream_;
};

// Chunks to split `items` of work into, so that `blocks` blocks become about `blocks_per_sm`
// blocks per multiprocessor, none under `min_items` items.
inline index_t ChunksFor(index_t items, index_t blocks, index_t min_items, int blocks_per_sm) {
  const index_t waves = blocks_per_sm * MultiprocessorCount() / std::max<index_t>(blocks, 1);
  return std::max<index_t>(1, std::min(std::max<index_t>(1, waves), items / min_items));
}

// A reduction into `outputs` results split into `chunks`: `reduce(partial)` launches the
// reduction kernel, which saves the results itself when `partial` is null (one chunk) and
// otherwise writes partial[chunk][output], then folded by ReducePartialsKernel.
template <typename Saver, typename Reducer, typename DType, typename DstPlan, typename Launch>
inline void ReduceInChunks(const DstPlan& out, index_t outputs, index_t chunks, DType scale,
                           cudaStream_t stream, Launch&& reduce) {
  if (chunks == 1) {
    reduce(static_cast<Accum<DType>*>(nullptr));
    return;
  }
  StreamBuffer<Accum<DType>> partial(chunks * outputs, stream);
  reduce(partial.get());
  ReducePartialsKernel<Saver, Reducer, DType>
      <<<static_cast<unsigned>((outputs + 255) / 256), 256, 0, stream>>>(
          out, partial.get(), chunks, outputs, static_cast<Accum<DType>>(scale));
  MSHADOW_CUDA_CHECK_LAUNCH("ReducePartialsKernel");
}

}  // namespace cuda

// dst SV= exp on the GPU: the checks every device makes (mshadow/expr/type_check.h), then one
// kernel on dst's stream: flat where every operand is packed (cuda::FlatEval), with 16-byte
// accesses where every tensor is also aligned to 16 bytes, else by rows.
template <typename Saver, typename R, int dim, typename DType, typename E, int etype>
inline void MapExp(TRValue<R, gpu, dim, DType>* dst, const expr::Exp<E, DType, etype>& exp) {
  const Shape<2> shape =
      expr::CheckMapAssignment<gpu, dim, DType>(dst->self(), exp.self()).FlatTo2D();
  using expr::MakePlan;  // unqualified: ADL finds the MakePlan of extensions declared later
  const cudaStream_t stream = Stream<gpu>::GetStream(dst->self().stream_);
  if constexpr (cuda::FlatEval<R>::kPass && cuda::FlatEval<E>::kPass) {
    if (cuda::FlatEval<R>::Packed(dst->self()) && cuda::FlatEval<E>::Packed(exp.self())) {
      constexpr bool kVectorType = sizeof(DType) == 2 || sizeof(DType) == 4 || sizeof(DType) == 8;
      if constexpr (kVectorType) {
        if (cuda::FlatEval<R>::Aligned16(dst->self()) && cuda::FlatEval<E>::Aligned16(exp.self())) {
          cuda::MapVec<Saver>(MakePlan(dst->self()), MakePlan(exp.self()), dst->self().dptr_,
                              cuda::VecPlan<E, DType>(exp.self()), shape.Size(), stream);
          return;
        }
      }
      cuda::MapFlat<Saver, DType>(MakePlan(dst->self()), MakePlan(exp.self()), shape.Size(),
                                  stream);
      return;
    }
  }
  cuda::MapPlan<Saver, DType>(MakePlan(dst->self()), MakePlan(exp.self()), shape, stream);
}

// dst[x] Saver= scale * Reduce_y exp[y][x] on the GPU.
template <typename Saver, typename Reducer, typename R, typename DType, typename E, int etype>
inline void MapReduceKeepLowest(TRValue<R, gpu, 1, DType>* dst,
                                const expr::Exp<E, DType, etype>& exp, DType scale = 1) {
  const Shape<2> eshape = expr::CheckReduceKeepLowest<gpu, DType>(dst->self(), exp.self());
  const index_t rows = eshape[0], width = eshape[1];
  if (width == 0) return;
  using expr::MakePlan;
  const auto src = MakePlan(exp.self());
  const auto out = MakePlan(dst->self());
  const cudaStream_t stream = Stream<gpu>::GetStream(dst->self().stream_);
  const index_t tiles = (width + cuda::kColumnTile - 1) / cuda::kColumnTile;
  const index_t chunks = cuda::ChunksFor(rows, tiles, 64 * cuda::kRowLanes, 4);
  const index_t rows_per_chunk = (rows + chunks - 1) / chunks;
  const dim3 block(cuda::kColumnTile, cuda::kRowLanes);
  const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(chunks));
  cuda::ReduceInChunks<Saver, Reducer, DType>(
      out, width, chunks, scale, stream, [&](cuda::Accum<DType>* partial) {
        cuda::ReduceColumnsKernel<Saver, Reducer, DType><<<grid, block, 0, stream>>>(
            out, src, rows, width, rows_per_chunk, partial, static_cast<cuda::Accum<DType>>(scale));
        MSHADOW_CUDA_CHECK_LAUNCH("ReduceColumnsKernel");
      });
}

// dst[c] Saver= scale * Reduce over every index but dimension dimkeep of exp, on the GPU.
template <typename Saver, typename Reducer, int dimkeep, typename R, typename DType, typename E,
          int etype>
inline void MapReduceKeepHighDim(TRValue<R, gpu, 1, DType>* dst,
                                 const expr::Exp<E, DType, etype>& exp, DType scale = 1) {
  constexpr int kSrcDim = expr::ExpInfo<E>::kDim;
  const Shape<kSrcDim> eshape =
      expr::CheckReduceKeepHighDim<gpu, dimkeep, DType>(dst->self(), exp.self());
  const index_t outer = eshape.ProdShape(0, dimkeep);
  const index_t kept = eshape[dimkeep];
  const index_t inner = eshape.ProdShape(dimkeep + 1, kSrcDim - 1);
  const index_t width = eshape[kSrcDim - 1];
  if (kept == 0) return;
  using expr::MakePlan;
  const auto src = MakePlan(exp.self());
  const auto out = MakePlan(dst->self());
  const cudaStream_t stream = Stream<gpu>::GetStream(dst->self().stream_);
  const index_t total = outer * inner * width;
  constexpr int kLanes = cuda::kVecLanes<DType>;
  if constexpr (cuda::FlatEval<E>::kPass &&
                (sizeof(DType) == 2 || sizeof(DType) == 4 || sizeof(DType) == 8)) {
    const index_t run = inner * width;
    if (total > 0 && run % kLanes == 0 && cuda::FlatEval<E>::Packed(exp.self()) &&
        cuda::FlatEval<E>::Aligned16(exp.self())) {
      const index_t run_vectors = run / kLanes, vectors = total / kLanes;
      const index_t chunks = cuda::ChunksFor(vectors, kept, 16 * cuda::kKeptThreads, 16);
      const index_t per_chunk = (vectors + chunks - 1) / chunks;
      const dim3 grid(static_cast<unsigned>(kept), static_cast<unsigned>(chunks));
      const cuda::VecPlan<E, DType> src_vec(exp.self());
      cuda::ReduceInChunks<Saver, Reducer, DType>(
          out, kept, chunks, scale, stream, [&](cuda::Accum<DType>* partial) {
            cuda::ReduceKeptVecKernel<Saver, Reducer, DType>
                <<<grid, cuda::kKeptThreads, 0, stream>>>(out, src_vec, kept, run_vectors, vectors,
                                                          per_chunk, partial,
                                                          static_cast<cuda::Accum<DType>>(scale));
            MSHADOW_CUDA_CHECK_LAUNCH("ReduceKeptVecKernel");
          });
      return;
    }
  }
  const index_t chunks = cuda::ChunksFor(total, kept, 16 * cuda::kKeptThreads, 8);
  const index_t per_chunk = (total + chunks - 1) / chunks;
  const dim3 grid(static_cast<unsigned>(kept), static_cast<unsigned>(chunks));
  cuda::KeptStep step{0, 0, 0};
  if (total > 0) {
    const index_t rows_step = cuda::kKeptThreads / width;
    step = {rows_step / inner, rows_step % inner, cuda::kKeptThreads % width};
  }
  cuda::ReduceInChunks<Saver, Reducer, DType>(
      out, kept, chunks, scale, stream, [&](cuda::Accum<DType>* partial) {
        cuda::ReduceKeptKernel<Saver, Reducer, DType><<<grid, cuda::kKeptThreads, 0, stream>>>(
            out, src, kept, inner, width, total, per_chunk, step, partial,
            static_cast<cuda::Accum<DType>>(scale));
        MSHADOW_CUDA_CHECK_LAUNCH("ReduceKeptKernel");
      });
}

}  // namespace mshadow

#endif  // MSHADOW_CUDA_TENSOR_GPU_INL_CUH_
