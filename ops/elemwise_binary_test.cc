#include <cmath>
#include <functional>
#include <map>
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
using testing::Values;

struct BinaryCase {
  std::string op;
  std::function<double(double, double)> reference;
};

std::vector<BinaryCase> BinaryCases() {
  return {{"elemwise_add", [](double a, double b) { return a + b; }},
          {"elemwise_sub", [](double a, double b) { return a - b; }},
          {"elemwise_mul", [](double a, double b) { return a * b; }},
          {"elemwise_div", [](double a, double b) { return a / b; }},
          {"_maximum", [](double a, double b) { return std::max(a, b); }},
          {"_minimum", [](double a, double b) { return std::min(a, b); }},
          {"_power", [](double a, double b) { return std::pow(a, b); }},
          {"_hypot", [](double a, double b) { return std::hypot(a, b); }},
          {"_mod", [](double a, double b) { return a - b * std::floor(a / b); }},
          {"_not_equal", [](double a, double b) { return a != b ? 1.0 : 0.0; }},
          {"_greater_equal", [](double a, double b) { return a >= b ? 1.0 : 0.0; }},
          {"_logical_or", [](double a, double b) { return a != 0 || b != 0 ? 1.0 : 0.0; }}};
}

TEST(ElemwiseBinaryTest, ForwardWriteModesAndGradients) {
  for (const BinaryCase& b : BinaryCases()) {
    SCOPED_TRACE(b.op);
    const double lhs_lo = b.op == "_power" ? 0.2 : -1;  // a positive base
    const OpCase c{b.op, {}, {InputSpec(TShape{4, 5}, lhs_lo, 2.0), InputSpec(TShape{4, 5}, 0.5, 2.0)}};
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      Values out(in[0].size());
      for (size_t i = 0; i < out.size(); ++i) out[i] = b.reference(in[0][i], in[1][i]);
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
}

// Every pair of special values (signed zeros, ties, infinities, NaN), 64 elements: whole
// packets on the vector path.
std::pair<Values, Values> SpecialPairs() {
  const double inf = INFINITY, nan = NAN;
  const Values specials = {0.0, -0.0, 1.0, -1.0, 2.0, inf, -inf, nan};
  Values a, b;
  for (double x : specials) {
    for (double y : specials) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  return {a, b};
}

TEST(ElemwiseBinaryTest, ComparisonsAndLogicalOperationsOnSpecialValues) {
  const std::map<std::string, std::function<bool(double, double)>> tests = {
      {"_equal", [](double a, double b) { return a == b; }},
      {"_not_equal", [](double a, double b) { return a != b; }},
      {"_greater", [](double a, double b) { return a > b; }},
      {"_greater_equal", [](double a, double b) { return a >= b; }},
      {"_lesser", [](double a, double b) { return a < b; }},
      {"_lesser_equal", [](double a, double b) { return a <= b; }},
      {"_logical_and", [](double a, double b) { return a != 0 && b != 0; }},
      {"_logical_or", [](double a, double b) { return a != 0 || b != 0; }},
      {"_logical_xor", [](double a, double b) { return (a != 0) != (b != 0); }}};
  const auto [a, b] = SpecialPairs();
  const TShape shape{static_cast<int64_t>(a.size())};
  for (const auto& [op, holds] : tests) {
    Values expected;
    for (size_t i = 0; i < a.size(); ++i) expected.push_back(holds(a[i], b[i]) ? 1 : 0);
    const OpCase c{op, {}, {InputSpec::WithValues(shape, a), InputSpec::WithValues(shape, b)}};
    for (int type : {mshadow::kFloat32, mshadow::kFloat64}) {
      SCOPED_TRACE(op + (type == mshadow::kFloat32 ? " float32" : " float64"));
      EXPECT_EQ(testing::ToValues(testing::Forward(c, testing::MakeInputs(c, type))[0].blob()),
                expected);
    }
  }
}

// As in MXNet: the gradient goes to lhs on ties, to neither operand where one is NaN.
TEST(ElemwiseBinaryTest, MaximumAndMinimumGradientsOnSpecialValues) {
  const auto [a, b] = SpecialPairs();
  const TShape shape{static_cast<int64_t>(a.size())};
  for (const std::string op : {"_maximum", "_minimum"}) {
    Values lhs, rhs;
    for (size_t i = 0; i < a.size(); ++i) {
      const bool to_lhs = op == "_maximum" ? a[i] >= b[i] : a[i] <= b[i];
      const bool to_rhs = op == "_maximum" ? a[i] < b[i] : a[i] > b[i];
      lhs.push_back(to_lhs ? 1 : 0);
      rhs.push_back(to_rhs ? 1 : 0);
    }
    const OpCase c{op, {}, {InputSpec::WithValues(shape, a), InputSpec::WithValues(shape, b)}};
    for (int type : {mshadow::kFloat32, mshadow::kFloat64}) {
      SCOPED_TRACE(op + (type == mshadow::kFloat32 ? " float32" : " float64"));
      const auto grads =
          testing::Backward(c, testing::MakeInputs(c, type), {Values(a.size(), 1.0)});
      EXPECT_EQ(testing::ToValues(grads[0].blob()), lhs);
      EXPECT_EQ(testing::ToValues(grads[1].blob()), rhs);
    }
  }
}

// mod as MXNet's: the divisor's sign (Python's %), 0 for a zero divisor; d/dlhs = 1 and d/drhs
// = -floor(lhs / rhs), the latter infinite for a zero divisor as in MXNet.
TEST(ElemwiseBinaryTest, ModTakesTheDivisorsSignAndIsZeroForAZeroDivisor) {
  const Values a{5, -5, 5, -5, 5.5, -0.5, 4, 3}, b{3, 3, -3, -3, 2, 2, 2, 0};
  const Values expected{2, 1, -1, -2, 1.5, 1.5, 0, 0};
  const Values rhs_grad{-1, 2, 2, -1, -2, 1, -2, -INFINITY};
  const TShape shape{static_cast<int64_t>(a.size())};
  const OpCase c{"_mod", {}, {InputSpec::WithValues(shape, a), InputSpec::WithValues(shape, b)}};
  const OpCase broadcast{"broadcast_mod", {}, c.inputs};
  for (int type : {mshadow::kFloat32, mshadow::kFloat64}) {
    SCOPED_TRACE(type == mshadow::kFloat32 ? "float32" : "float64");
    for (const OpCase& op : {c, broadcast}) {
      SCOPED_TRACE(op.op);
      EXPECT_EQ(testing::ToValues(testing::Forward(op, testing::MakeInputs(op, type))[0].blob()),
                expected);
      const auto grads =
          testing::Backward(op, testing::MakeInputs(op, type), {Values(a.size(), 1.0)});
      EXPECT_EQ(testing::ToValues(grads[0].blob()), Values(a.size(), 1.0));
      EXPECT_EQ(testing::ToValues(grads[1].blob()), rhs_grad);
    }
  }
  const OpCase zero_divisor{"_mod_scalar", {{"scalar", "0"}}, {InputSpec::WithValues(shape, a)}};
  EXPECT_EQ(
      testing::ToValues(
          testing::Forward(zero_divisor, testing::MakeInputs(zero_divisor, mshadow::kFloat32))[0]
              .blob()),
      Values(a.size(), 0.0));
  const OpCase reversed{"_rmod_scalar", {{"scalar", "-5"}}, {InputSpec::WithValues(shape, b)}};
  EXPECT_EQ(
      testing::ToValues(
          testing::Forward(reversed, testing::MakeInputs(reversed, mshadow::kFloat64))[0].blob()),
      (Values{1, 1, -2, -2, 1, 1, 1, 0}));
}

// The comparisons' and logical operations' gradients are zeros whatever the output gradient,
// NaN and infinities included (MXNet 1.9.1's; out_grad * 0 would be NaN there), in the
// elementwise, scalar and broadcast families, both input sides.
TEST(ElemwiseBinaryTest, PredicateGradientsAreZerosWhateverTheOutputGradient) {
  const Values out_grad{NAN, 1, INFINITY, -INFINITY};
  const InputSpec x{TShape{4}};
  const std::vector<OpCase> cases = {
      {"_greater", {}, {x, x}},
      {"_logical_xor", {}, {x, x}},
      {"_equal_scalar", {{"scalar", "0.5"}}, {x}},
      {"_rminus_scalar", {{"scalar", "0.5"}}, {x}},  // not a predicate: out_grad * -1
      {"broadcast_lesser_equal", {}, {x, InputSpec{TShape{1}}}},
      {"broadcast_logical_or", {}, {InputSpec{TShape{2, 2}}, InputSpec{TShape{2, 1}}}}};
  for (const OpCase& c : cases) {
    for (int type : {mshadow::kFloat32, mshadow::kFloat64}) {
      SCOPED_TRACE(c.op + (type == mshadow::kFloat32 ? " float32" : " float64"));
      const auto grads = testing::Backward(c, testing::MakeInputs(c, type), {out_grad});
      for (const CpuTensor& grad : grads) {
        const Values g = testing::ToValues(grad.blob());
        if (c.op == "_rminus_scalar") {
          EXPECT_TRUE(std::isnan(g[0]) && g[1] == -1 && g[2] == -INFINITY && g[3] == INFINITY);
        } else {
          EXPECT_EQ(g, Values(g.size(), 0.0));
        }
      }
    }
  }
}

TEST(ElemwiseBinaryTest, ShapeConflictNamesTheInputAndBothShapes) {
  const OpCase c{"elemwise_add", {}, {InputSpec{TShape{2, 3}}, InputSpec{TShape{3, 2}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(c); }),
            "elemwise_add: shape of input 'rhs' is (3,2) but (2,3) is required (inputs: "
            "lhs=(2,3), rhs=(3,2))");
  // The known shape flows to the unknown input.
  const OpCase partial{"elemwise_mul", {}, {InputSpec{TShape()}, InputSpec{TShape{7}}}};
  EXPECT_EQ(testing::InferOutputShapes(partial), std::vector<TShape>{TShape{7}});
}

struct ScalarCase {
  std::string op;
  std::function<double(double, double)> reference;  // (x, scalar)
  double scalar = 2.5;
  double lo = 0.5;  // the data in [lo, 2]
};

TEST(ScalarOpsTest, ForwardWriteModesAndGradients) {
  const std::vector<ScalarCase> cases = {
      {"_plus_scalar", [](double x, double s) { return x + s; }},
      {"_minus_scalar", [](double x, double s) { return x - s; }},
      {"_rminus_scalar", [](double x, double s) { return s - x; }},
      {"_mul_scalar", [](double x, double s) { return x * s; }},
      {"_div_scalar", [](double x, double s) { return x / s; }},
      {"_rdiv_scalar", [](double x, double s) { return s / x; }},
      // Scalars inside the data's range [0.5, 2] where the result switches there.
      {"_maximum_scalar", [](double x, double s) { return std::max(x, s); }, 1.25},
      {"_minimum_scalar", [](double x, double s) { return std::min(x, s); }, 1.25},
      {"_power_scalar", [](double x, double s) { return std::pow(x, s); }},
      {"_rpower_scalar", [](double x, double s) { return std::pow(s, x); }},
      {"_hypot_scalar", [](double x, double s) { return std::hypot(x, s); }},
      {"_mod_scalar", [](double x, double s) { return x - s * std::floor(x / s); }, 0.75, -2.0},
      {"_rmod_scalar", [](double x, double s) { return s - x * std::floor(s / x); }},
      {"_greater_scalar", [](double x, double s) { return x > s ? 1.0 : 0.0; }, 1.25},
      {"_lesser_equal_scalar", [](double x, double s) { return x <= s ? 1.0 : 0.0; }, 1.25},
      {"_equal_scalar", [](double x, double s) { return x == s ? 1.0 : 0.0; }},
      // sigma = 1.25: quadratic where |x| < 0.64, linear beyond, on both sides of 0
      {"smooth_l1",
       [](double x, double s) {
         return std::fabs(x) < 1 / (s * s) ? 0.5 * s * s * x * x : std::fabs(x) - 0.5 / (s * s);
       },
       1.25, -2.0},
  };
  for (const ScalarCase& sc : cases) {
    SCOPED_TRACE(sc.op);
    // Whole packets of either type and a scalar tail.
    const OpCase c{
        sc.op, {{"scalar", std::to_string(sc.scalar)}}, {InputSpec(TShape{3, 23}, sc.lo, 2.0)}};
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      Values out(in[0].size());
      for (size_t i = 0; i < out.size(); ++i) out[i] = sc.reference(in[0][i], sc.scalar);
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
}

TEST(ScalarOpsTest, BadOrMissingScalar) {
  // As in MXNet 1.9.1, the scalar defaults to 1 and is_int is accepted.
  for (const std::map<std::string, std::string>& kwargs :
       std::vector<std::map<std::string, std::string>>{{}, {{"is_int", "False"}}}) {
    const OpCase c{"_plus_scalar", kwargs, {InputSpec::WithValues(TShape{2}, {0.5, 2})}};
    EXPECT_EQ(testing::ToValues(testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32))[0].blob()),
              (Values{1.5, 3}));
  }
  EXPECT_THAT(
      testing::ErrorOf([] { ParseAttrs(Op::Get("_mul_scalar"), {{"is_int", "maybe"}}); }),
      HasSubstr("is_int"));
  EXPECT_THAT(
      testing::ErrorOf([] { ParseAttrs(Op::Get("_mul_scalar"), {{"scalar", "two"}}); }),
      HasSubstr("Invalid Parameter format for scalar expect double but value='two'"));
  EXPECT_THAT(testing::ErrorOf(
                  [] { ParseAttrs(Op::Get("_mul_scalar"), {{"scalar", "2"}, {"scaler", "2"}}); }),
              HasSubstr("Cannot find argument 'scaler' of ScalarParam. Did you mean 'scalar'?"));
}

}  // namespace
}  // namespace ops
