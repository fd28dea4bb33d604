// ops/column_chunks.h: the CPU's products over a convolution's column matrix (ops/im2col.h),
// a batch at a time. The images are shared out over threads in contiguous runs, each thread
// with scratch of its own, and each image's column matrix is made a chunk of input channels
// at a time (about 1 MiB: the chunk's products then read it from the L2 cache, where a whole
// column matrix of a large layer would not fit). A weight gradient is summed per thread and
// the threads' sums added in order at the end.
//
//   const ColumnPlan plan = PlanColumns(g, groups, sizeof(float));
//   ForEachColumnChunk(stream, plan, threads, batch, images, space, stride,
//                      [&](index_t t, index_t n, bool first_image, index_t grp,
//                          index_t first_row, const Tensor<cpu, 2, float>& col) { ... });
//   WeightGradient(stream, plan, rows, threads, batch, images, grads, req, dw, space,
//                  chunk_fn);  // dw = sum over images of grads[n] * col^T
#ifndef OPS_COLUMN_CHUNKS_H_
#define OPS_COLUMN_CHUNKS_H_

#include <algorithm>

#include "mshadow/tensor.h"
#include "ops/conv_geometry.h"
#include "ops/im2col.h"
#include "ops/matrix_product.h"
#include "ops/transpose_block.h"
#include "ops/vector_loop.h"

namespace ops {
namespace column_chunks {

using mshadow::cpu;
using mshadow::Tensor;

// The column passes of convolution g (Im2Col of images (batch, g.channels, g.in...)) in
// `groups` groups.
struct ColumnPlan {
  ConvGeometry g;
  index_t groups = 1;
  index_t chunk_channels = 1;  // input channels per chunk

