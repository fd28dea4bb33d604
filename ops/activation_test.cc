// Activation and LeakyReLU.
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;

// Every test tensor has whole packets of either type (on every arch) and a scalar tail, so
// both the packet forms and the scalar functors run.
TEST(ActivationTest, EveryActType) {
  const std::vector<std::pair<std::string, std::function<double(double)>>> acts = {
      {"relu", [](double x) { return x > 0 ? x : 0; }},
      {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"softrelu", [](double x) { return std::log1p(std::exp(x)); }},
      {"softsign", [](double x) { return x / (1 + std::fabs(x)); }}};
  for (const auto& [act, f] : acts) {
    SCOPED_TRACE(act);
    InputSpec data{TShape{4, 3, 11}};
    data.lo = -3;
    data.hi = 3;
    const OpCase c{"Activation", {{"act_type", act}}, {data}};
    testing::CheckForward(c, testing::ElementwiseReference(f), 1e-14, 1e-6);
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("Activation"), {{"act_type", "gelu"}});
              }),
              HasSubstr("Invalid parameter of operator Activation: Invalid Input: 'gelu' for "
                        "act_type, valid values are: {'relu', 'sigmoid', 'softrelu', 'softsign', "
                        "'tanh'}"));
}

TEST(LeakyReLUTest, LeakyAndElu) {
  const OpCase leaky{"LeakyReLU", {{"slope", "0.1"}}, {InputSpec{TShape{5, 27}}}};
  testing::CheckForward(
      leaky, testing::ElementwiseReference([](double x) { return x > 0 ? x : 0.1 * x; }), 1e-7);
  testing::CheckWriteModes(leaky);
  testing::CheckGradient(leaky);
  const OpCase elu{"LeakyReLU", {{"act_type", "elu"}, {"slope", "0.5"}}, {InputSpec{TShape{70}}}};
  testing::CheckForward(
      elu, testing::ElementwiseReference([](double x) { return x > 0 ? x : 0.5 * std::expm1(x); }));
  testing::CheckGradient(elu);
}

}  // namespace
}  // namespace ops
