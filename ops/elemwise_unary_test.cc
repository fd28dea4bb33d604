#include <math.h>  // signgam
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <tuple>
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

struct UnaryCase {
  std::string op;
  std::function<double(double)> reference;
  double lo, hi;  // input range, away from points where the derivative jumps
};

// erf's inverse to double precision by bisection, independent of the library's method.
double ErfInvByBisection(double y) {
  double lo = -6, hi = 6;
  for (int i = 0; i < 200 && lo < hi; ++i) {
    const double mid = (lo + hi) / 2;
    (std::erf(mid) < y ? lo : hi) = mid;
    if (mid == lo && mid == hi) break;
  }
  return (lo + hi) / 2;
}

std::vector<UnaryCase> UnaryCases() {
  return {
      {"relu", [](double x) { return x > 0 ? x : 0; }, -1, 1},
      {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, -4, 4},
      {"tanh", [](double x) { return std::tanh(x); }, -3, 3},
      {"exp", [](double x) { return std::exp(x); }, -3, 3},
      {"log", [](double x) { return std::log(x); }, 0.1, 5},
      {"sqrt", [](double x) { return std::sqrt(x); }, 0.1, 5},
      {"square", [](double x) { return x * x; }, -3, 3},
      {"abs", [](double x) { return std::fabs(x); }, -2, 2},
      {"negative", [](double x) { return -x; }, -2, 2},
      {"log1p", [](double x) { return std::log1p(x); }, -0.5, 3},
      {"expm1", [](double x) { return std::expm1(x); }, -3, 3},
      {"log2", [](double x) { return std::log2(x); }, 0.1, 5},
      {"log10", [](double x) { return std::log10(x); }, 0.1, 5},
      {"rsqrt", [](double x) { return 1 / std::sqrt(x); }, 0.2, 5},
      {"reciprocal", [](double x) { return 1 / x; }, 0.2, 5},
      {"cbrt", [](double x) { return std::cbrt(x); }, 0.2, 5},
      {"erf", [](double x) { return std::erf(x); }, -2, 2},
      {"sin", [](double x) { return std::sin(x); }, -4, 4},
      {"cos", [](double x) { return std::cos(x); }, -4, 4},
      {"arctan", [](double x) { return std::atan(x); }, -4, 4},
      {"tan", [](double x) { return std::tan(x); }, -1.2, 1.2},
      {"arcsin", [](double x) { return std::asin(x); }, -0.9, 0.9},
      {"arccos", [](double x) { return std::acos(x); }, -0.9, 0.9},
      {"sinh", [](double x) { return std::sinh(x); }, -3, 3},
      {"cosh", [](double x) { return std::cosh(x); }, -3, 3},
      {"arcsinh", [](double x) { return std::asinh(x); }, -3, 3},
      {"arccosh", [](double x) { return std::acosh(x); }, 1.1, 4},
      {"arctanh", [](double x) { return std::atanh(x); }, -0.9, 0.9},
      {"degrees", [](double x) { return x * 180 / M_PI; }, -3, 3},
      {"radians", [](double x) { return x * M_PI / 180; }, -100, 100},
      {"rcbrt", [](double x) { return 1 / std::cbrt(x); }, 0.2, 5},
      {"gamma", [](double x) { return std::tgamma(x); }, 0.2, 4},
      {"gammaln", [](double x) { return std::lgamma(x); }, 0.2, 5},
      {"erfinv", ErfInvByBisection, -0.99, 0.99},
      {"softsign", [](double x) { return x / (1 + std::fabs(x)); }, -3, 3},
      {"sign", [](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }, -2, 2},
      {"floor", [](double x) { return std::floor(x); }, -3, 3},
      {"ceil", [](double x) { return std::ceil(x); }, -3, 3},
      {"round", [](double x) { return std::round(x); }, -3, 3},
      {"rint", [](double x) { return std::round(x); }, -3, 3},  // no ties in random data
      {"trunc", [](double x) { return std::trunc(x); }, -3, 3},
      {"fix", [](double x) { return std::trunc(x); }, -3, 3},
      {"zeros_like", [](double) { return 0.0; }, -2, 2},
      {"ones_like", [](double) { return 1.0; }, -2, 2},
  };
}

OpCase CaseOf(const UnaryCase& u, const TShape& shape) {
  return OpCase{u.op, {}, {InputSpec(shape, u.lo, u.hi)}};
}

TEST(UnaryOpsTest, ForwardMatchesReference) {
  for (const UnaryCase& u : UnaryCases()) {
    SCOPED_TRACE(u.op);
    testing::CheckForward(CaseOf(u, TShape{3, 7, 5}), testing::ElementwiseReference(u.reference), 1e-14, 1e-6);
  }
}

