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

TEST(BroadcastTest, ShapesFollowNumPyAndIncompatibleOnesAreNamed) {
  const OpCase c{"broadcast_add", {}, {InputSpec{TShape{8, 1, 6, 1}}, InputSpec{TShape{7, 1, 5}}}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{8, 7, 6, 5}));
  const OpCase bad{"broadcast_mul", {}, {InputSpec{TShape{2, 3}}, InputSpec{TShape{4}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(bad); }),
            "broadcast_mul: operands could not be broadcast together with shapes (2,3) (4,)");
}

}  // namespace
}  // namespace ops
