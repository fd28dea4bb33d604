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

// Reduces a (2, 3, 4) array over the axes flagged in `reduced`, written out.
Values ReduceReference(const Values& x, const std::vector<bool>& reduced, const std::string& op) {
  const index_t dims[3] = {2, 3, 4};
  index_t out_dims[3], count = 1;
  for (int d = 0; d < 3; ++d) {
    out_dims[d] = reduced[d] ? 1 : dims[d];
    if (reduced[d]) count *= dims[d];
  }
  const double init = op == "max"   ? -std::numeric_limits<double>::infinity()
                      : op == "min" ? std::numeric_limits<double>::infinity()
                                    : 0.0;
  Values out(out_dims[0] * out_dims[1] * out_dims[2], init);
  for (index_t i = 0; i < 2; ++i) {
    for (index_t j = 0; j < 3; ++j) {
      for (index_t k = 0; k < 4; ++k) {
        const index_t o = ((reduced[0] ? 0 : i) * out_dims[1] + (reduced[1] ? 0 : j)) * out_dims[2] +
                          (reduced[2] ? 0 : k);
        const double v = x[(i * 3 + j) * 4 + k];
        if (op == "max") {
          out[o] = std::max(out[o], v);
        } else if (op == "min") {
          out[o] = std::min(out[o], v);
        } else {
          out[o] += v;
        }
      }
    }
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
  for (const std::string op : {"sum", "mean", "max", "min"}) {
    for (const AxisCase& a : axis_cases) {
      SCOPED_TRACE(op);
      const OpCase c{op, a.kwargs, {InputSpec{TShape{2, 3, 4}}}};
      EXPECT_EQ(testing::InferOutputShapes(c)[0], a.out_shape);
      testing::CheckForward(c, [&](const std::vector<Values>& in) {
        return std::vector<Values>{ReduceReference(in[0], a.reduced, op)};
      }, 1e-13, 1e-5);
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
}

// Reduces x of any shape over the flagged axes, in double.
Values ReduceAnyShape(const Values& x, const TShape& shape, const std::vector<bool>& reduced,
                      const std::string& op) {
  const int ndim = static_cast<int>(shape.ndim());
  index_t out_size = 1, count = 1;
  for (int d = 0; d < ndim; ++d) (reduced[d] ? count : out_size) *= shape[d];
  const double init = op == "max"   ? -std::numeric_limits<double>::infinity()
                      : op == "min" ? std::numeric_limits<double>::infinity()
                                    : 0.0;
  Values out(out_size, init);
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
    if (op == "max") {
      out[o] = std::max(out[o], x[i]);
    } else if (op == "min") {
      out[o] = std::min(out[o], x[i]);
    } else {
      out[o] += x[i];
    }
  }
  if (op == "mean") {
    for (double& v : out) v /= static_cast<double>(count);
  }
  return out;
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
  for (const std::string op : {"sum", "mean", "max", "min"}) {
    for (const auto& [shape, reduced] : cases) {
      std::string axes = "(";
      for (size_t d = 0; d < reduced.size(); ++d) {
        if (reduced[d]) axes += std::to_string(d) + ",";
      }
      axes += ")";
      if (axes == "()") continue;  // reduces every axis: EmptyAxisTupleReducesEverything
      SCOPED_TRACE(op + " axes " + axes);
      const OpCase c{op, {{"axis", axes}}, {InputSpec{shape}}};
      testing::CheckForward(c, [&](const std::vector<Values>& in) {
        return std::vector<Values>{ReduceAnyShape(in[0], shape, reduced, op)};
      }, 1e-12, 1e-5);
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
  mshadow::SetNumThreads(0);
}

// axis=() reduces every axis, as None does, with or without exclude (MXNet 1.9.1).
TEST(ReduceTest, EmptyAxisTupleReducesEverything) {
  for (const std::string op : {"sum", "mean", "max", "min"}) {
    for (const std::string exclude : {"False", "True"}) {
      for (const std::string keepdims : {"False", "True"}) {
        SCOPED_TRACE(op + " exclude=" + exclude + " keepdims=" + keepdims);
        const OpCase c{op,
                       {{"axis", "()"}, {"exclude", exclude}, {"keepdims", keepdims}},
                       {InputSpec{TShape{2, 3, 4}}}};
        EXPECT_EQ(testing::InferOutputShapes(c)[0],
                  keepdims == "True" ? (TShape{1, 1, 1}) : (TShape{1}));
        testing::CheckForward(c, [&](const std::vector<Values>& in) {
          return std::vector<Values>{
              ReduceAnyShape(in[0], TShape{2, 3, 4}, {true, true, true}, op)};
        }, 1e-12, 1e-5);
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
