// _contrib_count_sketch: sketches against the definition (2-d and 4-d data, repeated and
// unused positions), write modes, gradients in data and s against central differences, h's
// zero gradient, and positions outside the sketch refused by the forward and the backward.
// (MXNet 1.9.1 runs it on the GPU only: no CPU values of its to compare.)
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

InputSpec Positions(index_t in_dim, Values h) {
  InputSpec spec = InputSpec::WithValues(TShape{1, in_dim}, std::move(h));
  spec.differentiable = false;
  return spec;
}

// y[n, k] = sum over i with h[i] = k of s[i] x[n, i].
std::vector<Values> Sketch(const std::vector<Values>& in, int out_dim) {
  const size_t in_dim = in[1].size();
  Values y;
  for (size_t n = 0; n < in[0].size() / in_dim; ++n) {
    Values row(out_dim, 0.0);
    for (size_t i = 0; i < in_dim; ++i) {
      row[static_cast<int>(in[1][i])] += in[2][i] * in[0][n * in_dim + i];
    }
    y.insert(y.end(), row.begin(), row.end());
  }
  return {y};
}

TEST(CountSketchTest, SketchesAsDefinedWithGradients) {
  // Position 3 gathers three elements, position 4 none.
  const Values h = {3, 0, 3, 1, 2, 3, 0, 5};
  const Values s = {1, -1, -1, 1, 1, 0.5, -1, 1};
  for (const TShape& data : {TShape{4, 8}, TShape{2, 3, 2, 8}}) {
    SCOPED_TRACE(std::to_string(data.ndim()) + "-d");
    const OpCase c{"_contrib_count_sketch",
                   {{"out_dim", "6"}},
                   {InputSpec(data), Positions(8, h), InputSpec::WithValues(TShape{1, 8}, s)}};
    TShape sketched = data;
    sketched[data.ndim() - 1] = 6;
    EXPECT_EQ(testing::InferOutputShapes(c)[0], sketched);
    testing::CheckForward(c, [](const std::vector<Values>& in) { return Sketch(in, 6); });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
    const std::vector<CpuTensor> g = testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat64),
                                                       {Values(sketched.Size(), 1.0)});
    EXPECT_EQ(testing::ToValues(g[1].blob()), Values(8, 0.0));
  }
}

TEST(CountSketchTest, PositionsOutsideTheSketchAndBadShapesAreErrors) {
  const OpCase c{"_contrib_count_sketch",
                 {{"out_dim", "4"}},
                 {InputSpec(TShape{2, 3}), Positions(3, {0, 4, 1}), InputSpec(TShape{1, 3})}};
  const std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat32);
  const char* message =
      "_contrib_count_sketch: h[1] = 4 is not a position of the sketch; valid: 0 to 3";
  EXPECT_THAT(testing::ErrorOf([&] { testing::Forward(c, inputs); }), HasSubstr(message));
  EXPECT_THAT(testing::ErrorOf([&] { testing::Backward(c, inputs, {Values(8, 1.0)}); }),
              HasSubstr(message));
  const OpCase negative{
      "_contrib_count_sketch",
      {{"out_dim", "4"}},
      {InputSpec(TShape{2, 3}), Positions(3, {0, -1, 1}), InputSpec(TShape{1, 3})}};
  EXPECT_THAT(testing::ErrorOf([&] {
                testing::Forward(negative, testing::MakeInputs(negative, mshadow::kFloat32));
              }),
              HasSubstr("h[1] = -1 is not a position"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    {"_contrib_count_sketch",
                     {{"out_dim", "4"}},
                     {InputSpec(TShape{2, 3}), InputSpec(TShape{3}), InputSpec(TShape{1, 3})}});
              }),
              HasSubstr("_contrib_count_sketch: h (3,) must be (1,3), one per element of data "
                        "(2,3)'s vectors"));
}

}  // namespace
}  // namespace ops
