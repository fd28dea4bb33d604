// ops/blocked_triangular.h: BLAS's trsm for one large matrix on the CPU, by blocks of rows (or
// columns, from the right): each block's own small triangle through ops/small_triangular.h,
// the products between blocks (nearly all of the work) through ops/register_gemm.h.
// OpenBLAS's own trsm ran a 1024 x 1024 solve at 0.75 of MXNet's on this project's AVX-512
// machines (docs/benchmarks.md, fifty-ninth and sixty-first sessions).
//
// Row-major: a is n x n (its lower triangle with `lower`, else its upper one; the other is not
// read; op(a) = a or a^T), b is rows x cols, overwritten:
//
//   // b = alpha op(a)^-1 b (n = rows), or alpha b op(a)^-1 with rightside (n = cols)
//   blocked_triangular::Solve(a, lda, n, lower, transpose, rightside, alpha, b, ldb, rows, cols);
//
// A zero on a's diagonal divides by zero, as BLAS does: infinities and NaN.
#ifndef OPS_BLOCKED_TRIANGULAR_H_
#define OPS_BLOCKED_TRIANGULAR_H_

#include <algorithm>
#include <vector>

#include "ops/register_gemm.h"
#include "ops/small_triangular.h"
#include "ops/transpose_block.h"
#include "ops/vector_loop.h"

