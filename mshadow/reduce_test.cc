// sum_rows, sumall_except_dim, and the MapReduce functions behind them.
#include <algorithm>
#include <cmath>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "mshadow/parallel.h"
#include "mshadow/tensor.h"

namespace mshadow {
namespace {

using ::testing::HasSubstr;
using namespace mshadow::expr;  // NOLINT(build/namespaces)

TEST(ReduceTest, SumRowsOfMatrixAndExpression) {
  TensorContainer<cpu, 2, double> m(Shape2(7, 5), 0.0, true);
  for (index_t y = 0; y < 7; ++y)
    for (index_t x = 0; x < 5; ++x) m[y][x] = y * 10 + x;
  TensorContainer<cpu, 1, double> s(Shape1(5));
  s = sum_rows(m);
  for (index_t x = 0; x < 5; ++x) EXPECT_EQ(s[x], 210 + 7 * x);
  s += sum_rows(m * 2.0) * 0.5;
  EXPECT_EQ(s[4], 2 * (210 + 28));
}

TEST(ReduceTest, SumallExceptDimEveryDimensionOf4D) {
  const Shape<4> shape = Shape4(2, 3, 4, 5);
  TensorContainer<cpu, 4, double> t(shape);
  for (index_t a = 0; a < 2; ++a)
    for (index_t b = 0; b < 3; ++b)
      for (index_t c = 0; c < 4; ++c)
        for (index_t d = 0; d < 5; ++d) t[a][b][c][d] = a * 1000 + b * 100 + c * 10 + d;
  auto expect = [&](int keep, const Tensor<cpu, 1, double>& got) {
    for (index_t i = 0; i < shape[keep]; ++i) {
      double want = 0;
      for (index_t a = 0; a < 2; ++a)
        for (index_t b = 0; b < 3; ++b)
          for (index_t c = 0; c < 4; ++c)
            for (index_t d = 0; d < 5; ++d) {
              const index_t idx[4] = {a, b, c, d};
              if (idx[keep] == i) want += t[a][b][c][d];
            }
      EXPECT_DOUBLE_EQ(got[i], want) << "keep " << keep << " index " << i;
    }
  };
  TensorContainer<cpu, 1, double> v0(Shape1(2)), v1(Shape1(3)), v2(Shape1(4)), v3(Shape1(5));
  v0 = sumall_except_dim<0>(t);
  v1 = sumall_except_dim<1>(t);
  v2 = sumall_except_dim<2>(t);
  v3 = sumall_except_dim<3>(t);
  expect(0, v0);
  expect(1, v1);
  expect(2, v2);
  expect(3, v3);
}

TEST(ReduceTest, MaxAndMinReducers) {
  TensorContainer<cpu, 3> t(Shape3(2, 3, 4));
  for (index_t a = 0; a < 2; ++a)
    for (index_t b = 0; b < 3; ++b)
      for (index_t c = 0; c < 4; ++c) t[a][b][c] = static_cast<float>((a * 7 + b * 5 + c * 3) % 11);
  TensorContainer<cpu, 1> mx(Shape1(3)), mn(Shape1(4));
  mx = reduce_except_dim<1, red::maximum>(t);
  MapReduceKeepLowest<sv::saveto, red::minimum>(&mn, t);
  for (index_t b = 0; b < 3; ++b) {
    float want = -1;
    for (index_t a = 0; a < 2; ++a)
      for (index_t c = 0; c < 4; ++c) want = std::max(want, t[a][b][c]);
    EXPECT_EQ(mx[b], want);
  }
  for (index_t c = 0; c < 4; ++c) {
    float want = 100;
    for (index_t a = 0; a < 2; ++a)
      for (index_t b = 0; b < 3; ++b) want = std::min(want, t[a][b][c]);
    EXPECT_EQ(mn[c], want);
  }
}

// Rows reduced a packet at a time (MapReduceKeepHighDim's packet path, reducers with a
// PacketReducer): max and min over rows of whole packets and a tail, NaN anywhere in a row
// giving NaN, against a walk along each row.
TEST(ReduceTest, MaxAndMinAlongLongRowsPropagateNaN) {
  const index_t rows = 6, width = 77;
  TensorContainer<cpu, 2, float> m(Shape2(rows, width));
  for (index_t y = 0; y < rows; ++y)
    for (index_t x = 0; x < width; ++x) m[y][x] = static_cast<float>((y * 31 + x * 17) % 101) - 50;
  m[1][3] = NAN;   // in the first chains
  m[4][75] = NAN;  // in the scalar tail
  m[5][40] = INFINITY;
  TensorContainer<cpu, 1, float> mx(Shape1(rows)), mn(Shape1(rows));
  MapReduceKeepHighDim<sv::saveto, red::maximum, 0>(&mx, m);
  MapReduceKeepHighDim<sv::saveto, red::minimum, 0>(&mn, m * 2.0f);
  for (index_t y = 0; y < rows; ++y) {
    float want_max = -INFINITY, want_min = INFINITY;
    bool nan = false;
    for (index_t x = 0; x < width; ++x) {
      nan = nan || std::isnan(m[y][x]);
      want_max = std::max(want_max, m[y][x]);
      want_min = std::min(want_min, 2 * m[y][x]);
    }
    EXPECT_EQ(std::isnan(mx[y]), nan) << y;
    EXPECT_EQ(std::isnan(mn[y]), nan) << y;
    if (!nan) {
      EXPECT_EQ(mx[y], want_max) << y;
      EXPECT_EQ(mn[y], want_min) << y;
    }
  }
}

// Inputs in cache are reduced in strips of packets held in registers, and the rest column
// by column; either way each column adds its rows in order, so sum_rows equals a float loop
// bit for bit. Widths 1..150 cover strips, packets and scalar tails on every arch.
TEST(ReduceTest, InCacheReductionsAddEachColumnInRowOrder) {
  for (const index_t rows : {1, 2, 5, 17}) {
    for (index_t width = 1; width <= 150; ++width) {
      TensorContainer<cpu, 2> m(Shape2(rows, width));
      for (index_t y = 0; y < rows; ++y) {
        for (index_t x = 0; x < width; ++x) {
          // Magnitudes from 1e-3 to 1e3: a different order of additions rounds differently.
          m[y][x] = static_cast<float>((y * 31 + x * 17) % 23 - 11) *
                    std::pow(10.0f, static_cast<float>((y + x) % 7 - 3));
        }
      }
      std::vector<float> column_sums(width, 0.0f), column_max(width, -1e30f);
      std::vector<double> row_sums(rows, 0.0);
      for (index_t y = 0; y < rows; ++y) {
        for (index_t x = 0; x < width; ++x) {
          column_sums[x] += m[y][x];
          column_max[x] = std::max(column_max[x], m[y][x]);
          row_sums[y] += m[y][x];
        }
      }
      TensorContainer<cpu, 1> sums(Shape1(width)), max(Shape1(width)), row_totals(Shape1(rows));
      sums = sum_rows(m);
      MapReduceKeepLowest<sv::saveto, red::maximum>(&max, m);
      row_totals = sumall_except_dim<0>(m);
      for (index_t x = 0; x < width; ++x) {
        ASSERT_EQ(sums[x], column_sums[x]) << rows << " x " << width << ", column " << x;
        ASSERT_EQ(max[x], column_max[x]) << rows << " x " << width << ", column " << x;
      }
      for (index_t y = 0; y < rows; ++y) {
        ASSERT_NEAR(row_totals[y], row_sums[y], 1e-6 * 1e3 * width)
            << rows << " x " << width << ", row " << y;
      }
    }
  }
}

// Large reductions run on threads; each output is reduced in the same order whatever the
// thread count, so the results are bit-identical, and they match a double-precision loop.
TEST(ReduceTest, ThreadedReductionsAreCorrectAndIndependentOfThreadCount) {
  // Wide and narrow rows, with scalar tails; (40000, 9) has too few packets for many threads.
  for (const Shape<2> shape : {Shape2(3, 100003), Shape2(5000, 333), Shape2(40000, 9)}) {
    TensorContainer<cpu, 2> m(shape);
    for (index_t y = 0; y < shape[0]; ++y)
      for (index_t x = 0; x < shape[1]; ++x) m[y][x] = static_cast<float>((y * 13 + x * 7) % 97) * 0.125f - 6;
    std::vector<double> column_sums(shape[1], 0.0), row_sums(shape[0], 0.0);
    std::vector<float> column_max(shape[1], -1e30f);
    for (index_t y = 0; y < shape[0]; ++y) {
      for (index_t x = 0; x < shape[1]; ++x) {
        column_sums[x] += m[y][x] * 2.0;
        row_sums[y] += m[y][x];
        column_max[x] = std::max(column_max[x], m[y][x]);
      }
    }
    TensorContainer<cpu, 1> sums1(Shape1(shape[1])), rows1(Shape1(shape[0])), max1(Shape1(shape[1]));
    TensorContainer<cpu, 1> sums(Shape1(shape[1])), rows(Shape1(shape[0])), max(Shape1(shape[1]));
    SetNumThreads(1);
    sums1 = sum_rows(m * 2.0f);
    rows1 = sumall_except_dim<0>(m);
    MapReduceKeepLowest<sv::saveto, red::maximum>(&max1, m);
    for (index_t x = 0; x < shape[1]; ++x) {
      ASSERT_NEAR(sums1[x], column_sums[x], 1e-4 * shape[0]) << shape << " column " << x;
      ASSERT_EQ(max1[x], column_max[x]) << shape << " column " << x;
    }
    for (index_t y = 0; y < shape[0]; ++y) {
      ASSERT_NEAR(rows1[y], row_sums[y], 1e-4 * shape[1]) << shape << " row " << y;
    }
    for (const int threads : {2, 3, 4, 7}) {
      SetNumThreads(threads);
      sums = sum_rows(m * 2.0f);
      rows = sumall_except_dim<0>(m);
      MapReduceKeepLowest<sv::saveto, red::maximum>(&max, m);
      for (index_t x = 0; x < shape[1]; ++x) {
        ASSERT_EQ(sums[x], sums1[x]) << threads << " threads, " << shape << " column " << x;
        ASSERT_EQ(max[x], max1[x]) << threads << " threads, " << shape << " column " << x;
      }
      for (index_t y = 0; y < shape[0]; ++y) {
        ASSERT_EQ(rows[y], rows1[y]) << threads << " threads, " << shape << " row " << y;
      }
    }
    SetNumThreads(0);
  }
}

TEST(ReduceTest, LengthMismatchIsAnError) {
  TensorContainer<cpu, 2> m(Shape2(3, 4), 1.0f);
  TensorContainer<cpu, 1> wrong(Shape1(3));
  try {
    wrong = sum_rows(m);
    FAIL() << "expected dmlc::Error";
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("(4 vs. 3)"));
  }
  TensorContainer<cpu, 3> t(Shape3(2, 3, 4), 1.0f);
  EXPECT_THROW(wrong = sumall_except_dim<0>(t), dmlc::Error);
}

}  // namespace
}  // namespace mshadow
