#include <cmath>
#include <functional>
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

struct UnaryCase {
  std::string op;
  std::function<double(double)> reference;
  double lo, hi;  // input range, away from points where the derivative jumps
};

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
