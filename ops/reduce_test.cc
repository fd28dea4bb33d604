#include <algorithm>
#include <cmath>
#include <utility>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using testing::InputSpec;
using testing::OpCase;
using testing::Values;

// The reductions, in double: each one's identity and how it folds a value in.
double Identity(const std::string& op) {
  if (op == "max") return -std::numeric_limits<double>::infinity();
  if (op == "min") return std::numeric_limits<double>::infinity();
  return op == "prod" || op == "nanprod" ? 1.0 : 0.0;
}

void Fold(const std::string& op, double* acc, double v) {
  if (op == "max") {
    *acc = std::max(*acc, v);
  } else if (op == "min") {
    *acc = std::min(*acc, v);
  } else if (op == "prod" || (op == "nanprod" && !std::isnan(v))) {
    *acc *= v;
  } else if (op != "nanprod" && !(op == "nansum" && std::isnan(v))) {
    *acc += v;
  }
}

const std::vector<std::string> kReductions = {"sum",  "mean",   "max",    "min",
                                              "prod", "nansum", "nanprod"};

// Inputs where products neither vanish nor overflow over thousands of elements.
InputSpec InputFor(const std::string& op, TShape shape) {
  return op == "prod" || op == "nanprod" ? InputSpec(std::move(shape), 0.95, 1.05)
                                         : InputSpec(std::move(shape));
}

// The float32 tolerance: a product's rounding errors add up along the reduced run.
double Float32Tolerance(const std::string& op) {
  return op == "prod" || op == "nanprod" ? 1e-4 : 1e-5;
}

// Reduces x of any shape over the flagged axes, in double.
Values ReduceAnyShape(const Values& x, const TShape& shape, const std::vector<bool>& reduced,
                      const std::string& op) {
  const int ndim = static_cast<int>(shape.ndim());
  index_t out_size = 1, count = 1;
  for (int d = 0; d < ndim; ++d) (reduced[d] ? count : out_size) *= shape[d];
  Values out(out_size, Identity(op));
  for (size_t i = 0; i < x.size(); ++i) {
    index_t rest = static_cast<index_t>(i), o = 0, stride = 1;
    for (int d = ndim - 1; d >= 0; --d) {
      const index_t coordinate = rest % shape[d];
      rest /= shape[d];
      if (!reduced[d]) {
        o += coordinate * stride;
        stride *= shape[d];
      }
    }
    Fold(op, &out[o], x[i]);
  }
  if (op == "mean") {
    for (double& v : out) v /= static_cast<double>(count);
  }
  return out;
}

