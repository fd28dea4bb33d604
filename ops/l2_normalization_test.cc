// L2Normalization against a float64 reference in each mode (instance on 2-d to 4-d data,
// channel and spatial with and without spatial extent beyond one), write modes, numerical
// gradients, and its errors.
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

// x / sqrt(sum(x * x) + eps) along the middle axis of x viewed as (outer, n, inner).
Values Reference(const Values& x, index_t outer, index_t n, index_t inner, double eps) {
  Values out(x.size());
  for (index_t o = 0; o < outer; ++o) {
    for (index_t i = 0; i < inner; ++i) {
      double sum = 0;
      for (index_t j = 0; j < n; ++j) sum += std::pow(x[(o * n + j) * inner + i], 2);
      for (index_t j = 0; j < n; ++j) {
        const index_t at = (o * n + j) * inner + i;
        out[at] = x[at] / std::sqrt(sum + eps);
      }
    }
  }
  return out;
}

struct ModeCase {
  std::string mode;
  TShape data;
  index_t outer, n, inner;
};

class L2NormalizationTest : public ::testing::TestWithParam<ModeCase> {};

TEST_P(L2NormalizationTest, MatchesReferenceWithGradients) {
  const ModeCase& m = GetParam();
  for (const char* eps : {"1e-10", "0.5"}) {
    SCOPED_TRACE(std::string("eps=") + eps);
    const OpCase c{"L2Normalization", {{"mode", m.mode}, {"eps", eps}}, {InputSpec{m.data}}};
    EXPECT_EQ(testing::InferOutputShapes(c)[0], m.data);
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      return std::vector<Values>{
          Reference(in[0], m.outer, m.n, m.inner, static_cast<double>(std::stof(eps)))};
    });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, L2NormalizationTest,
    ::testing::Values(ModeCase{"instance", TShape{3, 5}, 3, 5, 1},
                      ModeCase{"instance", TShape{2, 3, 4, 5}, 2, 60, 1},
                      ModeCase{"instance", TShape{4}, 4, 1, 1},
                      ModeCase{"channel", TShape{2, 3, 4, 5}, 2, 3, 20},
                      ModeCase{"channel", TShape{2, 5, 1}, 2, 5, 1},
                      ModeCase{"channel", TShape{3, 4, 37}, 3, 4, 37},
                      ModeCase{"spatial", TShape{2, 3, 4, 5}, 6, 20, 1},
                      ModeCase{"spatial", TShape{2, 3, 1}, 6, 1, 1}),
    [](const ::testing::TestParamInfo<ModeCase>& info) {
      return info.param.mode + "_" + std::to_string(info.index);
    });

// A zero line stays zero (eps keeps the norm above 0), its gradient g / sqrt(eps).
TEST(L2NormalizationTest, ZeroLine) {
  const OpCase c{"L2Normalization", {{"eps", "0.25"}},
                 {InputSpec::WithValues(TShape{2, 2}, {0, 0, 3, 4})}};
  const auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
  const Values out = testing::ToValues(testing::Forward(c, inputs)[0].blob());
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], 0);
  EXPECT_NEAR(out[2], 3 / std::sqrt(25.25), 1e-15);
  const Values grad = testing::ToValues(testing::Backward(c, inputs, {{1, 2, 0, 0}})[0].blob());
  EXPECT_EQ(grad[0], 2);
  EXPECT_EQ(grad[1], 4);
}

TEST(L2NormalizationTest, Errors) {
  for (const char* mode : {"channel", "spatial"}) {
    const OpCase c{"L2Normalization", {{"mode", mode}}, {InputSpec{TShape{2, 3}}}};
    EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(c); }),
              std::string("L2Normalization: data (2,3) must have at least 3 axes (N, C, "
                          "spatial...) in ") +
                  mode + " mode");
  }
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("L2Normalization"), {{"mode", "batch"}});
              }),
              HasSubstr("batch"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("L2Normalization"), {{"eps", "-1"}});
              }),
              HasSubstr("eps"));
}

}  // namespace
}  // namespace ops
