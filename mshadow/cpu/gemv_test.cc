// gemv::RowDots and gemv::RowCombination against sums in long double, over shapes that leave
// every tail (rows past the last group of four, columns past the last packet or pair of
// packets), strides, BLAS's alpha and beta rules, and thread counts. Built three times
// (//mshadow:gemv_test, _avx2_test, _scalar_test) so that each packet width runs on a machine
// with AVX-512.
#include "mshadow/cpu/gemv.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mshadow/parallel.h"

namespace mshadow {
namespace {

template <typename DType>
std::vector<DType> Random(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<DType> v(n);
  for (DType& e : v) e = static_cast<DType>(dist(gen));
  return v;
}

// |got - want| within a few roundings of the sum of the terms' magnitudes.
template <typename DType>
void ExpectClose(DType got, long double want, long double magnitude, const std::string& where) {
  const long double tolerance = 8 * magnitude * std::numeric_limits<DType>::epsilon() + 1e-30L;
  EXPECT_LE(std::fabs(static_cast<long double>(got) - want), tolerance)
      << where << ": got " << got << ", want " << static_cast<double>(want);
}

struct Case {
  index_t rows, cols;
};

// Shapes around the group of four rows and the packets of each width (16, 8, 4 floats).
const Case kCases[] = {{1, 1},  {1, 33},   {3, 7},    {4, 16},   {5, 31},   {7, 64},
                       {9, 65}, {17, 100}, {64, 257}, {130, 40}, {257, 513}};

template <typename DType>
void CheckRowDots(const Case& c, index_t lda, index_t incy, DType alpha, DType beta) {
  const std::vector<DType> a = Random<DType>(c.rows * lda, 1);
  const std::vector<DType> x = Random<DType>(c.cols, 2);
  std::vector<DType> y = Random<DType>(c.rows * incy, 3);
  const std::vector<DType> y0 = y;
  gemv::RowDots<DType>(c.rows, c.cols, alpha, a.data(), lda, x.data(), beta, y.data(), incy);
  for (index_t i = 0; i < c.rows * incy; ++i) {
    const std::string where = "rows " + std::to_string(c.rows) + " cols " + std::to_string(c.cols) +
                              " incy " + std::to_string(incy) + " element " + std::to_string(i);
    if (i % incy != 0) {
      EXPECT_EQ(y[i], y0[i]) << where << " (between the strided elements) was written";
      continue;
    }
    long double sum = 0, magnitude = 0;
    for (index_t k = 0; k < c.cols; ++k) {
      const long double term = static_cast<long double>(a[i / incy * lda + k]) * x[k];
      sum += term;
      magnitude += std::fabs(term);
    }
    const long double want = alpha * sum + static_cast<long double>(beta) * y0[i];
    ExpectClose<DType>(y[i], want, std::fabs(alpha) * magnitude + std::fabs(beta * y0[i]), where);
  }
}

template <typename DType>
void CheckRowCombination(const Case& c, index_t lda, index_t incx, DType alpha, DType beta) {
  const std::vector<DType> a = Random<DType>(c.rows * lda, 4);
  const std::vector<DType> x = Random<DType>(c.rows * incx, 5);
  std::vector<DType> y = Random<DType>(c.cols, 6);
  const std::vector<DType> y0 = y;
  gemv::RowCombination<DType>(c.rows, c.cols, alpha, a.data(), lda, x.data(), incx, beta, y.data());
  for (index_t j = 0; j < c.cols; ++j) {
    long double sum = 0, magnitude = 0;
    for (index_t i = 0; i < c.rows; ++i) {
      const long double term = static_cast<long double>(a[i * lda + j]) * x[i * incx];
      sum += term;
      magnitude += std::fabs(term);
    }
    const long double want = alpha * sum + static_cast<long double>(beta) * y0[j];
    ExpectClose<DType>(y[j], want, std::fabs(alpha) * magnitude + std::fabs(beta * y0[j]),
                       "rows " + std::to_string(c.rows) + " cols " + std::to_string(c.cols) +
                           " incx " + std::to_string(incx) + " column " + std::to_string(j));
  }
}

template <typename DType>
class GemvTest : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GemvTest, Types);

TYPED_TEST(GemvTest, RowDotsMatchTheSums) {
  using DType = TypeParam;
  for (const Case& c : kCases) {
    CheckRowDots<DType>(c, c.cols, 1, DType(1), DType(0));
    CheckRowDots<DType>(c, c.cols + 3, 1, DType(-0.5), DType(1));  // padded rows
    CheckRowDots<DType>(c, c.cols, 3, DType(2), DType(-1.5));      // strided y
  }
}

TYPED_TEST(GemvTest, RowCombinationMatchesTheSums) {
  using DType = TypeParam;
  for (const Case& c : kCases) {
    CheckRowCombination<DType>(c, c.cols, 1, DType(1), DType(0));
    CheckRowCombination<DType>(c, c.cols + 5, 1, DType(-0.5), DType(1));
    CheckRowCombination<DType>(c, c.cols, 2, DType(2), DType(-1.5));  // strided x
  }
}

// Past one block of sums (4096 bytes of columns) and on the threads.
TYPED_TEST(GemvTest, LargeShapesOnTheThreads) {
  using DType = TypeParam;
  SetNumThreads(2);
  CheckRowDots<DType>({1000, 1030}, 1030, 1, DType(1), DType(0));
  CheckRowCombination<DType>({600, 2100}, 2100, 1, DType(1), DType(1));
  SetNumThreads(0);
}

// Each element is summed in one order: the same bits on 1, 2 and 3 threads.
TYPED_TEST(GemvTest, ThreadCountChangesNoBit) {
  using DType = TypeParam;
  const index_t rows = 515, cols = 1027;
  const std::vector<DType> a = Random<DType>(rows * cols, 7);
  const std::vector<DType> x = Random<DType>(std::max(rows, cols), 8);
  std::vector<std::vector<DType>> dots, combinations;
  for (int threads : {1, 2, 3}) {
    SetNumThreads(threads);
    dots.emplace_back(rows);
    gemv::RowDots<DType>(rows, cols, DType(1), a.data(), cols, x.data(), DType(0),
                         dots.back().data(), 1);
    combinations.emplace_back(cols);
    gemv::RowCombination<DType>(rows, cols, DType(1), a.data(), cols, x.data(), 1, DType(0),
                                combinations.back().data());
  }
  SetNumThreads(0);
  for (size_t t = 1; t < dots.size(); ++t) {
    EXPECT_EQ(dots[t], dots[0]) << "RowDots on " << t + 1 << " threads";
    EXPECT_EQ(combinations[t], combinations[0]) << "RowCombination on " << t + 1 << " threads";
  }
}

// BLAS's rules: beta = 0 overwrites y (a NaN there does not come through), alpha = 0 reads
// neither a nor x (NaNs there do not either), and an empty sum leaves beta * y.
TYPED_TEST(GemvTest, AlphaAndBetaZeroReadNothing) {
  using DType = TypeParam;
  const DType nan = std::numeric_limits<DType>::quiet_NaN();
  const std::vector<DType> a(6 * 20, DType(1)), x(20, DType(2)), nans(6 * 20, nan);
  std::vector<DType> y(20, nan);
  gemv::RowDots<DType>(6, 20, DType(1), a.data(), 20, x.data(), DType(0), y.data(), 1);
  for (index_t i = 0; i < 6; ++i) EXPECT_EQ(y[i], DType(40)) << "row " << i;
  std::fill(y.begin(), y.end(), nan);
  gemv::RowCombination<DType>(6, 20, DType(1), a.data(), 20, x.data(), 1, DType(0), y.data());
  for (index_t j = 0; j < 20; ++j) EXPECT_EQ(y[j], DType(12)) << "column " << j;

  std::fill(y.begin(), y.end(), DType(3));
  gemv::RowDots<DType>(6, 20, DType(0), nans.data(), 20, nans.data(), DType(2), y.data(), 1);
  for (index_t i = 0; i < 6; ++i) EXPECT_EQ(y[i], DType(6)) << "row " << i;
  gemv::RowCombination<DType>(6, 20, DType(0), nans.data(), 20, nans.data(), 1, DType(0), y.data());
  for (index_t j = 0; j < 20; ++j) EXPECT_EQ(y[j], DType(0)) << "column " << j;

  std::fill(y.begin(), y.end(), DType(3));
  gemv::RowDots<DType>(6, 0, DType(1), a.data(), 20, x.data(), DType(-1), y.data(), 1);
  for (index_t i = 0; i < 6; ++i) EXPECT_EQ(y[i], DType(-3)) << "row " << i;
  gemv::RowCombination<DType>(0, 20, DType(1), a.data(), 20, x.data(), 1, DType(-1), y.data());
  for (index_t j = 0; j < 20; ++j) EXPECT_EQ(y[j], DType(j < 6 ? 3 : -3)) << "column " << j;
}

}  // namespace
}  // namespace mshadow