TEST(ReduceTest, EveryReducerOverManyAxisSets) {
  struct AxisCase {
    std::map<std::string, std::string> kwargs;
    std::vector<bool> reduced;
    TShape out_shape;
  };
  const std::vector<AxisCase> axis_cases = {
      {{}, {true, true, true}, TShape{1}},
      {{{"axis", "1"}}, {false, true, false}, TShape{2, 4}},
      {{{"axis", "(0,2)"}}, {true, false, true}, TShape{3}},
      {{{"axis", "(-1,)"}, {"keepdims", "true"}}, {false, false, true}, TShape{2, 3, 1}},
      {{{"axis", "1"}, {"exclude", "true"}}, {true, false, true}, TShape{3}},
      {{{"axis", "None"}, {"keepdims", "1"}}, {true, true, true}, TShape{1, 1, 1}},
  };
  for (const std::string& op : kReductions) {
    for (const AxisCase& a : axis_cases) {
      SCOPED_TRACE(op);
      const OpCase c{op, a.kwargs, {InputFor(op, TShape{2, 3, 4})}};
      EXPECT_EQ(testing::InferOutputShapes(c)[0], a.out_shape);
      testing::CheckForward(c, [&](const std::vector<Values>& in) {
        return std::vector<Values>{ReduceAnyShape(in[0], TShape{2, 3, 4}, a.reduced, op)};
      }, 1e-13, Float32Tolerance(op));
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
}

// Every subset of the axes of a 4-d shape with a unit axis, and shapes large enough for the
// threaded row, column, several-slice and blocked reduce-all paths.
TEST(ReduceTest, AnyAxisSetAndLargeShapesOnThreads) {
  mshadow::SetNumThreads(2);
  std::vector<std::pair<TShape, std::vector<bool>>> cases;
  for (int mask = 0; mask < 16; ++mask) {
    cases.push_back({TShape{3, 1, 20, 37}, {(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0,
                                            (mask & 8) != 0}});
  }
  cases.push_back({TShape{300, 500}, {false, true}});
  cases.push_back({TShape{500, 300}, {true, false}});
  cases.push_back({TShape{4, 300, 90}, {false, true, false}});
  cases.push_back({TShape{70001}, {true}});
  for (const std::string& op : kReductions) {
    for (const auto& [shape, reduced] : cases) {
      std::string axes = "(";
      for (size_t d = 0; d < reduced.size(); ++d) {
        if (reduced[d]) axes += std::to_string(d) + ",";
      }
      axes += ")";
      if (axes == "()") continue;  // reduces every axis: EmptyAxisTupleReducesEverything
      SCOPED_TRACE(op + " axes " + axes);
      const OpCase c{op, {{"axis", axes}}, {InputFor(op, shape)}};
      testing::CheckForward(c, [&](const std::vector<Values>& in) {
        return std::vector<Values>{ReduceAnyShape(in[0], shape, reduced, op)};
      }, 1e-12, Float32Tolerance(op));
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
  mshadow::SetNumThreads(0);
}

// axis=() reduces every axis, as None does, with or without exclude (MXNet 1.9.1).
TEST(ReduceTest, EmptyAxisTupleReducesEverything) {
  for (const std::string& op : kReductions) {
    for (const std::string exclude : {"False", "True"}) {
      for (const std::string keepdims : {"False", "True"}) {
        SCOPED_TRACE(op + " exclude=" + exclude + " keepdims=" + keepdims);
        const OpCase c{op,
                       {{"axis", "()"}, {"exclude", exclude}, {"keepdims", keepdims}},
                       {InputFor(op, TShape{2, 3, 4})}};
        EXPECT_EQ(testing::InferOutputShapes(c)[0],
                  keepdims == "True" ? (TShape{1, 1, 1}) : (TShape{1}));
        testing::CheckForward(c, [&](const std::vector<Values>& in) {
          return std::vector<Values>{
              ReduceAnyShape(in[0], TShape{2, 3, 4}, {true, true, true}, op)};
        }, 1e-12, Float32Tolerance(op));
        testing::CheckGradient(c);
      }
    }
  }
}

TEST(ReduceTest, MaxPropagatesNaN) {
  InputSpec x{TShape{3}};
  x.values = {1, std::numeric_limits<double>::quiet_NaN(), 3};
  const OpCase c{"max", {}, {x}};
  EXPECT_TRUE(std::isnan(testing::ToValues(
      testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32))[0].blob())[0]));
}

// nansum and nanprod reduce the numbers alone (an all-NaN row gives the identity) and send
// no gradient to a NaN (MXNet 1.9.1).
TEST(ReduceTest, NanReductionsSkipNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const InputSpec x = InputSpec::WithValues(TShape{2, 3}, {2, nan, nan, nan, 4, 5});
  const std::map<std::string, std::pair<Values, Values>> expected = {
      {"nansum", {{2, 9}, {1, 0, 0, 0, 1, 1}}},
      {"nanprod", {{2, 20}, {1, 0, 0, 0, 5, 4}}},
  };
  const InputSpec all_nan = InputSpec::WithValues(TShape{1, 2}, {nan, nan});
  for (const auto& [op, values] : expected) {
    SCOPED_TRACE(op);
    for (const int dtype : {mshadow::kFloat32, mshadow::kFloat64}) {
      const OpCase c{op, {{"axis", "1"}}, {x}};
      const auto inputs = testing::MakeInputs(c, dtype);
      EXPECT_EQ(testing::ToValues(testing::Forward(c, inputs)[0].blob()), values.first);
      EXPECT_EQ(testing::ToValues(testing::Backward(c, inputs, {{1, 1}})[0].blob()),
                values.second);
      const OpCase empty{op, {{"axis", "1"}}, {all_nan}};
      EXPECT_EQ(testing::ToValues(
                    testing::Forward(empty, testing::MakeInputs(empty, dtype))[0].blob()),
                Values{op == "nansum" ? 0.0 : 1.0});
    }
  }
}

// The same on rows of whole packets and a tail, over either axis: every third element NaN.
TEST(ReduceTest, NanReductionsSkipNaNInLongRows) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int rows = 3, cols = 37;
  Values x;
  for (int i = 0; i < rows * cols; ++i) x.push_back(i % 3 == 1 ? nan : 1 + (i % 5) * 0.25);
  for (const std::string op : {"nansum", "nanprod"}) {
    for (const int axis : {0, 1}) {
      SCOPED_TRACE(op + " axis " + std::to_string(axis));
      Values expected(axis == 1 ? rows : cols, op == "nansum" ? 0.0 : 1.0);
      for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
          const double v = x[r * cols + c];
          double& e = expected[axis == 1 ? r : c];
          if (!std::isnan(v)) e = op == "nansum" ? e + v : e * v;
        }
      }
      const OpCase c{
          op, {{"axis", std::to_string(axis)}}, {InputSpec::WithValues(TShape{rows, cols}, x)}};
      for (const int dtype : {mshadow::kFloat32, mshadow::kFloat64}) {
        testing::ExpectClose(
            expected,
            testing::ToValues(testing::Forward(c, testing::MakeInputs(c, dtype))[0].blob()), 1e-6,
            0, "forward");
      }
    }
  }
}

