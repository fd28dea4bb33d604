// sum_rows, sumall_except_dim, and the MapReduce functions behind them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
