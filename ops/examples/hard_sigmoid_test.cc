// 5. The test: inference, forward against a reference, write modes, the numerical gradient,
// and a bad parameter.
#include <algorithm>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using testing::InputSpec;
using testing::OpCase;
using testing::Values;

TEST(HardSigmoidTest, EverythingAnOperatorMustDo) {
  InputSpec x{TShape{4, 5}};
  x.lo = -4;  // covers both flat parts and the slope
  x.hi = 4;
  const OpCase c{"hard_sigmoid", {{"alpha", "0.25"}}, {x}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{4, 5}));
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    Values out(in[0].size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = std::clamp(0.25 * in[0][i] + 0.5, 0.0, 1.0);
    return std::vector<Values>{out};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
  EXPECT_THAT(testing::ErrorOf([] { ParseAttrs(Op::Get("hard_sigmoid"), {{"alpha", "abc"}}); }),
              ::testing::HasSubstr("alpha"));
}

// MXNet 1.9.1 takes a negative slope: hard_sigmoid(x, alpha=-0.2, beta=0.5) falls with x.
TEST(HardSigmoidTest, NegativeSlope) {
  InputSpec x{TShape{6, 5}, -4, 4};
  const OpCase c{"hard_sigmoid", {{"alpha", "-0.5"}, {"beta", "0.25"}}, {x}};
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    Values out(in[0].size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = std::clamp(-0.5 * in[0][i] + 0.25, 0.0, 1.0);
    return std::vector<Values>{out};
  });
  testing::CheckGradient(c);
}

}  // namespace
}  // namespace ops
