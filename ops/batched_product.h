// ops/batched_product.h: batches of small row-major matrix products on the CPU, an entry a
// register-tiled product (ops/register_gemm.h) on one of the library's threads: the
// interleaved attention products and the batched products of small matrices (mshadow's
// batch_dot runs one BLAS call per entry, each split between the threads, which for matrices
// of 32 rows costs more than the product).
//
//   batched::MatrixBatch m{0, rows, cols, cols, rows * cols};  // contiguous matrices
//   batched::BatchedProductOnCpu(entries, c, m, kWriteTo, a, am, false, b, bm, false, 1.0f);
#ifndef OPS_BATCHED_PRODUCT_H_
#define OPS_BATCHED_PRODUCT_H_

#include <algorithm>
#include <vector>

#include "mshadow/parallel.h"
#include "ops/kernel_util.h"
#include "ops/register_gemm.h"
#include "ops/transpose_block.h"
#include "ops/vector_loop.h"

namespace ops {
namespace batched {

// A batch of row-major matrices in an array: entry x starts at offset + x * stride, its rows
// ld elements apart.
struct MatrixBatch {
  index_t offset, rows, columns, ld, stride;
};

// c[x] (written, or added for kAddTo) = alpha * op(a[x]) op(b[x]) for each of `entries` entries
// on the CPU: the entries shared out to the library's threads, each product a
// register-tiled one (ops/register_gemm.h) on its thread alone. (As one OpenBLAS gemm per
// entry, each gemm split between the threads by OpenBLAS, two threads ran these products
// slower than one: docs/benchmarks.md, fiftieth session.) b is read as TiledGemm reads it,
// by rows of the inner dimension: a transposed or scaled b is copied so, alpha folded in.
template <typename DType>
void BatchedProductOnCpu(index_t entries, DType* c, const MatrixBatch& cm, OpReqType req,
                         const DType* a, const MatrixBatch& am, bool trans_a, const DType* b,
                         const MatrixBatch& bm, bool trans_b, DType alpha) {
  const index_t rows = cm.rows, cols = cm.columns, depth = trans_a ? am.rows : am.columns;
  const bool copy_b = trans_b || alpha != DType(1);
  const index_t work = entries * rows * cols * depth;
  const index_t threads =
      std::max<index_t>(1, std::min<index_t>({mshadow::GetNumThreads(), entries,
                                              work / register_gemm::kMultiplyAddsPerThread}));
  mshadow::ParallelFor(threads, static_cast<int>(threads), [&](index_t t) {
    std::vector<DType> copy(copy_b ? depth * cols : 0);
    for (index_t x = entries * t / threads; x < entries * (t + 1) / threads; ++x) {
      const DType* right = b + bm.offset + x * bm.stride;
      index_t ld = bm.ld;
      if (copy_b) {
        if (trans_b) {  // b[x] is (cols x depth)
          transpose::Transpose2D<false>(right, ld, copy.data(), cols, cols, depth);
        } else {
          for (index_t d = 0; d < depth; ++d) {
            std::copy(right + d * ld, right + d * ld + cols, copy.data() + d * cols);
          }
        }
        if (alpha != DType(1)) {
          DType* scaled = copy.data();
          OPS_SIMD_LOOP
          for (index_t i = 0; i < depth * cols; ++i) scaled[i] *= alpha;
        }
        right = copy.data();
        ld = cols;
      }
      register_gemm::TiledGemm(
          rows, depth, cols,
          register_gemm::LeftOperand<DType>{a + am.offset + x * am.stride, am.ld, trans_a}, right,
          ld, c + cm.offset + x * cm.stride, cm.ld, req == kAddTo);
    }
  });
}

}  // namespace batched
}  // namespace ops

#endif  // OPS_BATCHED_PRODUCT_H_