// prod's gradient is g * prod / x, as MXNet's: NaN where x is 0 (0 / 0), not the product of
// the other elements.
TEST(ReduceTest, ProdGradientDividesByTheInput) {
  const OpCase c{"prod", {}, {InputSpec::WithValues(TShape{3}, {2, 3, 4})}};
  const auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
  EXPECT_EQ(testing::ToValues(testing::Forward(c, inputs)[0].blob()), Values{24});
  EXPECT_EQ(testing::ToValues(testing::Backward(c, inputs, {{0.5}})[0].blob()),
            (Values{6, 4, 3}));
  const OpCase with_zero{"prod", {}, {InputSpec::WithValues(TShape{2}, {0, 3})}};
  const Values grad = testing::ToValues(
      testing::Backward(with_zero, testing::MakeInputs(with_zero, mshadow::kFloat64),
                        {{1}})[0]
          .blob());
  EXPECT_TRUE(std::isnan(grad[0]));
  EXPECT_EQ(grad[1], 0);
}

// norm: the L1 or L2 norm over the same axis sets, against sum of |x| or sqrt of sum of x^2.
TEST(ReduceTest, NormOrdersOverAxisSets) {
  const TShape shape{3, 1, 20, 37};
  const std::vector<std::pair<std::string, std::vector<bool>>> axis_sets = {
      {"None", {true, true, true, true}},   {"()", {true, true, true, true}},
      {"(0,)", {true, false, false, false}}, {"(1,)", {false, true, false, false}},
      {"(2,)", {false, false, true, false}}, {"(-1,)", {false, false, false, true}},
      {"(0,2)", {true, false, true, false}}, {"(1,3)", {false, true, false, true}},
  };
  for (const int ord : {1, 2}) {
    for (const auto& [axes, reduced] : axis_sets) {
      for (const char* keepdims : {"False", "True"}) {
        SCOPED_TRACE("ord=" + std::to_string(ord) + " axis=" + axes + " keepdims=" + keepdims);
        const OpCase c{"norm",
                       {{"ord", std::to_string(ord)}, {"axis", axes}, {"keepdims", keepdims}},
                       {InputSpec(shape)}};
        const OpCase sum{"sum", {{"axis", axes}, {"keepdims", keepdims}}, {InputSpec(shape)}};
        EXPECT_EQ(testing::InferOutputShapes(c)[0], testing::InferOutputShapes(sum)[0]);
        testing::CheckForward(c, [&](const std::vector<Values>& in) {
          Values mapped = in[0];
          for (double& v : mapped) v = ord == 1 ? std::abs(v) : v * v;
          Values out = ReduceAnyShape(mapped, shape, reduced, "sum");
          if (ord == 2) {
            for (double& v : out) v = std::sqrt(v);
          }
          return std::vector<Values>{out};
        }, 1e-12, 1e-5);
        testing::CheckWriteModes(c);
        testing::CheckGradient(c);
      }
    }
  }
}

