// _contrib_quadratic and _contrib_gradientmultiplier: forward against their definitions, write
// modes, gradients (central differences for quadratic; the multiplier's scaled output gradient,
// which no difference of the identity shows).
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using testing::InputSpec;
using testing::OpCase;
using testing::Values;

TEST(ContribElemwiseTest, QuadraticAndItsGradient) {
  for (const auto& [a, b, c] :
       {std::tuple{1.5, -2.0, 0.5}, std::tuple{0.0, 0.0, 0.0}, std::tuple{-0.25, 3.0, -1.0}}) {
    const OpCase q{"_contrib_quadratic",
                   {{"a", std::to_string(a)}, {"b", std::to_string(b)}, {"c", std::to_string(c)}},
                   {InputSpec{TShape{3, 17}, -3, 3}}};
    testing::CheckForward(
        q, testing::ElementwiseReference([&](double x) { return a * x * x + b * x + c; }));
    testing::CheckWriteModes(q);
    testing::CheckGradient(q);
  }
}

TEST(ContribElemwiseTest, GradientMultiplierScalesOnlyTheGradient) {
  for (const double scalar : {-1.0, 0.25, 0.0}) {
    const OpCase g{"_contrib_gradientmultiplier",
                   {{"scalar", std::to_string(scalar)}},
                   {InputSpec{TShape{4, 9}}}};
    testing::CheckForward(g, testing::ElementwiseReference([](double x) { return x; }));
    testing::CheckWriteModes(g);
    const std::vector<CpuTensor> in = testing::MakeInputs(g, mshadow::kFloat64);
    Values out_grad(36);
    for (int i = 0; i < 36; ++i) out_grad[i] = i - 17.5;
    Values expected = out_grad;
    for (double& v : expected) v *= scalar;
    EXPECT_EQ(testing::ToValues(testing::Backward(g, in, {out_grad})[0].blob()), expected)
        << "scalar " << scalar;
  }
}

}  // namespace
}  // namespace ops
