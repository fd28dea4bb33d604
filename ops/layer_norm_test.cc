// LayerNorm against a float64 reference along the last and a middle axis, its optional mean
// and std outputs, write modes and numerical gradients (data, gamma, beta), and its errors.
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

// out, mean, std of every line of (outer, n, inner).
std::vector<Values> ReferenceLayerNorm(const std::vector<Values>& in, int outer, int n, int inner,
                                       double eps) {
  Values out(in[0].size()), mean(outer * inner), std_dev(outer * inner);
  for (int o = 0; o < outer; ++o) {
    for (int k = 0; k < inner; ++k) {
      auto at = [&](int j) { return (o * n + j) * inner + k; };
      double m = 0, v = 0;
      for (int j = 0; j < n; ++j) m += in[0][at(j)] / n;
      for (int j = 0; j < n; ++j) v += std::pow(in[0][at(j)] - m, 2) / n;
      const double s = std::sqrt(v + eps);
      mean[o * inner + k] = m;
      std_dev[o * inner + k] = s;
      for (int j = 0; j < n; ++j) out[at(j)] = (in[0][at(j)] - m) / s * in[1][j] + in[2][j];
    }
  }
  return {out, mean, std_dev};
}

struct LayerNormCase {
  std::string name;
  TShape data;
  int axis, outer, n, inner;
};

class LayerNormTest : public ::testing::TestWithParam<LayerNormCase> {};

TEST_P(LayerNormTest, MatchesReferenceWithGradients) {
  const LayerNormCase& lc = GetParam();
  for (const bool with_moments : {false, true}) {
    SCOPED_TRACE(with_moments ? "output_mean_var" : "one output");
    const OpCase c{"LayerNorm",
                   {{"axis", std::to_string(lc.axis)},
                    {"eps", "0.001"},
                    {"output_mean_var", with_moments ? "True" : "False"}},
                   {InputSpec{lc.data, -2, 2}, InputSpec{TShape{lc.n}, 0.5, 1.5},
                    InputSpec{TShape{lc.n}}}};
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      std::vector<Values> all =
          ReferenceLayerNorm(in, lc.outer, lc.n, lc.inner, static_cast<double>(0.001f));
      if (!with_moments) all.resize(1);
      return all;
    });
    testing::CheckWriteModes(c);
    if (!with_moments) testing::CheckGradient(c);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Axes, LayerNormTest,
    ::testing::Values(LayerNormCase{"last_axis", TShape{3, 4, 37}, -1, 12, 37, 1},
                      LayerNormCase{"rows", TShape{5, 8}, 1, 5, 8, 1},
                      LayerNormCase{"middle_axis", TShape{2, 6, 5}, 1, 2, 6, 5},
                      LayerNormCase{"first_axis", TShape{7, 3}, 0, 1, 7, 3}),
    [](const ::testing::TestParamInfo<LayerNormCase>& info) { return info.param.name; });

TEST(LayerNormTest, MomentShapesAndErrors) {
  std::vector<TShape> in = {TShape{2, 3, 4}, TShape(), TShape()}, out;
  InferShapes(ParseAttrs(Op::Get("LayerNorm"), {{"axis", "1"}, {"output_mean_var", "True"}}), &in,
              &out);
  EXPECT_EQ(in[1], (TShape{3}));
  EXPECT_EQ(out[1], (TShape{2, 1, 4}));
  EXPECT_EQ(out[2], (TShape{2, 1, 4}));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(OpCase{"LayerNorm",
                                                  {{"axis", "2"}},
                                                  {InputSpec{TShape{2, 3}}, InputSpec{TShape()},
                                                   InputSpec{TShape()}}});
              }),
              HasSubstr("axis 2 is out of range"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(OpCase{"LayerNorm",
                                                  {},
                                                  {InputSpec{TShape{2, 3}}, InputSpec{TShape{2}},
                                                   InputSpec{TShape()}}});
              }),
              HasSubstr("(3,)"));
}

}  // namespace
}  // namespace ops
