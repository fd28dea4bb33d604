#include <cmath>
#include <functional>
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

struct BinaryCase {
  std::string op;
  std::function<double(double, double)> reference;
};

std::vector<BinaryCase> BinaryCases() {
  return {{"elemwise_add", [](double a, double b) { return a + b; }},
          {"elemwise_sub", [](double a, double b) { return a - b; }},
          {"elemwise_mul", [](double a, double b) { return a * b; }},
          {"elemwise_div", [](double a, double b) { return a / b; }}};
}

TEST(ElemwiseBinaryTest, ForwardWriteModesAndGradients) {
  for (const BinaryCase& b : BinaryCases()) {
    SCOPED_TRACE(b.op);
    const OpCase c{b.op, {}, {InputSpec{TShape{4, 5}}, InputSpec(TShape{4, 5}, 0.5, 2.0)}};
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      Values out(in[0].size());
      for (size_t i = 0; i < out.size(); ++i) out[i] = b.reference(in[0][i], in[1][i]);
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
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
};

TEST(ScalarOpsTest, ForwardWriteModesAndGradients) {
  const std::vector<ScalarCase> cases = {
      {"_plus_scalar", [](double x, double s) { return x + s; }},
      {"_minus_scalar", [](double x, double s) { return x - s; }},
      {"_rminus_scalar", [](double x, double s) { return s - x; }},
      {"_mul_scalar", [](double x, double s) { return x * s; }},
      {"_div_scalar", [](double x, double s) { return x / s; }},
      {"_rdiv_scalar", [](double x, double s) { return s / x; }},
  };
  for (const ScalarCase& sc : cases) {
    SCOPED_TRACE(sc.op);
    const OpCase c{sc.op, {{"scalar", "2.5"}}, {InputSpec(TShape{3, 4}, 0.5, 2.0)}};
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      Values out(in[0].size());
      for (size_t i = 0; i < out.size(); ++i) out[i] = sc.reference(in[0][i], 2.5);
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
}

TEST(ScalarOpsTest, BadOrMissingScalar) {
  EXPECT_THAT(testing::ErrorOf([] { ParseAttrs(Op::Get("_mul_scalar"), {}); }),
              HasSubstr("Invalid parameter of operator _mul_scalar: Required parameter scalar"));
  EXPECT_THAT(
      testing::ErrorOf([] { ParseAttrs(Op::Get("_mul_scalar"), {{"scalar", "two"}}); }),
      HasSubstr("Invalid Parameter format for scalar expect double but value='two'"));
  EXPECT_THAT(testing::ErrorOf(
                  [] { ParseAttrs(Op::Get("_mul_scalar"), {{"scalar", "2"}, {"scaler", "2"}}); }),
              HasSubstr("Cannot find argument 'scaler' of ScalarParam. Did you mean 'scalar'?"));
}

}  // namespace
}  // namespace ops
