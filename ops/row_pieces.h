// ops/row_pieces.h: the rows of a loop over merged axes (strided_loop.h's MergedAxes), cut
// into pieces of a few kilobytes and shared over the library's threads: the CPU loop behind
// the broadcasting operators. A piece is short enough that a few long rows still spread over
// the threads, and that a piece of a gradient summed over many rows stays in the first-level
// cache; long enough that the per-piece work (an offset step, a call) is negligible.
//
//   // y = lhs + rhs, broadcast, along each row's contiguous or broadcast operands:
//   ForEachPiece<float>(axes, [&](const std::array<index_t, 3>& at, index_t j, index_t n) {
//     ... elements [j, j + n) of the row whose arrays start at at[0], at[1], at[2] ...
//   });
#ifndef OPS_ROW_PIECES_H_
#define OPS_ROW_PIECES_H_

#include <algorithm>
#include <array>

#include "ops/strided_loop.h"
#include "ops/vector_loop.h"

namespace ops {

constexpr index_t kPieceBytes = 8192;

template <typename DType>
constexpr index_t kPiece = kPieceBytes / sizeof(DType);

// Pieces in a row of `row` elements.
template <typename DType>
index_t PiecesOf(index_t row) {
  return (row + kPiece<DType> - 1) / kPiece<DType>;
}

// fn(offsets, begin, n) for every piece of every row of `axes` (elements [begin, begin + n)
// of the row whose arrays start at offsets), the pieces shared over the threads.
template <typename DType, size_t K, typename Fn>
void ForEachPiece(const MergedAxes<K>& axes, Fn&& fn) {
  const index_t inner = axes.Inner(), pieces = PiecesOf<DType>(inner);
  ParallelRows(axes.Rows() * pieces, std::min(inner, kPiece<DType>),
               [&](index_t begin, index_t end) {
                 index_t piece = begin % pieces;
                 RowWalker<K> row(axes, begin / pieces);
                 for (index_t t = begin; t < end; ++t) {
                   const index_t first = piece * kPiece<DType>;
                   fn(row.offsets(), first, std::min(kPiece<DType>, inner - first));
                   if (++piece == pieces) {
                     piece = 0;
                     row.Next();
                   }
                 }
               });
}

}  // namespace ops

#endif  // OPS_ROW_PIECES_H_