// The L1 gradient is sign(x) (0 at 0); the L2 gradient x / norm, 0 where the norm is 0
// (MXNet 1.9.1 gives NaN there: 0 / 0).
TEST(ReduceTest, NormGradientAtZero) {
  const OpCase l1{"norm", {{"ord", "1"}}, {InputSpec::WithValues(TShape{3}, {-2, 0, 3})}};
  EXPECT_EQ(testing::ToValues(
                testing::Backward(l1, testing::MakeInputs(l1, mshadow::kFloat64), {{2}})[0]
                    .blob()),
            (Values{-2, 0, 2}));
  const OpCase l2{"norm", {{"axis", "1"}},
                  {InputSpec::WithValues(TShape{2, 2}, {0, 0, 3, -4})}};
  const auto inputs = testing::MakeInputs(l2, mshadow::kFloat64);
  EXPECT_EQ(testing::ToValues(testing::Forward(l2, inputs)[0].blob()), (Values{0, 5}));
  EXPECT_EQ(testing::ToValues(testing::Backward(l2, inputs, {{1, 10}})[0].blob()),
            (Values{0, 0, 6, -8}));
}

TEST(ReduceTest, NormOrderIsOneOrTwo) {
  for (const char* ord : {"0", "3", "-1"}) {
    EXPECT_THAT(testing::ErrorOf([&] { ParseAttrs(Op::Get("norm"), {{"ord", ord}}); }),
                ::testing::HasSubstr("ord"))
        << ord;
  }
  EXPECT_THAT(testing::ErrorOf([] { ParseAttrs(Op::Get("norm"), {{"exclude", "1"}}); }),
              ::testing::HasSubstr("exclude"));
}

TEST(ReduceTest, BadAxes) {
  const OpCase out_of_range{"sum", {{"axis", "(3,)"}}, {InputSpec{TShape{2, 3}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(out_of_range); }),
            "sum: axis 3 is out of range for a 2-d input; valid: [-2, 2)");
  const OpCase repeated{"sum", {{"axis", "(0,-2)"}}, {InputSpec{TShape{2, 3}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(repeated); }),
            "sum: axis -2 appears twice in (0,-2)");
  // 64-bit axes are checked before any narrowing (2^63 - 1 once truncated to -1: the last axis).
  for (const char* axis : {"(9223372036854775807,)", "(-9223372036854775807,)", "(4294967295,)"}) {
    const OpCase huge{"sum", {{"axis", axis}}, {InputSpec{TShape{2, 3}}}};
    EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(huge); }),
                ::testing::HasSubstr("is out of range for a 2-d input; valid: [-2, 2)"))
        << axis;
  }
  EXPECT_THAT(testing::ErrorOf([] { ParseAttrs(Op::Get("sum"), {{"axis", "(0,x)"}}); }),
              ::testing::HasSubstr("Invalid Parameter format for axis expect Shape(tuple) or "
                                   "None but value='(0,x)'"));
}

}  // namespace
}  // namespace ops
