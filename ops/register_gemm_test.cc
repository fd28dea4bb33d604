// TiledGemm against a float64 triple loop: shapes that end inside a register tile (rows not a
// multiple of kTileRows, columns ending in a one-packet strip and a scalar tail), a read
// transposed, strided operands, accumulation, float and double, one and two threads.
#include "ops/register_gemm.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "mshadow/parallel.h"

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

template <typename DType>
std::vector<DType> Random(index_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<DType> v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<DType>(dist(gen));
  return v;
}

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
      {64, 20, 2 * kSize},  // 64 rows: one row block
  };
  const double tol = std::is_same_v<DType, float> ? 2e-5 : 1e-12;
  for (const int threads : {1, 2}) {
    mshadow::SetNumThreads(threads);
    for (const GemmCase& g : cases) {
      for (const bool transposed : {false, true}) {
        for (const bool accumulate : {false, true}) {
          // Operands with padded rows: lda, ldb and ldc exceed the widths.
          const index_t a_rows = transposed ? g.depth : g.rows;
          const index_t a_cols = transposed ? g.rows : g.depth;
          const index_t lda = a_cols + 3, ldb = g.cols + 2, ldc = g.cols + 5;
          const auto a = Random<DType>(a_rows * lda + 1, 1);
          const auto b = Random<DType>(g.depth * ldb + 1, 2);
          auto c = Random<DType>(g.rows * ldc + 1, 3);
          const auto c_before = c;
          TiledGemm<DType>(g.rows, g.depth, g.cols, LeftOperand<DType>{a.data(), lda, transposed},
                           b.data(), ldb, c.data(), ldc, accumulate);
          for (index_t i = 0; i < g.rows; ++i) {
            for (index_t j = 0; j < g.cols; ++j) {
              double expected = accumulate ? c_before[i * ldc + j] : 0.0;
              for (index_t k = 0; k < g.depth; ++k) {
                const double aik = transposed ? a[k * lda + i] : a[i * lda + k];
                expected += aik * b[k * ldb + j];
              }
              ASSERT_NEAR(c[i * ldc + j], expected, tol * (1 + std::abs(expected)))
                  << "rows=" << g.rows << " depth=" << g.depth << " cols=" << g.cols
                  << " transposed=" << transposed << " accumulate=" << accumulate
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
  const auto a = Random<DType>(rows * depth, 1);
  const auto b = Random<DType>(depth * ldb, 2);
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

}  // namespace
}  // namespace register_gemm
}  // namespace ops