  index_t GroupChannels() const { return g.channels / groups; }
  index_t GroupColRows() const { return g.ColRows() / groups; }
  // A thread's chunk of the column matrix.
  index_t ChunkSize() const { return chunk_channels * g.KernelSize() * g.OutSize(); }
};

// Chunks of about 1 MiB, the group's channels shared evenly between them.
inline ColumnPlan PlanColumns(const ConvGeometry& g, index_t groups, size_t element_bytes) {
  constexpr size_t kChunkBytes = size_t{1} << 20;
  ColumnPlan p;
  p.g = g;
  p.groups = groups;
  const index_t per_channel = std::max<index_t>(1, g.KernelSize() * g.OutSize());
  const index_t most =
      std::max<index_t>(1, static_cast<index_t>(kChunkBytes / element_bytes) / per_channel);
  const index_t channels = std::max<index_t>(1, p.GroupChannels());
  const index_t chunks = (channels + most - 1) / most;
  p.chunk_channels = (channels + chunks - 1) / chunks;
  return p;
}

// fn(t, n, first_image, grp, first_row, col) for each image n of `images` (batch,
// g.channels, g.in...), each group grp and each chunk of its input channels, col (chunk
// channels * kernel size rows, g.OutSize() columns) the chunk's column matrix and first_row
// its first row among the group's column rows. The images go in contiguous runs to `threads`
// threads (BatchThreads'), t the thread and first_image whether n starts its run; thread t's
// chunk is at space + t * stride (stride at least ChunkSize()). One thread leaves the
// library's threads to the products.
template <typename DType, typename Fn>
void ForEachColumnChunk(mshadow::Stream<cpu>* stream, const ColumnPlan& p, index_t threads,
                        index_t batch, const DType* images, DType* space, index_t stride,
                        Fn&& fn) {
  const index_t kernel = p.g.KernelSize(), plane = p.g.InSize();
  const index_t group_channels = p.GroupChannels();
  ForEachImageRun(batch, threads, [&](index_t t, index_t begin, index_t end) {
    DType* col = space + t * stride;
    for (index_t n = begin; n < end; ++n) {
      for (index_t grp = 0; grp < p.groups; ++grp) {
        for (index_t c0 = 0; c0 < group_channels; c0 += p.chunk_channels) {
          ConvGeometry part = p.g;
          part.channels = std::min(p.chunk_channels, group_channels - c0);
          Im2Col(stream, part, images + (n * p.g.channels + grp * group_channels + c0) * plane,
                 col);
          fn(t, n, n == begin, grp, c0 * kernel,
             Tensor<cpu, 2, DType>(col, mshadow::Shape2(part.ColRows(), p.g.OutSize())));
        }
      }
    }
  });
}

// dw (groups * rows, col_rows), written as `req` says, = the sum of the threads' sums in
// order, sums_of(t) holding per group col_rows x rows (dw's group transposed), for the
// threads that had images (batch images in runs over `threads`, as ForEachImageRun shares
// them out).
template <typename DType, typename SumsOf>
void AddSums(index_t groups, index_t rows, index_t col_rows, index_t threads, index_t batch,
             SumsOf&& sums_of, OpReqType req, Tensor<cpu, 2, DType> dw) {
  if (batch == 0) {
    if (req == kWriteTo || req == kWriteInplace) dw = DType(0);  // no image to sum over
    return;
  }
  for (index_t t = 0; t < threads; ++t) {
    if (batch * t / threads == batch * (t + 1) / threads) continue;  // a thread without images
    const bool add = req == kAddTo || t > 0;
    for (index_t grp = 0; grp < groups; ++grp) {
      const DType* from = sums_of(t) + grp * col_rows * rows;
      DType* to = dw[grp * rows].dptr_;
      if (add) {
        transpose::Transpose2D<true>(from, rows, to, dw.stride_, col_rows, rows);
      } else {
        transpose::Transpose2D<false>(from, rows, to, dw.stride_, col_rows, rows);
      }
    }
  }
}

// Scratch for WeightGradient with `rows` rows of the gradient per group: per thread a chunk,
// a group's gradient rows transposed and the thread's sums (transposed).
inline index_t WeightGradientSpace(const ColumnPlan& p, index_t rows, index_t threads) {
  return threads * (p.ChunkSize() + p.g.OutSize() * rows + p.g.ColRows() * rows);
}

// dw (groups * rows, GroupColRows()), written as `req` says, = the sum over the batch of
// grads[n] (groups * rows, g.OutSize()) times the column matrix of images[n], transposed, per
// group. Each thread sums its images' products transposed, dw^T += col * grads^T, so that they
// read their right operand by rows (ops/matrix_product.h); the threads' sums are then
// transposed into dw in order. chunk_fn(n, grp, first_row, col) runs on every chunk too (with
// req kNullOp, only it: a data gradient's product). `space` holds
// WeightGradientSpace(p, rows, threads). `rows` must be a packet or more, for the sums' rows.
template <typename DType, typename ChunkFn>
void WeightGradient(mshadow::Stream<cpu>* stream, const ColumnPlan& p, index_t rows,
                    index_t threads, index_t batch, const DType* images,
                    const Tensor<cpu, 3, DType>& grads, OpReqType req, Tensor<cpu, 2, DType> dw,
                    DType* space, ChunkFn&& chunk_fn) {
  const index_t col_rows = p.GroupColRows(), out_size = p.g.OutSize();
  const index_t per_thread = WeightGradientSpace(p, rows, 1);
  const auto grads_t_of = [&](index_t t) { return space + t * per_thread + p.ChunkSize(); };
  const auto sums_of = [&](index_t t) { return grads_t_of(t) + out_size * rows; };
  ForEachColumnChunk(
      stream, p, threads, batch, images, space, per_thread,
      [&](index_t t, index_t n, bool first_image, index_t grp, index_t first_row,
          const Tensor<cpu, 2, DType>& col) {
        chunk_fn(n, grp, first_row, col);
        if (req == kNullOp) return;
        DType* grads_t = grads_t_of(t);
        if (first_row == 0) {  // the group's gradient rows, transposed once per image
          const Tensor<cpu, 2, DType> g = grads[n].Slice(grp * rows, (grp + 1) * rows);
          transpose::Transpose2D<false>(g.dptr_, g.stride_, grads_t, rows, rows, out_size);
        }
        Product(Tensor<cpu, 2, DType>(sums_of(t) + (grp * col_rows + first_row) * rows,
                                      mshadow::Shape2(col.size(0), rows)),
                first_image ? kWriteTo : kAddTo, col, false,
                Tensor<cpu, 2, DType>(grads_t, mshadow::Shape2(out_size, rows)));
      });
  if (req == kNullOp) return;
  AddSums(p.groups, rows, col_rows, threads, batch, sums_of, req, dw);
}

}  // namespace column_chunks
}  // namespace ops

#endif  // OPS_COLUMN_CHUNKS_H_
