// ops/small_triangular.h: triangular products and solves (BLAS's trmm and trsm) of batches of
// small matrices on the CPU, a matrix per thread at a time. OpenBLAS runs each small call on
// its own threads, which wait on one another by sched_yield: for 256 matrices of 32 x 32,
// two threads ran trsm slower than one, and three times slower still beside a process that
// wanted the cores (docs/benchmarks.md, fifty-second session).
//
// Row-major throughout: a[x] is n x n (its lower triangle with `lower`, else its upper one;
// the other is not read; op(a) = a or a^T), b[x] is rows x cols, overwritten:
//
//   // b[x] = alpha op(a[x]) b[x] (n = rows), or alpha b[x] op(a[x]) with rightside (n = cols)
//   small_triangular::Batch<false>(batch, a, n * n, n, lower, transpose, rightside, alpha,
//                                  b, rows * cols, rows, cols);
//   small_triangular::Batch<true>(...same...);  // alpha op(a)^-1 b, or alpha b op(a)^-1
#ifndef OPS_SMALL_TRIANGULAR_H_
#define OPS_SMALL_TRIANGULAR_H_

#include <vector>

#include "mshadow/packet-inl.h"
#include "ops/transpose_block.h"
#include "ops/vector_loop.h"

namespace ops {
namespace small_triangular {

using mshadow::index_t;

// The largest order of a handled here; larger ones go to BLAS's blocked algorithms.
constexpr index_t kMaxOrder = 64;

// Columns [j, j + kCount * P::kSize) of b, every row in turn, held in registers while a row is
// formed (the loops over them unrolled, or GCC's -O2 keeps the packets on the stack): row i of the
// result from row i of b and the rows k of the triangle's other side. Solving, op(a) x = alpha b:
// x_i = (alpha b_i - sum_k op(a)_ik x_k) / op(a)_ii, the rows k already solved. Multiplying: b_i =
// alpha (op(a)_ii b_i + sum_k op(a)_ik b_k), the rows k not yet overwritten. The order (ascending
// or descending) makes the rows k the right ones.
template <bool kSolve, typename P, int kCount, typename DType>
MSHADOW_CINLINE void RowsOfColumns(const DType* a, index_t lda, index_t n, bool effective_lower,
                                   bool transpose, DType alpha, DType* b, index_t ldb, index_t j) {
  const bool ascending = effective_lower == kSolve;
  for (index_t step = 0; step < n; ++step) {
    const index_t i = ascending ? step : n - 1 - step;
    const auto op_a = [&](index_t k) { return transpose ? a[k * lda + i] : a[i * lda + k]; };
    DType* row = b + i * ldb + j;
    // The sum over k in two chains (even and odd k): one chain waits on its additions.
    P sum[2][kCount];
    for (int chain = 0; chain < 2; ++chain) {
#pragma GCC unroll 4
      for (int c = 0; c < kCount; ++c) sum[chain][c] = P::Fill(DType(0));
    }
    const index_t k_begin = effective_lower ? 0 : i + 1, k_end = effective_lower ? i : n;
    const auto add_row = [&](index_t k, P* to) {
      const P weight = P::Fill(op_a(k));
      const DType* other = b + k * ldb + j;
#pragma GCC unroll 4
      for (int c = 0; c < kCount; ++c) {
        to[c] = to[c] + weight * P::LoadUnAligned(other + c * P::kSize);
      }
    };
    index_t k = k_begin;
    for (; k + 1 < k_end; k += 2) {
      add_row(k, sum[0]);
      add_row(k + 1, sum[1]);
    }
    if (k < k_end) add_row(k, sum[0]);
    const P first = P::Fill(kSolve ? alpha : op_a(i));
    P acc[kCount];
#pragma GCC unroll 4
    for (int c = 0; c < kCount; ++c) {
      const P own = P::LoadUnAligned(row + c * P::kSize) * first, others = sum[0][c] + sum[1][c];
      acc[c] = kSolve ? own - others : own + others;
    }
    const P last = P::Fill(kSolve ? op_a(i) : alpha);
#pragma GCC unroll 4
    for (int c = 0; c < kCount; ++c) {
      (kSolve ? acc[c] / last : acc[c] * last).StoreUnAligned(row + c * P::kSize);
    }
  }
}

// b (n x cols) = alpha op(a) b, or op(a)^-1 alpha b with kSolve: blocks of four packets of
// columns, then single packets, then single columns.
template <bool kSolve, typename DType>
void LeftInPlace(const DType* a, index_t lda, index_t n, bool lower, bool transpose, DType alpha,
                 DType* b, index_t ldb, index_t cols) {
  using P = vec::Full<DType>;
  using One = vec::One<DType>;
  const bool effective_lower = lower != transpose;
  index_t j = 0;
  for (; j + 4 * P::kSize <= cols; j += 4 * P::kSize) {
    RowsOfColumns<kSolve, P, 4>(a, lda, n, effective_lower, transpose, alpha, b, ldb, j);
  }
  for (; j + P::kSize <= cols; j += P::kSize) {
    RowsOfColumns<kSolve, P, 1>(a, lda, n, effective_lower, transpose, alpha, b, ldb, j);
  }
  for (; j < cols; ++j) {
    RowsOfColumns<kSolve, One, 1>(a, lda, n, effective_lower, transpose, alpha, b, ldb, j);
  }
}

// One matrix, either side. The right side is the left one on b's transpose (b op(a) =
// (op(a)^T b^T)^T), in `scratch`.
template <bool kSolve, typename DType>
void OneMatrix(const DType* a, index_t lda, index_t n, bool lower, bool transpose, bool rightside,
               DType alpha, DType* b, index_t ldb, index_t rows, index_t cols,
               std::vector<DType>* scratch) {
  if (!rightside) return LeftInPlace<kSolve>(a, lda, n, lower, transpose, alpha, b, ldb, cols);
  scratch->resize(static_cast<size_t>(rows * cols));
  DType* bt = scratch->data();  // cols x rows
  transpose::Transpose2D<false>(b, ldb, bt, rows, rows, cols);
  LeftInPlace<kSolve>(a, lda, n, lower, !transpose, alpha, bt, rows, rows);
  transpose::Transpose2D<false>(bt, rows, b, ldb, cols, rows);
}

// Every matrix x of a batch (a[x] at a + x * a_stride, b[x] at b + x * b_stride, contiguous
// rows), on the library's threads.
template <bool kSolve, typename DType>
void Batch(index_t batch, const DType* a, index_t a_stride, index_t n, bool lower, bool transpose,
           bool rightside, DType alpha, DType* b, index_t b_stride, index_t rows, index_t cols) {
  ParallelRows(batch, n * rows * cols, [&](index_t begin, index_t end) {
    std::vector<DType> scratch;
    for (index_t x = begin; x < end; ++x) {
      OneMatrix<kSolve>(a + x * a_stride, n, n, lower, transpose, rightside, alpha,
                        b + x * b_stride, cols, rows, cols, &scratch);
    }
  });
}

}  // namespace small_triangular
}  // namespace ops

#endif  // OPS_SMALL_TRIANGULAR_H_
