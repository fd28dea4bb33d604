// LRN against a float64 reference (odd and even window sizes, windows wider than the
// channels, 2-d to 4-d data), write modes, numerical gradients, and its errors.
#include <algorithm>
#include <cmath>
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

// x[c] * (k + alpha / n * sum of x^2 over |c' - c| <= (n - 1) / 2)^-beta on (N, C, inner).
Values Reference(const Values& x, const TShape& shape, int nsize, double alpha, double beta,
                 double k) {
  const index_t samples = shape[0], channels = shape[1], inner = x.size() / samples / channels;
  const index_t half = (nsize - 1) / 2;
  Values out(x.size());
  for (index_t o = 0; o < samples; ++o) {
    for (index_t c = 0; c < channels; ++c) {
      for (index_t i = 0; i < inner; ++i) {
        double sum = 0;
        for (index_t j = std::max<index_t>(0, c - half);
             j <= std::min<index_t>(channels - 1, c + half); ++j) {
          sum += std::pow(x[(o * channels + j) * inner + i], 2);
        }
        const index_t at = (o * channels + c) * inner + i;
        out[at] = x[at] * std::pow(k + alpha / nsize * sum, -beta);
      }
    }
  }
  return out;
}

struct LRNCase {
  TShape data;
  int nsize;
};

class LRNTest : public ::testing::TestWithParam<LRNCase> {};

// beta = 0.75 (the default) takes a path of square roots; any other a general power.
TEST_P(LRNTest, MatchesReferenceWithGradients) {
  const LRNCase& lc = GetParam();
  for (const float beta : {0.75f, 0.6f}) {
    SCOPED_TRACE("beta " + std::to_string(beta));
    const OpCase c{"LRN",
                   {{"nsize", std::to_string(lc.nsize)}, {"alpha", "0.5"},
                    {"beta", std::to_string(beta)}, {"knorm", "1.5"}},
                   {InputSpec{lc.data, -2, 2}}};
    EXPECT_EQ(testing::InferOutputShapes(c)[0], lc.data);
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      return std::vector<Values>{Reference(in[0], lc.data, lc.nsize, static_cast<double>(0.5f),
                                           static_cast<double>(beta), 1.5)};
    });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, LRNTest,
    ::testing::Values(LRNCase{TShape{2, 6, 3, 5}, 3}, LRNCase{TShape{2, 6, 3, 5}, 5},
                      LRNCase{TShape{2, 6, 3, 5}, 4}, LRNCase{TShape{2, 5, 4}, 1},
                      LRNCase{TShape{3, 4}, 9}, LRNCase{TShape{1, 7, 19}, 2}),
    [](const ::testing::TestParamInfo<LRNCase>& info) {
      return "case_" + std::to_string(info.index);
    });

// The defaults (alpha 1e-4, beta 0.75, knorm 2): with x = 1 everywhere and nsize 3, the
// middle channels see 3 ones, the edges 2.
TEST(LRNTest, Defaults) {
  const OpCase c{"LRN", {{"nsize", "3"}}, {InputSpec::WithValues(TShape{1, 3, 1}, {1, 1, 1})}};
  const Values out =
      testing::ToValues(testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat64))[0].blob());
  EXPECT_NEAR(out[0], std::pow(2 + 1e-4 / 3 * 2, -0.75), 1e-9);
  EXPECT_NEAR(out[1], std::pow(2 + 1e-4 / 3 * 3, -0.75), 1e-9);
}

TEST(LRNTest, Errors) {
  const OpCase one_axis{"LRN", {{"nsize", "3"}}, {InputSpec{TShape{5}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(one_axis); }),
            "LRN: data (5,) must have at least 2 axes (N, C, spatial...)");
  EXPECT_THAT(testing::ErrorOf([] { ParseAttrs(Op::Get("LRN"), {{"nsize", "0"}}); }),
              HasSubstr("nsize"));
  EXPECT_THAT(testing::ErrorOf([] { ParseAttrs(Op::Get("LRN"), {}); }), HasSubstr("nsize"));
}

}  // namespace
}  // namespace ops