TEST(UnaryOpsTest, WriteModes) {
  for (const UnaryCase& u : UnaryCases()) {
    SCOPED_TRACE(u.op);
    testing::CheckWriteModes(CaseOf(u, TShape{4, 6}));
  }
}

TEST(UnaryOpsTest, GradientsMatchCentralDifferences) {
  for (const UnaryCase& u : UnaryCases()) {
    SCOPED_TRACE(u.op);
    testing::CheckGradient(CaseOf(u, TShape{5, 4}));
  }
}

TEST(UnaryOpsTest, ShapeAndTypeInference) {
  const OpCase relu{"relu", {}, {InputSpec{TShape{2, 9}}}};
  EXPECT_EQ(testing::InferOutputShapes(relu), std::vector<TShape>{TShape({2, 9})});
  const NodeAttrs attrs = ParseAttrs(Op::Get("relu"), {});
  std::vector<int> in = {mshadow::kInt32}, out;
  EXPECT_EQ(testing::ErrorOf([&] { InferTypes(attrs, &in, &out); }),
            "relu: data type int32 is not supported; valid: float32, float64, float16, bfloat16");
  std::vector<TShape> in_shapes = {TShape()}, out_shapes;
  EXPECT_EQ(testing::ErrorOf([&] { InferShapes(attrs, &in_shapes, &out_shapes); }),
            "relu: cannot infer every shape from the inputs given: data=()");
  std::vector<TShape> two = {TShape{2}, TShape{2}};
  EXPECT_EQ(testing::ErrorOf([&] { InferShapes(attrs, &two, &out_shapes); }),
            "relu takes 1 inputs (data), given 2");
}

TEST(UnaryOpsTest, InplaceWriteGivesTheSameResult) {
  const OpCase c = CaseOf(UnaryCases()[1], TShape{10});
  auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
  const Values expected = testing::ToValues(testing::Forward(c, inputs)[0].blob());
  const NodeAttrs attrs = ParseAttrs(Op::Get("sigmoid"), {});
  Invoke<mshadow::cpu>(attrs, OpContext(), {inputs[0].blob()}, {kWriteInplace},
                       {inputs[0].blob()});
  EXPECT_EQ(testing::ToValues(inputs[0].blob()), expected);
}

// The piecewise constant functions' gradients where the output gradient is not finite, as
// MXNet 1.9.1's: sign's is zero times it (NaN there), floor's and the roundings' are zeros.
TEST(UnaryOpsTest, PiecewiseConstantGradientsOfNonFiniteOutputGradients) {
  const Values out_grad{NAN, 1, INFINITY, -INFINITY};
  for (const std::string op : {"sign", "floor", "ceil", "round", "rint", "fix", "trunc"}) {
    SCOPED_TRACE(op);
    const OpCase c{op, {}, {InputSpec{TShape{4}}}};
    const Values g = testing::ToValues(
        testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat32), {out_grad})[0].blob());
    if (op == "sign") {
      EXPECT_TRUE(std::isnan(g[0]) && g[1] == 0 && std::isnan(g[2]) && std::isnan(g[3]));
    } else {
      EXPECT_EQ(g, Values(4, 0.0));
    }
  }
}

// The straight-through estimators: MXNet 1.9.1's documented values, and the output gradient
// passed through unchanged (NaN and infinities included) where round's and sign's is zero.
TEST(UnaryOpsTest, StraightThroughEstimatorsPassTheGradient) {
  const Values out_grad{NAN, 1, INFINITY, -2.5, 0.25};
  for (const auto& [op, x, y] : std::vector<std::tuple<std::string, Values, Values>>{
           {"_contrib_round_ste", {-1.5, 1.5, -1.9, 1.9, 2.7}, {-2, 2, -2, 2, 3}},
           {"_contrib_sign_ste", {-2, 0, 3, -0.5, 7}, {-1, 0, 1, -1, 1}}}) {
    SCOPED_TRACE(op);
    const OpCase c{op, {}, {InputSpec::WithValues(TShape{5}, x)}};
    const auto inputs = testing::MakeInputs(c, mshadow::kFloat32);
    EXPECT_EQ(testing::ToValues(testing::Forward(c, inputs)[0].blob()), y);
    const Values g = testing::ToValues(testing::Backward(c, inputs, {out_grad})[0].blob());
    EXPECT_TRUE(std::isnan(g[0]));
    EXPECT_EQ(Values(g.begin() + 1, g.end()), Values(out_grad.begin() + 1, out_grad.end()));
    testing::CheckWriteModes(c);
  }
}