namespace ops {
namespace blocked_triangular {

using mshadow::index_t;

// The order of the diagonal blocks: the largest small_triangular solves in registers.
constexpr index_t kBlock = small_triangular::kMaxOrder;

// Rows of b a thread solves at a time against a diagonal block from the right (through a
// transposed copy of kRightPanelRows x kBlock, which stays in the L1 cache).
constexpr index_t kRightPanelRows = 64;

// The blocks of [0, n), kBlock wide, in the given order. fn(begin, end, done_begin, done_end):
// the block and the blocks before it in that order.
template <typename Fn>
void ForEachBlock(index_t n, bool ascending, Fn&& fn) {
  for (index_t solved = 0; solved < n; solved += kBlock) {
    const index_t width = std::min(kBlock, n - solved);
    if (ascending) {
      fn(solved, solved + width, index_t{0}, solved);
    } else {
      fn(n - solved - width, n - solved, n - solved, n);
    }
  }
}

// row[j] = factor * row[j] for j < n, on packets.
template <typename DType>
void ScaleRow(DType factor, DType* row, index_t n) {
  vec::ForEach<DType>(n, [&](index_t j, auto tag) {
    using P = vec::PacketOf<decltype(tag)>;
    (P::LoadUnAligned(row + j) * P::Fill(factor)).StoreUnAligned(row + j);
  });
}

// dst (rows x cols, dst_ld apart) = factor * op(a)[row0 + i][col0 + j]: whole rows of a
// copied, or squares of it transposed.
template <typename DType>
void CopyOfOp(const DType* a, index_t lda, bool transpose, index_t row0, index_t col0, index_t rows,
              index_t cols, DType factor, DType* dst, index_t dst_ld) {
  if (transpose) {
    transpose::Transpose2D<false>(a + col0 * lda + row0, lda, dst, dst_ld, cols, rows);
  } else {
    for (index_t i = 0; i < rows; ++i) {
      std::copy_n(a + (row0 + i) * lda + col0, cols, dst + i * dst_ld);
    }
  }
  if (factor == DType(1)) return;
  for (index_t i = 0; i < rows; ++i) ScaleRow(factor, dst + i * dst_ld, cols);
}

// b (rows x cols, ldb apart) *= alpha.
template <typename DType>
void Scale(DType alpha, DType* b, index_t ldb, index_t rows, index_t cols) {
  if (alpha == DType(1)) return;
  for (index_t i = 0; i < rows; ++i) ScaleRow(alpha, b + i * ldb, cols);
}

// The widest run of columns small_triangular solves at a time (four packets).
template <typename DType>
constexpr index_t kColumnGroup = 4 * vec::Full<DType>::kSize;

// op(a) x = b for b's `cols` columns, on the calling thread: block rows of b in turn (top down
// where op(a) is lower, else bottom up), each solved through its own triangle, op(a)_II x_I =
// b_I, then taken off the rows still to come as a product with op(a)'s negated block beside
// it: b_rest -= op(a)[rest, I] x_I.
template <typename DType>
void SolveLeft(const DType* a, index_t lda, index_t n, bool lower, bool transpose, DType* b,
               index_t ldb, index_t cols) {
  constexpr index_t kGroup = kColumnGroup<DType>;
  // op(a)'s block beside the diagonal block, negated; the diagonal block (its rows a cache line
  // or more apart in a, which the triangle reads against one cache set); and a group of b's
  // columns, copied there for the same reason.
  std::vector<DType> beside, diagonal(kBlock * kBlock), group(kBlock * kGroup);
  const bool ascending = lower != transpose;
  ForEachBlock(n, ascending, [&](index_t begin, index_t end, index_t, index_t) {
    const index_t width = end - begin;
    DType* block = b + begin * ldb;
    CopyOfOp(a, lda, transpose, begin, begin, width, width, DType(1), diagonal.data(), width);
    for (index_t first = 0; first < cols; first += kGroup) {
      const index_t count = std::min(kGroup, cols - first);
      for (index_t i = 0; i < width; ++i) {
        std::copy_n(block + i * ldb + first, count, group.data() + i * kGroup);
      }
      small_triangular::LeftInPlace<true>(diagonal.data(), width, width, ascending,
                                          /*transpose=*/false, DType(1), group.data(), kGroup,
                                          count);
      for (index_t i = 0; i < width; ++i) {
        std::copy_n(group.data() + i * kGroup, count, block + i * ldb + first);
      }
    }
    const index_t rest_begin = ascending ? end : 0, rest = ascending ? n - end : begin;
    if (rest == 0) return;
    beside.resize(static_cast<size_t>(rest * width));
    CopyOfOp(a, lda, transpose, rest_begin, begin, rest, width, DType(-1), beside.data(), width);
    register_gemm::TiledGemm<DType>(rest, width, cols, {beside.data(), width, false}, block, ldb,
                                    b + rest_begin * ldb, ldb, /*accumulate=*/true);
  });
}

// x op(a) = b for b's `rows` rows, on the calling thread: block columns of b in turn (left to
// right where op(a) is upper), a panel of rows at a time: b_J -= x_done op(a)[done, J], with
// op(a)'s negated block as the right operand, then x_J op(a)_JJ = b_J while the panel's
// product is still in the L1 cache.
template <typename DType>
void SolveRight(const DType* a, index_t lda, index_t n, bool lower, bool transpose, DType* b,
                index_t ldb, index_t rows) {
  // op(a)'s block above the diagonal block, negated, and packed into strips once for every
  // panel; the diagonal block (as in SolveLeft); the transposed panel its triangle runs on.
  std::vector<DType> beside, packed, diagonal(kBlock * kBlock), scratch;
  const bool effective_lower = lower != transpose;
  ForEachBlock(
      n, !effective_lower, [&](index_t begin, index_t end, index_t done_begin, index_t done_end) {
        const index_t width = end - begin, done = done_end - done_begin;
        DType* block = b + begin;
        register_gemm::RightOperand<DType> right{nullptr, width};
        if (done > 0) {
          beside.resize(static_cast<size_t>(done * width));
          CopyOfOp(a, lda, transpose, done_begin, begin, done, width, DType(-1), beside.data(),
                   width);
          right.data = beside.data();
          if (register_gemm::PacksColumns<DType>(width)) {
            packed.resize(beside.size());
            register_gemm::PackRightOperand(done, width, beside.data(), width, packed.data());
            right = register_gemm::RightOperand<DType>::Packed(packed.data(), done);
          }
        }
        CopyOfOp(a, lda, transpose, begin, begin, width, width, DType(1), diagonal.data(), width);
        for (index_t first = 0; first < rows; first += kRightPanelRows) {
          const index_t count = std::min(kRightPanelRows, rows - first);
          DType* panel = block + first * ldb;
          if (done > 0) {
            register_gemm::MultiplyBlock<false>(
                count, done, width, {b + first * ldb + done_begin, ldb, false}, right, panel, ldb,
                register_gemm::Start<DType>{true, nullptr});
          }
          small_triangular::OneMatrix<true>(diagonal.data(), width, width, effective_lower,
                                            /*transpose=*/false, /*rightside=*/true, DType(1),
                                            panel, ldb, count, width, &scratch);
        }
      });
}

// b = alpha op(a)^-1 b, or alpha b op(a)^-1 with rightside (BLAS's trsm). The columns of b
// (from the left) or its rows (from the right) are independent problems: the threads take
// slabs of them, each solved whole on its thread (no meeting between blocks).
template <typename DType>
void Solve(const DType* a, index_t lda, index_t n, bool lower, bool transpose, bool rightside,
           DType alpha, DType* b, index_t ldb, index_t rows, index_t cols) {
  if (alpha == DType(0)) {  // as BLAS: a not read, b's NaN and infinities not kept
    for (index_t i = 0; i < rows; ++i) std::fill_n(b + i * ldb, cols, DType(0));
    return;
  }
  // Slabs of whole panels (whole groups of columns): a row's arithmetic depends on its place
  // in its panel (packets or single lanes), which must not move with the thread count.
  const index_t unit = rightside ? kRightPanelRows : kColumnGroup<DType>;
  const index_t independent = rightside ? rows : cols, units = (independent + unit - 1) / unit;
  ParallelRows(units, unit * n * n / 2, [&](index_t u_begin, index_t u_end) {
    const index_t first = u_begin * unit, count = std::min(independent, u_end * unit) - first;
    if (rightside) {
      Scale(alpha, b + first * ldb, ldb, count, cols);
      SolveRight(a, lda, n, lower, transpose, b + first * ldb, ldb, count);
    } else {
      Scale(alpha, b + first, ldb, rows, count);
      SolveLeft(a, lda, n, lower, transpose, b + first, ldb, count);
    }
  });
}

}  // namespace blocked_triangular
}  // namespace ops

#endif  // OPS_BLOCKED_TRIANGULAR_H_
