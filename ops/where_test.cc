// where: elementwise and per-row conditions (MXNet 1.9.1's outputs on these inputs),
// gradients, shapes.
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

InputSpec Condition(TShape shape, Values values) {
  InputSpec spec = InputSpec::WithValues(std::move(shape), std::move(values));
  spec.differentiable = false;
  return spec;
}

TEST(WhereTest, ElementwiseAndPerRowConditions) {
  const InputSpec x = InputSpec::WithValues(TShape{2, 3}, {1, 2, 3, 4, 5, 6});
  const InputSpec y = InputSpec::WithValues(TShape{2, 3}, {-1, -2, -3, -4, -5, -6});
  const OpCase same{"where", {}, {Condition(TShape{2, 3}, {1, 0, 0.5, 0, 0, -2}), x, y}};
  const OpCase rows{"where", {}, {Condition(TShape{2}, {1, 0}), x, y}};
  for (const auto& [c, expected] : std::vector<std::pair<OpCase, Values>>{
           {same, {1, -2, 3, -4, -5, 6}}, {rows, {1, 2, 3, -4, -5, -6}}}) {
    testing::CheckForward(c, [&](const std::vector<Values>&) { return std::vector<Values>{expected}; });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
    // The gradient goes to x where the condition holds and to y elsewhere.
    const std::vector<CpuTensor> grads =
        testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat64), {Values(6, 1.0)});
    Values to_x, to_y;
    for (double v : expected) {
      to_x.push_back(v > 0 ? 1 : 0);
      to_y.push_back(v > 0 ? 0 : 1);
    }
    EXPECT_EQ(testing::ToValues(grads[1].blob()), to_x);
    EXPECT_EQ(testing::ToValues(grads[2].blob()), to_y);
  }
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"where", {}, {InputSpec(TShape{3}), InputSpec(TShape{2, 3}), InputSpec(TShape{2, 3})}});
              }),
              HasSubstr("the condition (3,) must be shaped like x (2,3) or be (2,), one value per row"));
}

// No rows: a per-row condition of no values, nothing to compute (found by the invocation
// fuzzer: the elements per condition value were 0 / 0).
TEST(WhereTest, NoRows) {
  const OpCase c{
      "where", {}, {Condition(TShape{0}, {}), InputSpec(TShape{0, 3}), InputSpec(TShape{0, 3})}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{0, 3}));
  const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat32);
  EXPECT_EQ(testing::Forward(c, in)[0].shape(), (TShape{0, 3}));
  const std::vector<CpuTensor> grads = testing::Backward(c, in, {Values()});
  EXPECT_EQ(grads[1].shape(), (TShape{0, 3}));
}

}  // namespace
}  // namespace ops
