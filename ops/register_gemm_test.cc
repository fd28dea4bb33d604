// TiledGemm against a float64 triple loop: shapes that end inside a register tile (rows not a
// multiple of kTileRows, columns ending in a one-packet strip and a scalar tail), a read
// transposed, strided operands, b read in place a strip or a chunk of strips at a time, each
// start (zero, c itself, a value per row), float and double, one and two threads; and the
// lines LinePrefetcher fetches.
#include "ops/register_gemm.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "mshadow/host_memory.h"
#include "mshadow/parallel.h"
#include "ops/testing/uniform_vector.h"

namespace ops {
namespace register_gemm {
namespace {

struct GemmCase {
  index_t rows, depth, cols;
};

template <typename DType>
class TiledGemmTest : public ::testing::Test {};

using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TiledGemmTest, Types);

TYPED_TEST(TiledGemmTest, MatchesTripleLoop) {
  using DType = TypeParam;
  const index_t kSize = vec::Full<DType>::kSize;
  const GemmCase cases[] = {
      {1, 1, 1},
      {kTileRows, 4, 2 * kSize},
      {kTileRows + 3, 7, 2 * kSize + kSize + 5},  // every strip kind and a row tail
      {32, 256, 130},                             // an RNN step's shape, two blocks wide
      {70, 33, 257},                              // past a row block and a column block
      {520, 5, 300},                              // row blocks enough: whole rows per item
      {5, 0, 9},                                  // empty inner dimension: zeros
      // Deeper than a packed strip's block (its products added to the last block's), with
      // the longest row tail.
      {3 * kTileRows - 1, 600, 2 * kSize + 3},
      // Three row blocks or more, whole strips: b packed once for all of them.
      {200, 37, 3 * 2 * kSize},
      // The same, b large enough that its strips are packed on both threads.
      {200, 600, 4 * 2 * kSize},
      {64, 20, 2 * kSize},  // 64 rows: one row block
      // One row block whose column blocks hold more than kChunkStrips strips, read in place
      // and packed a chunk and a block of depth at a time: two chunks and a part, three
      // blocks of depth, a one-packet strip and a scalar tail.
      {kTileRows + 1, 261, 2100},
      // Fewer columns than a packet, and a 14x14 layer's 196 (packets and a part of one).
      {2 * kTileRows + 5, 3, kSize - 1},
      {256, 64, 196},
  };
  const double tol = std::is_same_v<DType, float> ? 2e-5 : 1e-12;
  for (const int threads : {1, 2}) {
    mshadow::SetNumThreads(threads);
    for (const GemmCase& g : cases) {
      for (const bool transposed : {false, true}) {
        // 0: from zero, 1: onto c, 2: from a value per row (a bias).
        for (const int start_kind : {0, 1, 2}) {
          const bool accumulate = start_kind == 1;
          // Operands with padded rows: lda, ldb and ldc exceed the widths.
          const index_t a_rows = transposed ? g.depth : g.rows;
          const index_t a_cols = transposed ? g.rows : g.depth;
          const index_t lda = a_cols + 3, ldb = g.cols + 2, ldc = g.cols + 5;
          const auto a = testing::UniformVector<DType>(a_rows * lda + 1, 1);
          const auto b = testing::UniformVector<DType>(g.depth * ldb + 1, 2);
          auto c = testing::UniformVector<DType>(g.rows * ldc + 1, 3);
          const auto c_before = c;
          const auto row_values = testing::UniformVector<DType>(g.rows, 4);
          const LeftOperand<DType> left{a.data(), lda, transposed};
          if (start_kind == 2) {
            TiledGemm<DType>(g.rows, g.depth, g.cols, left, RightOperand<DType>{b.data(), ldb},
                             c.data(), ldc, Start<DType>{false, row_values.data()});
          } else {
            TiledGemm<DType>(g.rows, g.depth, g.cols, left, b.data(), ldb, c.data(), ldc,
                             accumulate);
          }
          for (index_t i = 0; i < g.rows; ++i) {
            for (index_t j = 0; j < g.cols; ++j) {
              double expected = accumulate        ? c_before[i * ldc + j]
                                : start_kind == 2 ? row_values[i]
                                                  : 0.0;
              for (index_t k = 0; k < g.depth; ++k) {
                const double aik = transposed ? a[k * lda + i] : a[i * lda + k];
                expected += aik * b[k * ldb + j];
              }
              ASSERT_NEAR(c[i * ldc + j], expected, tol * (1 + std::abs(expected)))
                  << "rows=" << g.rows << " depth=" << g.depth << " cols=" << g.cols
                  << " transposed=" << transposed << " start=" << start_kind
                  << " threads=" << threads << " at (" << i << ", " << j << ")";
            }
            // The padding between rows is never written.
            for (index_t j = g.cols; j < ldc && i * ldc + j < static_cast<index_t>(c.size()); ++j) {
              ASSERT_EQ(c[i * ldc + j], c_before[i * ldc + j])
                  << "padding at (" << i << ", " << j << ") written";
            }
          }
        }
      }
    }
  }
  mshadow::SetNumThreads(0);
}

// An operand packed by PackRightOperand gives the product of the operand read in place; a
// packed operand of another depth, or columns not in whole strips, is refused.
TYPED_TEST(TiledGemmTest, PackedRightOperandMatchesInPlace) {
  using DType = TypeParam;
  const index_t rows = 13, depth = 300, cols = 2 * kStripWidth<DType>, ldb = cols + 3;
  const auto a = testing::UniformVector<DType>(rows * depth, 1);
  const auto b = testing::UniformVector<DType>(depth * ldb, 2);
  std::vector<DType> packed(static_cast<size_t>(depth * cols));
  PackRightOperand(depth, cols, b.data(), ldb, packed.data());
  for (const int threads : {1, 2}) {
    mshadow::SetNumThreads(threads);
    std::vector<DType> in_place(static_cast<size_t>(rows * cols)), from_packed(in_place.size());
    TiledGemm<DType>(rows, depth, cols, {a.data(), depth, false}, b.data(), ldb, in_place.data(),
                     cols, false);
    TiledGemm<DType>(rows, depth, cols, {a.data(), depth, false},
                     RightOperand<DType>::Packed(packed.data(), depth), from_packed.data(), cols,
                     false);
    EXPECT_EQ(in_place, from_packed) << "threads=" << threads;
  }
  mshadow::SetNumThreads(0);
  EXPECT_FALSE(PacksColumns<DType>(cols + 1));
  std::vector<DType> c(static_cast<size_t>(rows * cols));
  EXPECT_THROW(
      TiledGemm<DType>(rows, depth - 1, cols, {a.data(), depth, false},
                       RightOperand<DType>::Packed(packed.data(), depth), c.data(), cols, false),
      dmlc::Error);
}

// A right operand read through row offsets (in place) and with its columns folded out of
// wider rows (a convolution's outputs out of its padded input: strips within one row read in
// place, strips across rows gathered run by run) gives the triple loop's product over the
// operand it stands for. Folds narrower than a packet, and wider than a strip; columns that
// end in a one-packet strip and a scalar tail; depths within and past a packed block.
TYPED_TEST(TiledGemmTest, IndirectAndFoldedRightOperands) {
  using DType = TypeParam;
  const index_t kSize = vec::Full<DType>::kSize;
  const double tol = std::is_same_v<DType, float> ? 2e-5 : 1e-12;
  struct FoldCase {
    index_t width, fold_rows, depth;
  };
  const FoldCase cases[] = {{0, 0, 37},  // not folded: indirect rows only
                            {3, 5, 40},  // narrower than a packet
                            {kSize + 1, 7, 600},
                            {2 * kSize + 4, 6, 45},  // strips within a row and across rows
                            {28, 5, 300}};
  const index_t rows = 13;
  for (const int threads : {1, 2}) {
    mshadow::SetNumThreads(threads);
    for (const FoldCase& fc : cases) {
      const bool folded = fc.width > 0;
      const index_t cols = folded ? fc.width * fc.fold_rows : 3 * kSize + 5;
      // Folded rows `pitch` apart; each operand row is a span of the buffer, the spans in
      // shuffled order, with room for strips read whole past a row's last column.
      const index_t pitch = folded ? fc.width + 3 : cols, span = pitch * (fc.fold_rows + 1) + 16;
      const auto buffer = testing::UniformVector<DType>(fc.depth * span, 4);
      std::vector<index_t> offsets(static_cast<size_t>(fc.depth));
      for (index_t k = 0; k < fc.depth; ++k) offsets[k] = ((k * 7) % fc.depth) * span + k % 3;
      const auto a = testing::UniformVector<DType>(rows * fc.depth, 5);
      for (const bool accumulate : {false, true}) {
        auto c = testing::UniformVector<DType>(rows * cols, 6);
        const auto c_before = c;
        RightOperand<DType> b{buffer.data(), 0, offsets.data()};
        if (folded) b = b.Folded(fc.width, pitch);
        TiledGemm<DType>(rows, fc.depth, cols, {a.data(), fc.depth, false}, b, c.data(), cols,
                         accumulate);
        for (index_t i = 0; i < rows; ++i) {
          for (index_t j = 0; j < cols; ++j) {
            const index_t column = folded ? j / fc.width * pitch + j % fc.width : j;
            double expected = accumulate ? c_before[i * cols + j] : 0.0;
            for (index_t k = 0; k < fc.depth; ++k) {
              expected += static_cast<double>(a[i * fc.depth + k]) * buffer[offsets[k] + column];
            }
            ASSERT_NEAR(c[i * cols + j], expected, tol * (1 + std::abs(expected)))
                << "fold width " << fc.width << " depth " << fc.depth << " threads " << threads
                << " accumulate " << accumulate << " at (" << i << ", " << j << ")";
          }
        }
      }
    }
  }
  mshadow::SetNumThreads(0);
}

// Streaming stores write what cached stores write: c on a line and rows whole lines apart
// (the tiles stream), c a float off a line (the columns before the next line through the
// caches, the rest streamed, ColumnsBeforeALine) or rows not whole lines apart (they fall back),
// columns ending in a one-packet strip and a scalar tail, depths within and past a packed
// block (whose first blocks' sums are read back), each start, one and two threads.
TYPED_TEST(TiledGemmTest, StreamingStoresWriteTheCachedProduct) {
  using DType = TypeParam;
  const index_t kSize = vec::Full<DType>::kSize;
  constexpr index_t kLine = 64 / sizeof(DType);
  // The last: column blocks of b large enough to be read a chunk at a time (PacksChunks).
  const GemmCase cases[] = {{3 * kTileRows, 40, 4 * kSize},
                            {2 * kTileRows + 3, 600, 5 * kSize + 3},
                            {200, 37, 6 * kSize},
                            {2 * kTileRows + 3, 600, 32 * kSize}};
  for (const int threads : {1, 2}) {
    mshadow::SetNumThreads(threads);
    for (const GemmCase& g : cases) {
      for (const index_t c_offset : {index_t{0}, index_t{1}}) {
        for (const index_t ldc : {(g.cols + kLine - 1) / kLine * kLine, g.cols + 1}) {
          const auto a = testing::UniformVector<DType>(g.rows * g.depth, 1);
          const auto b = testing::UniformVector<DType>(g.depth * g.cols, 2);
          const auto row_values = testing::UniformVector<DType>(g.rows, 3);
          const size_t size = static_cast<size_t>(g.rows * ldc + c_offset);
          const std::unique_ptr<void, void (*)(void*)> memory(
              mshadow::AllocHost(size * sizeof(DType), 64, "test output"), mshadow::FreeHost);
          DType* streamed = static_cast<DType*>(memory.get()) + c_offset;
          const bool aligned = c_offset == 0 && ldc % kLine == 0;
          EXPECT_EQ(StreamsTile<2>(streamed, ldc), aligned && sizeof(DType) * kSize * 2 % 64 == 0);
          // Off a line by an element, rows whole lines apart: the columns to the next line
          // go through the caches, the rest stream, where enough of them follow.
          const bool leads = c_offset == 1 && ldc % kLine == 0 &&
                             g.cols - (kLine - 1) >= 2 * kStripWidth<DType>;
          EXPECT_EQ(ColumnsBeforeALine(streamed, ldc, g.cols, Stores::kStreaming,
                                       RightOperand<DType>{b.data(), g.cols}),
                    leads ? kLine - 1 : 0);
          for (const int start_kind : {0, 1, 2}) {
            const auto c_before = testing::UniformVector<DType>(g.rows * ldc, 4);
            std::vector<DType> cached = c_before;
            std::copy(c_before.begin(), c_before.end(), streamed);
            const Start<DType> start{start_kind == 1,
                                     start_kind == 2 ? row_values.data() : nullptr};
            const LeftOperand<DType> left{a.data(), g.depth, false};
            TiledGemm<DType>(g.rows, g.depth, g.cols, left, RightOperand<DType>{b.data(), g.cols},
                             cached.data(), ldc, start);
            TiledGemm<DType>(g.rows, g.depth, g.cols, left, RightOperand<DType>{b.data(), g.cols},
                             streamed, ldc, start, Stores::kStreaming);
            ASSERT_TRUE(std::equal(cached.begin(), cached.end(), streamed))
                << "rows=" << g.rows << " depth=" << g.depth << " cols=" << g.cols << " ldc=" << ldc
                << " c offset " << c_offset << " start " << start_kind << " threads " << threads;
          }
        }
      }
    }
  }
  mshadow::SetNumThreads(0);
}

// The lines LinePrefetcher fetches, as offsets from a line-aligned base.
std::vector<uintptr_t> FetchedLines(LinePrefetcher prefetcher, const char* base) {
  std::vector<uintptr_t> lines;
  for (int calls = 0; prefetcher.NextLine() != nullptr && calls < 1000; ++calls) {
    lines.push_back(static_cast<const char*>(prefetcher.NextLine()) - base);
    prefetcher.Next();
  }
  return lines;
}

// Every line each run touches, once, from its first line (a run need not start on one) to its
// last, and then nothing.
TEST(LinePrefetcherTest, FetchesEachLineOfEachRun) {
  alignas(64) static char block[4096];
  using Lines = std::vector<uintptr_t>;
  EXPECT_EQ(FetchedLines(LinePrefetcher(block, 128, 1024, 2), block), (Lines{0, 64, 1024, 1088}));
  // Bytes 10-129 and 210-329: three lines each.
  EXPECT_EQ(FetchedLines(LinePrefetcher(block + 10, 120, 200, 2), block),
            (Lines{0, 64, 128, 192, 256, 320}));
  // A run ending on a line's last byte, and one a byte past it.
  EXPECT_EQ(FetchedLines(LinePrefetcher(block, 64, 128, 1), block), (Lines{0}));
  EXPECT_EQ(FetchedLines(LinePrefetcher(block, 65, 128, 1), block), (Lines{0, 64}));
  EXPECT_TRUE(FetchedLines(LinePrefetcher(block, 64, 128, 0), block).empty());
  EXPECT_TRUE(FetchedLines(LinePrefetcher(block, 0, 128, 3), block).empty());
  EXPECT_TRUE(FetchedLines(LinePrefetcher(), block).empty());
  // Next past the end changes nothing.
  LinePrefetcher done(block, 64, 128, 1);
  done.Next();
  done.Next();
  EXPECT_EQ(done.NextLine(), nullptr);
}

}  // namespace
}  // namespace register_gemm
}  // namespace ops
