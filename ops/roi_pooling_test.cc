// ROIPooling against MXNet 1.9.1's printed values (its documentation's example, uneven bins,
// a region given backwards) and gradient, regions that pool nothing, write modes, numerical
// gradients, thread counts, and the shapes and parameters refused.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/backward.h"
#include "ops/testing/op_test_util.h"
#include "ops/testing/sample_values.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Ramp;
using testing::Values;

std::map<std::string, std::string> Params(const std::string& pooled, const std::string& scale) {
  return {{"pooled_size", pooled}, {"spatial_scale", scale}};
}

// MXNet's documentation: the 8x6 plane 0..47, region [0, 0, 0, 4, 4].
TEST(ROIPoolingTest, MXNetDocumentationExample) {
  for (const int type : {mshadow::kFloat32, mshadow::kFloat64}) {
    const CpuTensor x = testing::TensorOf(TShape{1, 1, 8, 6}, type, Ramp(48));
    const CpuTensor rois = testing::TensorOf(TShape{1, 5}, type, {0, 0, 0, 4, 4});
    const auto run = [&](const std::string& scale) {
      return testing::ToValues(RunCpu(ParseAttrs(Op::Get("ROIPooling"), Params("(2,2)", scale)),
                                      {x.blob(), rois.blob()})[0]
                                   .blob());
    };
    EXPECT_EQ(run("1.0"), (Values{14, 16, 26, 28}));
    EXPECT_EQ(run("0.7"), (Values{7, 9, 19, 21}));
  }
}

// Uneven bins (a 3-wide, 5-high region in 2x3 bins), corners rounded half away from zero, a
// region given backwards (one position): MXNet 1.9.1's forward and its gradient for an output
// gradient of ones.
TEST(ROIPoolingTest, UnevenBinsAndTheGradientAsMXNet) {
  const CpuTensor x = testing::TensorOf(TShape{1, 1, 8, 6}, mshadow::kFloat32, Ramp(48));
  const CpuTensor rois = testing::TensorOf(TShape{3, 5}, mshadow::kFloat32,
                                           {0, 0, 0, 4, 4, 0, 1.6, 2.5, 3.5, 7.4, 0, 5, 5, 2, 2});
  const NodeAttrs attrs = ParseAttrs(Op::Get("ROIPooling"), Params("(2,3)", "1"));
  const std::vector<CpuTensor> out = RunCpu(attrs, {x.blob(), rois.blob()});
  EXPECT_EQ(testing::ToValues(out[0].blob()),
            (Values{13, 15, 16, 25, 27, 28, 32, 33, 34, 44, 45, 46, 35, 35, 35, 35, 35, 35}));
  const CpuTensor ones = testing::TensorOf(TShape{3, 1, 2, 3}, mshadow::kFloat32, Values(18, 1));
  const CpuTensor no_grad(TShape{3, 1, 2, 3}, mshadow::kInt64);
  CpuTensor dx(TShape{1, 1, 8, 6}, mshadow::kFloat32), drois(TShape{3, 5}, mshadow::kFloat32);
  const NodeAttrs backward = BackwardAttrs(attrs);
  Invoke<mshadow::cpu>(backward, OpContext(),
                       BackwardInputs(attrs, {ones.blob(), no_grad.blob()}, {x.blob(), rois.blob()},
                                      {out[0].blob(), out[1].blob()}),
                       {kWriteTo, kWriteTo}, {dx.blob(), drois.blob()});
  Values expected(48, 0);
  for (const int at : {13, 15, 16, 25, 27, 28, 32, 33, 34, 44, 45, 46}) expected[at] = 1;
  expected[35] = 6;
  EXPECT_EQ(testing::ToValues(dx.blob()), expected);
  EXPECT_EQ(testing::ToValues(drois.blob()), Values(15, 0));
}

