// _contrib_bipartite_matching: MXNet 1.9.1's example and thresholds, ties, NaN, topk, batches
// of matrices against a reference greedy matching, write modes, the zero gradient, bad input.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

std::vector<Values> Match(const TShape& shape, const Values& scores,
                          const std::map<std::string, std::string>& kwargs) {
  const OpCase c{"_contrib_bipartite_matching", kwargs, {InputSpec::WithValues(shape, scores)}};
  std::vector<Values> out;
  for (const CpuTensor& t : testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32))) {
    out.push_back(testing::ToValues(t.blob()));
  }
  return out;
}

TEST(BipartiteMatchingTest, AsMxnet) {
  // MXNet 1.9.1 on s = [[0.5, 0.6], [0.1, 0.2], [0.3, 0.4]].
  const Values s = {0.5, 0.6, 0.1, 0.2, 0.3, 0.4};
  const TShape shape{3, 2};
  EXPECT_EQ(Match(shape, s, {{"threshold", "1e-12"}}), (std::vector<Values>{{1, -1, 0}, {2, 0}}));
  // 0.4's column is taken; 0.3 is the first free candidate and fails: the end.
  EXPECT_EQ(Match(shape, s, {{"threshold", "0.35"}}), (std::vector<Values>{{1, -1, -1}, {-1, 0}}));
  EXPECT_EQ(Match(shape, s, {{"threshold", "0.4"}, {"is_ascend", "True"}}),
            (std::vector<Values>{{-1, 0, -1}, {1, -1}}));
  // Equal scores in row-major order; NaN is never matched.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(Match(shape, {0.5, 0.5, 0.5, 0.5, 0.3, 0.4}, {{"threshold", "0.1"}}),
            (std::vector<Values>{{0, 1, -1}, {0, 1}}));
  EXPECT_EQ(Match(TShape{2, 2}, {nan, 0.5, 0.5, nan}, {{"threshold", "0.1"}}),
            (std::vector<Values>{{1, 0}, {1, 0}}));
  EXPECT_EQ(Match(TShape{2, 2}, {nan, 0.1, 0.2, nan}, {{"threshold", "0.5"}, {"is_ascend", "1"}}),
            (std::vector<Values>{{1, 0}, {1, 0}}));
}

TEST(BipartiteMatchingTest, TopkLimitsTheMatches) {
  // At most topk matches, as MXNet documents (its kernel makes topk + 1).
  const Values s = {0.9, 0.1, 0.2, 0.1, 0.8, 0.3, 0.2, 0.1, 0.7};
  EXPECT_EQ(Match(TShape{3, 3}, s, {{"threshold", "0"}, {"topk", "2"}}),
            (std::vector<Values>{{0, 1, -1}, {0, 1, -1}}));
  EXPECT_EQ(Match(TShape{3, 3}, s, {{"threshold", "0"}, {"topk", "0"}}),
            (std::vector<Values>{{-1, -1, -1}, {-1, -1, -1}}));
}

// The greedy matching by its definition: the best free candidate while it passes.
std::vector<Values> Reference(const Values& s, int matrices, int rows, int cols, double threshold) {
  Values row_of(matrices * rows, -1), col_of(matrices * cols, -1);
  for (int m = 0; m < matrices; ++m) {
    for (;;) {
      int best = -1;
      for (int k = 0; k < rows * cols; ++k) {
        if (row_of[m * rows + k / cols] != -1 || col_of[m * cols + k % cols] != -1) continue;
        if (best < 0 || s[m * rows * cols + k] > s[m * rows * cols + best]) best = k;
      }
      if (best < 0 || !(s[m * rows * cols + best] > threshold)) break;
      row_of[m * rows + best / cols] = best % cols;
      col_of[m * cols + best % cols] = best / cols;
    }
  }
  return {row_of, col_of};
}

TEST(BipartiteMatchingTest, BatchesOfMatricesAgainstTheDefinition) {
  // (2, 3, 5, 7): six matrices of 5 rows and 7 columns; distinct random scores.
  const OpCase c{
      "_contrib_bipartite_matching", {{"threshold", "0.3"}}, {InputSpec(TShape{2, 3, 5, 7}, 0, 1)}};
  EXPECT_EQ(testing::InferOutputShapes(c), (std::vector<TShape>{{2, 3, 5}, {2, 3, 7}}));
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    return Reference(in[0], 6, 5, 7, static_cast<double>(0.3f));
  });
  testing::CheckWriteModes(c);
  testing::CheckSameOnThreadCounts(c);
  const std::vector<CpuTensor> grads = testing::Backward(
      c, testing::MakeInputs(c, mshadow::kFloat64), {Values(30, 1.0), Values(42, 1.0)});
  EXPECT_EQ(testing::ToValues(grads[0].blob()), Values(210, 0.0));
}

TEST(BipartiteMatchingTest, BadInputIsAnError) {
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    {"_contrib_bipartite_matching", {{"threshold", "0"}}, {InputSpec(TShape{4})}});
              }),
              HasSubstr("data (4,) must be score matrices (..., N, M)"));
  EXPECT_THAT(testing::ErrorOf([] { ParseAttrs(Op::Get("_contrib_bipartite_matching"), {}); }),
              HasSubstr("threshold"));
}

}  // namespace
}  // namespace ops
