// FCompute<gpu> of transpose and its backward operator. A permutation that swaps two groups
// of trailing axes (a matrix transpose, NCHW -> NHWC, each batched over leading axes it keeps)
// goes through shared-memory tiles, so that both the reads and the writes are coalesced; any
// other permutation runs one thread per output element, reading the input at the permuted
// strides.
#include <algorithm>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/strided_index.h"
#include "ops/transpose-inl.h"

namespace ops {
namespace transpose {
namespace {

// out[i] = in at output element i's offset.
template <int kReq>
struct gather_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* in, StridedIndex<1> at) {
    index_t o;
    at.Offsets(i, &o);
    AssignReq<kReq>(out + i, in[o]);
  }
};

// A batch of (rows, cols) matrices, each transposed: the view of a permutation that keeps
// axes [0, b) and swaps the groups [b, k) and [k, ndim).
struct BatchedTranspose {
  index_t batch = 1, rows = 1, cols = 1;
};

// The batched-transpose view of `perm` over `shape`, or false when perm is not of that form.
bool AsBatchedTranspose(const TShape& shape, const std::vector<int>& perm, BatchedTranspose* t) {
  const int ndim = static_cast<int>(perm.size());
  int b = 0;
  while (b < ndim && perm[b] == b) ++b;
  if (b == ndim) return false;
  const int k = perm[b];
  // perm[b..] must be k, k + 1, ..., ndim - 1, then b, ..., k - 1.
  for (int d = b; d < ndim; ++d) {
    const int expected = d - b < ndim - k ? k + (d - b) : b + (d - b - (ndim - k));
    if (perm[d] != expected) return false;
  }
  *t = BatchedTranspose{};
  for (int d = 0; d < b; ++d) t->batch *= shape[d];
  for (int d = b; d < k; ++d) t->rows *= shape[d];
  for (int d = k; d < ndim; ++d) t->cols *= shape[d];
  return true;
}

constexpr int kTile = 32, kTileRows = 8;

// out[z][x][y] = in[z][y][x] for a (rows, cols) matrix z: a block moves one 32 x 32 tile
// through shared memory (padded by a column so that the column reads hit distinct banks).
template <int kReq, typename DType>
__global__ void __launch_bounds__(kTile* kTileRows)
    TransposeTilesKernel(DType* out, const DType* in, const index_t rows, const index_t cols) {
  __shared__ DType tile[kTile][kTile + 1];
  const index_t matrix = static_cast<index_t>(blockIdx.z) * rows * cols;
  const index_t x0 = static_cast<index_t>(blockIdx.x) * kTile;
  const index_t y0 = static_cast<index_t>(blockIdx.y) * kTile;
  for (int dy = threadIdx.y; dy < kTile; dy += kTileRows) {
    const index_t y = y0 + dy, x = x0 + threadIdx.x;
    if (y < rows && x < cols) tile[dy][threadIdx.x] = in[matrix + y * cols + x];
  }
  __syncthreads();
  for (int dx = threadIdx.y; dx < kTile; dx += kTileRows) {
    const index_t x = x0 + dx, y = y0 + threadIdx.x;
    if (y < rows && x < cols) AssignReq<kReq>(out + matrix + x * rows + y, tile[threadIdx.x][dx]);
  }
}

template <int kReq, typename DType>
void TransposeTiles(mshadow::Stream<gpu>* s, const BatchedTranspose& t, DType* out,
                    const DType* in) {
  // Batches past the grid's z limit go in several launches.
  constexpr index_t kMaxGridZ = 65535;
  const dim3 block(kTile, kTileRows);
  for (index_t first = 0; first < t.batch; first += kMaxGridZ) {
    const index_t count = std::min(kMaxGridZ, t.batch - first);
    const dim3 grid(static_cast<unsigned>((t.cols + kTile - 1) / kTile),
                    static_cast<unsigned>((t.rows + kTile - 1) / kTile),
                    static_cast<unsigned>(count));
    const index_t offset = first * t.rows * t.cols;
    TransposeTilesKernel<kReq><<<grid, block, 0, mshadow::Stream<gpu>::GetStream(s)>>>(
        out + offset, in + offset, t.rows, t.cols);
    MSHADOW_CUDA_CHECK_LAUNCH("TransposeTilesKernel");
  }
}

// The forward operator permutes by perm; the backward operator, by its inverse.
template <bool kBackward>
void TransposeComputeGpu(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int ndim = in[0].ndim();
  const std::vector<int> perm = PermutationFor(attrs, ndim, kBackward);
  const std::vector<index_t> in_strides = RowMajorStrides(in[0].shape_);
  std::vector<index_t> extents(ndim), strides(ndim);
  for (int d = 0; d < ndim; ++d) {  // output axis d is input axis perm[d]
    extents[d] = in[0].shape_[perm[d]];
    strides[d] = in_strides[perm[d]];
  }
  const auto at = StridedIndex<1>::Of(extents, {strides});
  BatchedTranspose tiles;
  const bool tiled = in[0].Size() > 0 && AsBatchedTranspose(in[0].shape_, perm, &tiles) &&
                     tiles.rows > 1 && tiles.cols > 1 && tiles.rows <= index_t{65535} * kTile &&
                     tiles.cols < (index_t{1} << 31) * kTile;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      if (tiled) {
        TransposeTiles<Req>(ctx.get_stream<gpu>(), tiles, out[0].dptr<DType>(),
                            in[0].dptr<DType>());
      } else {
        Kernel<gather_kernel<Req>, gpu>::Launch(ctx.get_stream<gpu>(), out[0].Size(),
                                                out[0].dptr<DType>(), in[0].dptr<DType>(), at);
      }
    });
  });
}

const bool kRegistered = [] {
  SetSwapAxesCompute<gpu>();
  SetBlockCompute<gpu>();
  RegisterOp("transpose").set_attr<FCompute>("FCompute<gpu>", TransposeComputeGpu<false>);
  RegisterOp("_backward_transpose").set_attr<FCompute>("FCompute<gpu>", TransposeComputeGpu<true>);
  return true;
}();

}  // namespace
}  // namespace transpose
}  // namespace ops
