// ProductWithTransposedRight on the CPU against a float64 triple loop: widths in whole strips,
// with a partial strip after them, and narrower than one strip; rows within one row block (each
// strip multiplied as it is transposed) and past it (the whole transposed operand first);
// writing and adding; float and double; one and two threads.
#include "ops/matrix_product.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/testing/uniform_vector.h"

namespace ops {
namespace {

template <typename DType>
class ProductWithTransposedRightTest : public ::testing::Test {};

using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ProductWithTransposedRightTest, Types);

TYPED_TEST(ProductWithTransposedRightTest, MatchesTripleLoop) {
  using DType = TypeParam;
  using mshadow::cpu;
  using mshadow::Shape2;
  const index_t kStrip = register_gemm::kStripWidth<DType>;
  const index_t kRowBlock = register_gemm::kBlockRows;
  struct Case {
    index_t rows, depth, cols;
  };
  const Case cases[] = {{1, 5, kStrip},
                        {7, 37, 3 * kStrip + 4},
                        {kRowBlock, 20, 13},
                        {kRowBlock + 1, 33, 2 * kStrip + kStrip / 2},
                        {150, 9, 4 * kStrip}};
  const double tol = std::is_same_v<DType, float> ? 2e-5 : 1e-12;
  for (const int threads : {1, 2}) {
    mshadow::SetNumThreads(threads);
    for (const Case& c : cases) {
      for (const OpReqType req : {kWriteTo, kAddTo}) {
        // Rows of every operand padded past their widths.
        const index_t lda = c.depth + 3, ldb = c.depth + 1, ldc = c.cols + 2;
        const auto a = testing::UniformVector<DType>(static_cast<size_t>(c.rows * lda), 1);
        const auto b_t = testing::UniformVector<DType>(static_cast<size_t>(c.cols * ldb), 2);
        auto out = testing::UniformVector<DType>(static_cast<size_t>(c.rows * ldc), 3);
        const auto before = out;
        ProductWithTransposedRight(
            Tensor<cpu, 2, DType>(out.data(), Shape2(c.rows, c.cols), ldc, nullptr), req,
            Tensor<cpu, 2, DType>(const_cast<DType*>(a.data()), Shape2(c.rows, c.depth), lda,
                                  nullptr),
            Tensor<cpu, 2, DType>(const_cast<DType*>(b_t.data()), Shape2(c.cols, c.depth), ldb,
                                  nullptr));
        for (index_t i = 0; i < c.rows; ++i) {
          for (index_t j = 0; j < ldc; ++j) {
            if (j >= c.cols) {  // the padding between rows is never written
              ASSERT_EQ(out[i * ldc + j], before[i * ldc + j]) << "padding at " << i << ", " << j;
              continue;
            }
            double expected = req == kAddTo ? before[i * ldc + j] : 0.0;
            for (index_t k = 0; k < c.depth; ++k) {
              expected += static_cast<double>(a[i * lda + k]) * b_t[j * ldb + k];
            }
            ASSERT_NEAR(out[i * ldc + j], expected, tol * (1 + std::abs(expected)))
                << "rows " << c.rows << " depth " << c.depth << " cols " << c.cols << " req " << req
                << " threads " << threads << " at (" << i << ", " << j << ")";
          }
        }
      }
    }
  }
  mshadow::SetNumThreads(0);
}

}  // namespace
}  // namespace ops