// Ties: round goes away from zero, rint to the lower integer, as MXNet 1.9.1 (its
// mx.nd.rint([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]) is [-3, -2, -1, 0, 1, 2]).
TEST(UnaryOpsTest, RoundingTiesFollowMxnet) {
  const std::vector<double> halves = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5};
  const std::map<std::string, testing::Values> expected = {
      {"round", {-3, -2, -1, 1, 2, 3}}, {"rint", {-3, -2, -1, 0, 1, 2}},
      {"fix", {-2, -1, 0, 0, 1, 2}},    {"floor", {-3, -2, -1, 0, 1, 2}},
      {"ceil", {-2, -1, 0, 1, 2, 3}},   {"sign", {-1, -1, -1, 1, 1, 1}}};
  for (const auto& [op, values] : expected) {
    SCOPED_TRACE(op);
    const std::vector<CpuTensor> out =
        RunCpu(ParseAttrs(Op::Get(op), {}),
               Blobs(testing::MakeInputs({op, {}, {InputSpec::WithValues(TShape{6}, halves)}},
                                         mshadow::kFloat32)));
    EXPECT_EQ(testing::ToValues(out[0].blob()), values);
  }
}

// Values printed by MXNet 1.9.1 (float64, 9 digits): digamma (gammaln's gradient) across its
// reflection and at its poles (the largest double there), erfinv at and beyond +-1. MXNet's
// digamma is within 1e-7 of the true values (absolute, or relative beyond 1); ours is checked
// to 1e-12 where they are known in closed form.
TEST(UnaryOpsTest, SpecialFunctionsFollowMxnetAtTheirEdges) {
  auto expect_values = [](const Values& expected, const Values& actual, double tolerance) {
    ASSERT_EQ(expected.size(), actual.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      SCOPED_TRACE(i);
      if (std::isnan(expected[i])) {
        EXPECT_TRUE(std::isnan(actual[i])) << actual[i];
      } else if (std::isinf(expected[i]) || expected[i] == DBL_MAX) {
        EXPECT_EQ(actual[i], expected[i]);
      } else {
        EXPECT_NEAR(actual[i], expected[i], tolerance * std::max(std::fabs(expected[i]), 1.0));
      }
    }
  };
  const Values x{0, -1, -2.5, 0.5, 3, 1e-3, 30, -0.5};
  const OpCase gammaln{"gammaln", {}, {InputSpec::WithValues(TShape{8}, x)}};
  const Values digamma =
      testing::ToValues(testing::Backward(gammaln, testing::MakeInputs(gammaln, mshadow::kFloat64),
                                          {Values(8, 1.0)})[0]
                            .blob());
  expect_values({DBL_MAX, DBL_MAX, 1.10315672, -1.96350994, 0.922784335, -1000.57557, 3.38443818,
                 0.0364900582},
                digamma, 1e-7);
  // In float32 the poles are infinite, as in MXNet.
  const Values digamma32 =
      testing::ToValues(testing::Backward(gammaln, testing::MakeInputs(gammaln, mshadow::kFloat32),
                                          {Values(8, 1.0)})[0]
                            .blob());
  EXPECT_EQ(digamma32[0], INFINITY);
  EXPECT_EQ(digamma32[1], INFINITY);
  // psi(1/2) = -gamma - 2 ln 2, psi(3) = 3/2 - gamma, psi(x + 1) = psi(x) + 1/x.
  const double euler = 0.57721566490153286, psi_half = -euler - 2 * std::log(2.0);
  expect_values({psi_half + 2 + 2.0 / 3 + 0.4, psi_half, 1.5 - euler, psi_half + 2},
                {digamma[2], digamma[3], digamma[4], digamma[7]}, 1e-12);
  const Values y{0, 0.5, -0.9, 0.999999, 1, -1, 1.5, 1e-8};
  const OpCase erfinv{"erfinv", {}, {InputSpec::WithValues(TShape{8}, y)}};
  expect_values(
      {0, 0.476936276, -1.16308715, 3.45891074, INFINITY, -INFINITY, NAN, 8.86226925e-09},
      testing::ToValues(
          testing::Forward(erfinv, testing::MakeInputs(erfinv, mshadow::kFloat64))[0].blob()),
      1e-8);
}

