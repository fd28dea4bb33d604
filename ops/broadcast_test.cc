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

using mshadow::index_t;

// NumPy broadcasting, written out: the element of `v` (of `shape`) that output element
// `flat` (of `out_shape`) reads.
double At(const Values& v, const TShape& shape, const TShape& out_shape, index_t flat) {
  index_t offset = 0, stride = 1;
  index_t rest = flat;
  for (index_t d = out_shape.ndim() - 1; d >= 0; --d) {
    const index_t coordinate = rest % out_shape[d];
    rest /= out_shape[d];
    const index_t s = d - (out_shape.ndim() - shape.ndim());
    if (s < 0) continue;
    offset += (shape[s] == 1 ? 0 : coordinate) * stride;
    stride *= shape[s];
  }
  return v[offset];
}

TEST(BroadcastTest, ForwardWriteModesAndGradientsOverManyShapePairs) {
  const std::vector<std::pair<TShape, TShape>> pairs = {
      {TShape{3, 4}, TShape{3, 4}}, {TShape{3, 4}, TShape{4}},       {TShape{3, 1}, TShape{1, 4}},
      {TShape{2, 3, 4}, TShape{3, 1}}, {TShape{1}, TShape{2, 2, 3}}, {TShape{2, 1, 3}, TShape{4, 1}}};
  const std::vector<std::pair<std::string, std::function<double(double, double)>>> ops = {
      {"broadcast_add", [](double a, double b) { return a + b; }},
      {"broadcast_sub", [](double a, double b) { return a - b; }},
      {"broadcast_mul", [](double a, double b) { return a * b; }},
      {"broadcast_div", [](double a, double b) { return a / b; }}};
  for (const auto& [name, f] : ops) {
    for (const auto& [lhs, rhs] : pairs) {
      SCOPED_TRACE(name);
      const OpCase c{name, {}, {InputSpec{lhs}, InputSpec(rhs, 0.5, 2.0)}};
      const TShape out_shape = testing::InferOutputShapes(c)[0];
      testing::CheckForward(c, [&](const std::vector<Values>& in) {
        Values out(static_cast<size_t>(out_shape.Size()));
        for (index_t i = 0; i < out_shape.Size(); ++i) {
          out[i] = f(At(in[0], lhs, out_shape, i), At(in[1], rhs, out_shape, i));
        }
        return std::vector<Values>{out};
      });
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
}

// Comparisons and logical operations give 1 or 0 in the operands' type, and no gradient.
TEST(BroadcastTest, ComparisonsAndLogicalOperations) {
  const std::vector<double> a = {-1, 0, 2, 2, 0, 3}, b = {0, 2};  // (3,2) against (2,)
  const std::vector<std::pair<std::string, Values>> expected = {
      {"broadcast_equal", {0, 0, 0, 1, 1, 0}},       {"broadcast_not_equal", {1, 1, 1, 0, 0, 1}},
      {"broadcast_greater", {0, 0, 1, 0, 0, 1}},     {"broadcast_greater_equal", {0, 0, 1, 1, 1, 1}},
      {"broadcast_lesser", {1, 1, 0, 0, 0, 0}},      {"broadcast_lesser_equal", {1, 1, 0, 1, 1, 0}},
      {"broadcast_logical_and", {0, 0, 0, 1, 0, 1}}, {"broadcast_logical_or", {1, 1, 1, 1, 0, 1}},
      {"broadcast_logical_xor", {1, 1, 1, 0, 0, 0}}};
  for (const auto& [name, values] : expected) {
    SCOPED_TRACE(name);
    const OpCase c{name, {}, {InputSpec::WithValues(TShape{3, 2}, a), InputSpec::WithValues(TShape{2}, b)}};
    for (int type : {mshadow::kFloat32, mshadow::kFloat64}) {
      const std::vector<CpuTensor> out = testing::Forward(c, testing::MakeInputs(c, type));
      EXPECT_EQ(testing::ToValues(out[0].blob()), values);
    }
    // Zero, as are central differences of a step away from its edges (random operands).
    testing::CheckGradient(OpCase{name, {}, {InputSpec(TShape{3, 2}), InputSpec(TShape{2})}});
  }
}

// Ties send the gradient of maximum and minimum to lhs, as MXNet 1.9.1 does.
TEST(BroadcastTest, MaximumAndMinimumTiesGoToLhs) {
  for (const std::string name : {"broadcast_maximum", "broadcast_minimum"}) {
    const OpCase c{name, {}, {InputSpec::WithValues(TShape{2}, {1, 2}), InputSpec::WithValues(TShape{1}, {2})}};
    const std::vector<CpuTensor> grads =
        testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat64), {{1.0, 1.0}});
    EXPECT_EQ(testing::ToValues(grads[0].blob()), (name == "broadcast_maximum" ? Values{0, 1} : Values{1, 1}));
    EXPECT_EQ(testing::ToValues(grads[1].blob()), (name == "broadcast_maximum" ? Values{1} : Values{0}));
  }
}

TEST(BroadcastTest, ShapesFollowNumPyAndIncompatibleOnesAreNamed) {
  const OpCase c{"broadcast_add", {}, {InputSpec{TShape{8, 1, 6, 1}}, InputSpec{TShape{7, 1, 5}}}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{8, 7, 6, 5}));
  const OpCase bad{"broadcast_mul", {}, {InputSpec{TShape{2, 3}}, InputSpec{TShape{4}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(bad); }),
            "broadcast_mul: operands could not be broadcast together with shapes (2,3) (4,)");
}

}  // namespace
}  // namespace ops
