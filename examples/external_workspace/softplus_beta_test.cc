// softplus_beta with mshadow_ops' operator harness: forward against a reference in float64
// and float32, write modes, the numerical gradient, checked invocation and bad parameters.
#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"

namespace {

using ops::testing::InputSpec;
using ops::testing::OpCase;
using ops::testing::Values;

TEST(SoftplusBetaTest, EverythingAnOperatorMustDo) {
  // beta 2 and threshold 4: inputs in [-4, 4] cover both branches.
  const OpCase c{"softplus_beta", {{"beta", "2"}, {"threshold", "4"}}, {InputSpec{ops::TShape{6, 7}, -4, 4}}};
  ops::testing::CheckForward(c, ops::testing::ElementwiseReference([](double x) {
    return 2 * x > 4 ? x : std::log1p(std::exp(2 * x)) / 2;
  }));
  ops::testing::CheckWriteModes(c);
  // Away from the branch point, where the function is smooth.
  const OpCase smooth{"softplus_beta", {{"beta", "2"}}, {InputSpec{ops::TShape{3, 5}, -3, 3}}};
  ops::testing::CheckGradient(smooth);
}

TEST(SoftplusBetaTest, BadInputIsAClearError) {
  EXPECT_THAT(ops::testing::ErrorOf([] {
                ops::ParseAttrs(ops::Op::Get("softplus_beta"), {{"beta", "0"}});
              }),
              ::testing::HasSubstr("beta"));
  const ops::NodeAttrs attrs = ops::ParseAttrs(ops::Op::Get("softplus_beta"), {});
  ops::CpuTensor x(ops::TShape{2, 3}, mshadow::kFloat32), y(ops::TShape{3, 2}, mshadow::kFloat32);
  EXPECT_THAT(ops::testing::ErrorOf([&] {
                ops::Invoke<mshadow::cpu>(attrs, ops::OpContext(), {x.blob()}, {ops::kWriteTo},
                                          {y.blob()});
              }),
              ::testing::HasSubstr("softplus_beta: shape of output 0 is (3,2) but (2,3) is required"));
}

}  // namespace