// Regions whose batch index is not an image (negative padding, past the batch, NaN) or whose
// corners are not finite pool nothing and get no gradient; the rest are unaffected.
TEST(ROIPoolingTest, RegionsOutsideTheBatchPoolNothing) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const CpuTensor x = testing::TensorOf(TShape{2, 1, 8, 6}, mshadow::kFloat64, Ramp(96));
  const CpuTensor rois = testing::TensorOf(TShape{6, 5}, mshadow::kFloat64,
                                           {-1, 0,   0, 4, 4, 2, 0, 0, 4, 4, nan, 0,  0,  4,  4,
                                            1,  inf, 0, 4, 4, 1, 0, 0, 4, 4, 1,   -9, -9, 99, 99});
  const NodeAttrs attrs = ParseAttrs(Op::Get("ROIPooling"), Params("(2,2)", "1"));
  const std::vector<CpuTensor> out = RunCpu(attrs, {x.blob(), rois.blob()});
  const Values y = testing::ToValues(out[0].blob()), at = testing::ToValues(out[1].blob());
  for (int r = 0; r < 4; ++r) {
    for (int b = 0; b < 4; ++b) {
      EXPECT_EQ(y[r * 4 + b], 0) << r;
      EXPECT_EQ(at[r * 4 + b], -1) << r;
    }
  }
  EXPECT_EQ(Values(y.begin() + 16, y.begin() + 20), (Values{62, 64, 74, 76}));
  // A region past every edge: its first bin covers the plane, the others lie past it (as
  // MXNet 1.9.1: 95, 0, 0, 0).
  EXPECT_EQ(Values(y.begin() + 20, y.end()), (Values{95, 0, 0, 0}));
  InputSpec some_outside =
      InputSpec::WithValues(TShape{3, 5}, {-1, 0, 0, 4, 4, 1, 0, 0, 4, 4, 5, 1, 1, 3, 3});
  some_outside.differentiable = false;
  testing::CheckGradient(
      OpCase{"ROIPooling", Params("(2,2)", "1"), {InputSpec(TShape{2, 1, 8, 6}), some_outside}});
}

OpCase RandomCase() {
  InputSpec rois(TShape{7, 5}, 0, 8);
  rois.integer = true;
  rois.differentiable = false;
  return OpCase{"ROIPooling", Params("(3,2)", "0.7"), {InputSpec(TShape{8, 3, 9, 7}, -2, 2), rois}};
}

TEST(ROIPoolingTest, WriteModesGradientsAndThreads) {
  const OpCase c = RandomCase();
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
  testing::CheckSameOnThreadCounts(c);
}

TEST(ROIPoolingTest, BadShapesAndParametersAreNamed) {
  const auto shape_error = [](TShape data, TShape rois) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes(
          OpCase{"ROIPooling", Params("(2,2)", "1"), {InputSpec(data), InputSpec(rois)}});
    });
  };
  EXPECT_THAT(shape_error(TShape{1, 1, 8, 6}, TShape{3, 4}), HasSubstr("(3,4)"));
  EXPECT_THAT(shape_error(TShape{1, 8, 6}, TShape{3, 5}), HasSubstr("(1,8,6)"));
  EXPECT_EQ(testing::InferOutputShapes(
                OpCase{"ROIPooling",
                       Params("(3,2)", "0.5"),
                       {InputSpec(TShape{2, 4, 8, 6}), InputSpec(TShape{7, 5})}})[0],
            (TShape{7, 4, 3, 2}));
  for (const auto& [pooled, scale] : std::vector<std::pair<std::string, std::string>>{
           {"(0,3)", "1"}, {"(2,)", "1"}, {"(2,2)", "2"}, {"(2,2)", "-0.5"}}) {
    EXPECT_THAT(testing::ErrorOf([&] { ParseAttrs(Op::Get("ROIPooling"), Params(pooled, scale)); }),
                ::testing::AnyOf(HasSubstr(pooled), HasSubstr(scale)))
        << pooled << " " << scale;
  }
}

}  // namespace
}  // namespace ops
