// FCompute<gpu> of cumsum (cumsum-inl.h), and its scan of long lines along the last axis.
// A thread a line would walk such a line alone, so each line is cut into chunks of
// kChunk elements, a block each, in up to three passes: the chunks' sums, each line's sums
// before each chunk (a thread a line), and the chunks' scans from those carries. The passes
// add in a fixed order, so the results do not change between runs (CUB's single-pass device
// scan adds in whatever order its blocks finish). A line of one chunk takes the last pass only.
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "mshadow/cuda/check.h"
#include "mshadow/tensor.h"
#include "ops/cumsum-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace cumsum {
namespace {

constexpr int kThreads = 256;
constexpr int kItems = 16;  // per thread
constexpr index_t kChunk = kThreads * kItems;

// Element k of the scan of line `line` (of n elements): from the start or (kFromEnd) the end.
template <bool kFromEnd>
__device__ index_t Position(index_t line, index_t n, index_t k) {
  return line * n + (kFromEnd ? n - 1 - k : k);
}

// Block `chunk` loads its kChunk elements striped (thread t has elements t, t + kThreads,
// ...: coalesced), zeros past the line's end.
template <bool kFromEnd, typename OType, typename IType>
__device__ void LoadChunk(const IType* in, index_t n, index_t chunks_per_line, index_t chunk,
                          OType (&items)[kItems]) {
  const index_t line = chunk / chunks_per_line;
  const index_t first = chunk % chunks_per_line * kChunk;
  for (int j = 0; j < kItems; ++j) {
    const index_t k = first + j * kThreads + threadIdx.x;
    items[j] = k < n ? static_cast<OType>(in[Position<kFromEnd>(line, n, k)]) : OType(0);
  }
}

// Pass 1: each chunk's sum.
template <bool kFromEnd, typename OType, typename IType>
__global__ void __launch_bounds__(kThreads)
    ChunkSumsKernel(const IType* in, index_t n, index_t chunks_per_line, OType* sums) {
  using Reduce = cub::BlockReduce<OType, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  OType items[kItems];
  LoadChunk<kFromEnd>(in, n, chunks_per_line, blockIdx.x, items);
  OType sum = 0;
  for (int j = 0; j < kItems; ++j) sum += items[j];
  const OType total = Reduce(temp).Sum(sum);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

// Pass 2: a line's chunk sums replaced, in place, by the sums of the chunks before each.
template <typename OType>
__global__ void ChunkCarriesKernel(OType* sums, index_t lines, index_t chunks_per_line) {
  const index_t line = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (line >= lines) return;
  OType* line_sums = sums + line * chunks_per_line;
  OType carry = 0;
  for (index_t c = 0; c < chunks_per_line; ++c) {
    const OType sum = line_sums[c];
    line_sums[c] = carry;
    carry += sum;
  }
}

// Pass 3: each chunk scanned and its carry (none: 0) added; every element of the block is read
// before any is written, so out may be in.
template <int kReq, bool kFromEnd, typename OType, typename IType>
__global__ void __launch_bounds__(kThreads)
    ChunkScansKernel(OType* out, const IType* in, index_t n, index_t chunks_per_line,
                     const OType* carries) {
  using Exchange = cub::BlockExchange<OType, kThreads, kItems>;
  using Scan = cub::BlockScan<OType, kThreads>;
  __shared__ union {
    typename Exchange::TempStorage exchange;
    typename Scan::TempStorage scan;
  } temp;
  const index_t chunk = blockIdx.x;
  OType items[kItems];
  LoadChunk<kFromEnd>(in, n, chunks_per_line, chunk, items);
  Exchange(temp.exchange).StripedToBlocked(items);  // thread t: elements t * kItems, ...
  __syncthreads();
  Scan(temp.scan).InclusiveSum(items, items);
  __syncthreads();
  Exchange(temp.exchange).BlockedToStriped(items);
  const OType carry = carries == nullptr ? OType(0) : carries[chunk];
  const index_t line = chunk / chunks_per_line;
  const index_t first = chunk % chunks_per_line * kChunk;
  for (int j = 0; j < kItems; ++j) {
    const index_t k = first + j * kThreads + threadIdx.x;
    if (k < n) AssignReq<kReq>(out + Position<kFromEnd>(line, n, k), carry + items[j]);
  }
}

const bool kRegistered = [] {
  SetCumsumCompute<gpu>();
  return true;
}();

}  // namespace

template <bool kFromEnd>
void ScanLinesGpu(const OpContext& ctx, const AxisView& view, const TBlob& in, OpReqType req,
                  const TBlob& out) {
  mshadow::Stream<gpu>* s = ctx.get_stream<gpu>();
  const cudaStream_t stream = mshadow::Stream<gpu>::GetStream(s);
  const index_t lines = view.outer;
  const index_t chunks_per_line = (view.n + kChunk - 1) / kChunk;
  const index_t chunks = lines * chunks_per_line;
  CHECK_LE(chunks, index_t{0x7fffffff}) << "cumsum: too many chunks for one grid";
  MSHADOW_SGL_DBL_TYPE_SWITCH(out.type_flag_, OType, {
    MSHADOW_SGL_DBL_TYPE_SWITCH(in.type_flag_, IType, {
      const IType* x = in.dptr<IType>();
      OType* carries = nullptr;
      if (chunks_per_line > 1) {
        carries = ctx.requested[0].get_space_typed<gpu, 1, OType>(mshadow::Shape1(chunks), s).dptr_;
        ChunkSumsKernel<kFromEnd><<<static_cast<unsigned>(chunks), kThreads, 0, stream>>>(
            x, view.n, chunks_per_line, carries);
        MSHADOW_CUDA_CHECK_LAUNCH("ChunkSumsKernel");
        ChunkCarriesKernel<<<static_cast<unsigned>((lines + kThreads - 1) / kThreads), kThreads, 0,
                             stream>>>(carries, lines, chunks_per_line);
        MSHADOW_CUDA_CHECK_LAUNCH("ChunkCarriesKernel");
      }
      OPS_REQ_SWITCH(req, Req, {
        ChunkScansKernel<Req, kFromEnd><<<static_cast<unsigned>(chunks), kThreads, 0, stream>>>(
            out.dptr<OType>(), x, view.n, chunks_per_line, carries);
        MSHADOW_CUDA_CHECK_LAUNCH("ChunkScansKernel");
      });
    });
  });
}

template void ScanLinesGpu<false>(const OpContext&, const AxisView&, const TBlob&, OpReqType,
                                  const TBlob&);
template void ScanLinesGpu<true>(const OpContext&, const AxisView&, const TBlob&, OpReqType,
                                 const TBlob&);

}  // namespace cumsum
}  // namespace ops