// gammaln never writes libm's global signgam (a race between threads calling it: CI's TSan
// stage), and still gives log|Gamma(x)| where Gamma is negative.
TEST(UnaryOpsTest, GammalnLeavesSigngamAlone) {
  const Values x{-0.5, -2.5, 0.5, 4};
  const OpCase gammaln{"gammaln", {}, {InputSpec::WithValues(TShape{4}, x)}};
  for (const int type : {mshadow::kFloat32, mshadow::kFloat64}) {
    signgam = 7;
    const Values y =
        testing::ToValues(testing::Forward(gammaln, testing::MakeInputs(gammaln, type))[0].blob());
    EXPECT_EQ(signgam, 7) << "type " << type;
    // Gamma(-0.5) = -2 sqrt(pi), Gamma(-2.5) = -8 sqrt(pi) / 15, Gamma(0.5) = sqrt(pi).
    const double root_pi = std::sqrt(3.14159265358979323846);
    const Values expected{std::log(2 * root_pi), std::log(8 * root_pi / 15), std::log(root_pi),
                          std::log(6.0)};
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_NEAR(y[i], expected[i], type == mshadow::kFloat32 ? 1e-6 : 1e-13) << x[i];
    }
  }
}

// logical_not: 1 where the input is zero (either sign), its gradient zeros whatever the output
// gradient.
TEST(UnaryOpsTest, LogicalNot) {
  const OpCase c{"logical_not", {}, {InputSpec::WithValues(TShape{5}, {0, -0.0, 0.5, -2, NAN})}};
  const auto inputs = testing::MakeInputs(c, mshadow::kFloat32);
  EXPECT_EQ(testing::ToValues(testing::Forward(c, inputs)[0].blob()), (Values{1, 1, 0, 0, 0}));
  EXPECT_EQ(testing::ToValues(testing::Backward(c, inputs, {Values(5, NAN)})[0].blob()),
            Values(5, 0.0));
}

// BlockGrad (stop_gradient) passes its input forward and no gradient back.
TEST(UnaryOpsTest, BlockGradStopsTheGradient) {
  EXPECT_EQ(Op::Get("stop_gradient"), Op::Get("BlockGrad"));
  const OpCase c{"BlockGrad", {}, {InputSpec(TShape{3, 4})}};
  testing::CheckForward(c, testing::ElementwiseReference([](double x) { return x; }));
  testing::CheckWriteModes(c);
  const std::vector<CpuTensor> grad =
      RunCpu(ParseAttrs(Op::Get("_backward_BlockGrad"), {}),
             Blobs(testing::MakeInputs({"BlockGrad", {}, {InputSpec(TShape{3, 4})}},
                                       mshadow::kFloat64)));
  EXPECT_EQ(testing::ToValues(grad[0].blob()), testing::Values(12, 0.0));
}

// MXNet 1.9.1 accepts a_min > a_max: a_max above a_max, a_min elsewhere, no gradient
// (mx.nd.clip([-2, -0.3, 0.1, 0.7, 3], a_min=1, a_max=0) is [1, 1, 0, 0, 0]).
TEST(ClipTest, MinimumAboveMaximumFollowsMxnet) {
  OpCase c{"clip", {{"a_min", "1"}, {"a_max", "0"}}, {InputSpec{TShape{6, 5}, -2, 3}}};
  testing::CheckForward(c, testing::ElementwiseReference([](double x) { return x > 0 ? 0.0 : 1.0; }));
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
  const std::vector<CpuTensor> out = RunCpu(
      ParseAttrs(Op::Get("clip"), {{"a_min", "1"}, {"a_max", "0"}}),
      Blobs(testing::MakeInputs(
          {"clip", {}, {InputSpec::WithValues(TShape{5}, {-2, -0.3, 0.1, 0.7, 3})}},
          mshadow::kFloat32)));
  EXPECT_EQ(testing::ToValues(out[0].blob()), (testing::Values{1, 1, 0, 0, 0}));
}

TEST(ClipTest, ForwardGradientAndParameters) {
  OpCase c{"clip", {{"a_min", "-0.5"}, {"a_max", "0.25"}}, {InputSpec{TShape{6, 5}}}};
  testing::CheckForward(c, testing::ElementwiseReference([](double x) { return std::min(std::max(x, -0.5), 0.25); }));
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
  EXPECT_THAT(testing::ErrorOf([] { ParseAttrs(Op::Get("clip"), {{"a_min", "1"}}); }),
              HasSubstr("Invalid parameter of operator clip: Required parameter a_max of double "
                        "is not presented"));
  EXPECT_THAT(
      testing::ErrorOf([] { ParseAttrs(Op::Get("clip"), {{"a_min", "x"}, {"a_max", "0"}}); }),
      HasSubstr("Invalid Parameter format for a_min expect double but value='x'"));
}

}  // namespace
}  // namespace ops
