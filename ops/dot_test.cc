#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using testing::InputSpec;
using testing::OpCase;
using testing::Values;

// C[i][j] = sum_k A(i,k) B(k,j) with A, B read through their transposes as asked.
Values MatMul(const Values& a, const Values& b, index_t m, index_t k, index_t n, bool ta,
              bool tb) {
  Values c(m * n, 0.0);
  for (index_t i = 0; i < m; ++i) {
    for (index_t j = 0; j < n; ++j) {
      for (index_t p = 0; p < k; ++p) {
        c[i * n + j] += (ta ? a[p * m + i] : a[i * k + p]) * (tb ? b[j * k + p] : b[p * n + j]);
      }
    }
  }
  return c;
}

TEST(DotTest, AllTransposesForwardAndGradient) {
  for (const bool ta : {false, true}) {
    for (const bool tb : {false, true}) {
      SCOPED_TRACE(std::to_string(ta) + std::to_string(tb));
      const index_t m = 3, k = 4, n = 5;
      const OpCase c{"dot",
                     {{"transpose_a", ta ? "true" : "false"}, {"transpose_b", tb ? "true" : "false"}},
                     {InputSpec{ta ? TShape{k, m} : TShape{m, k}},
                      InputSpec{tb ? TShape{n, k} : TShape{k, n}}}};
      EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{m, n}));
      testing::CheckForward(c, [&](const std::vector<Values>& in) {
        return std::vector<Values>{MatMul(in[0], in[1], m, k, n, ta, tb)};
      }, 1e-13, 1e-5);
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
}

TEST(DotTest, VectorsAndHigherRanks) {
  const OpCase inner{"dot", {}, {InputSpec{TShape{6}}, InputSpec{TShape{6}}}};
  EXPECT_EQ(testing::InferOutputShapes(inner)[0], (TShape{1}));
  testing::CheckGradient(inner);
  const OpCase nd{"dot", {}, {InputSpec{TShape{2, 3, 4}}, InputSpec{TShape{4, 5}}}};
  EXPECT_EQ(testing::InferOutputShapes(nd)[0], (TShape{2, 3, 5}));
  testing::CheckForward(nd, [](const std::vector<Values>& in) {
    return std::vector<Values>{MatMul(in[0], in[1], 6, 4, 5, false, false)};
  }, 1e-13, 1e-5);
  testing::CheckGradient(nd);
  const OpCase bad{"dot", {}, {InputSpec{TShape{2, 3}}, InputSpec{TShape{4, 5}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(bad); }),
            "dot: the reduced extents differ: lhs (2,3) has 3, rhs (4,5) has 4");
}

// One batch axis and two (MXNet 1.9.1 flattens any number of matching batch axes).
TEST(BatchDotTest, AllTransposesForwardAndGradient) {
  const index_t m = 3, k = 2, n = 4;
  for (const TShape& batch_axes : {TShape{2}, TShape{2, 3}}) {
    const index_t batch = batch_axes.Size();
    auto with_batch = [&](index_t rows, index_t columns) {
      std::vector<index_t> dims(batch_axes.begin(), batch_axes.end());
      dims.push_back(rows);
      dims.push_back(columns);
      return TShape(dims.begin(), dims.end());
    };
    for (const bool ta : {false, true}) {
      for (const bool tb : {false, true}) {
        SCOPED_TRACE(std::to_string(batch_axes.ndim()) + " batch axes, transposes " +
                     std::to_string(ta) + std::to_string(tb));
        const OpCase c{"batch_dot",
                       {{"transpose_a", ta ? "1" : "0"}, {"transpose_b", tb ? "1" : "0"}},
                       {InputSpec{ta ? with_batch(k, m) : with_batch(m, k)},
                        InputSpec{tb ? with_batch(n, k) : with_batch(k, n)}}};
        EXPECT_EQ(testing::InferOutputShapes(c)[0], with_batch(m, n));
        testing::CheckForward(c, [&](const std::vector<Values>& in) {
          Values out;
          for (index_t b = 0; b < batch; ++b) {
            const Values a(in[0].begin() + b * m * k, in[0].begin() + (b + 1) * m * k);
            const Values bb(in[1].begin() + b * k * n, in[1].begin() + (b + 1) * k * n);
            const Values c = MatMul(a, bb, m, k, n, ta, tb);
            out.insert(out.end(), c.begin(), c.end());
          }
          return std::vector<Values>{out};
        }, 1e-13, 1e-5);
        testing::CheckWriteModes(c);
        testing::CheckGradient(c);
      }
    }
  }
}

TEST(BatchDotTest, ShapeErrors) {
  auto error = [](const TShape& lhs, const TShape& rhs) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes(OpCase{"batch_dot", {}, {InputSpec{lhs}, InputSpec{rhs}}});
    });
  };
  EXPECT_EQ(error(TShape{2, 3, 4}, TShape{3, 4, 5}),
            "batch_dot: batch axes differ: (2,3,4) and (3,4,5)");
  EXPECT_EQ(error(TShape{2, 3, 3, 4}, TShape{2, 2, 4, 5}),
            "batch_dot: batch axes differ: (2,3,3,4) and (2,2,4,5)");
  EXPECT_EQ(error(TShape{2, 3, 4, 5}, TShape{6, 5, 6}),
            "batch_dot: both operands must have the same rank, at least 3 (batch..., rows, "
            "columns), got (2,3,4,5) and (6,5,6)");
  EXPECT_EQ(error(TShape{3, 4}, TShape{4, 5}),
            "batch_dot: both operands must have the same rank, at least 3 (batch..., rows, "
            "columns), got (3,4) and (4,5)");
  EXPECT_EQ(error(TShape{2, 3, 4}, TShape{2, 5, 6}),
            "batch_dot: the reduced extents differ: (2,3,4) and (2,5,6)");
}

}  // namespace
}  // namespace ops
