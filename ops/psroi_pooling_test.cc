// _contrib_PSROIPooling against MXNet 1.9.1's printed values (uneven bins, a region given
// backwards, two spatial scales) and its gradient, regions that pool nothing, numerical
// gradients, write modes, thread counts, and the shapes refused.
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"
#include "ops/testing/sample_values.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Ramp;
using testing::Values;

using Kwargs = std::map<std::string, std::string>;

const Values kRois = {0, 0, 0, 4, 5, 0, 1.6, 2.5, 3.5, 4.4, 0, 4, 4, 1, 1};

Values Pool(const Kwargs& kwargs, const Values& rois = kRois, int type = mshadow::kFloat32) {
  const CpuTensor x = testing::TensorOf(TShape{1, 8, 6, 5}, type, Ramp(240));
  const CpuTensor r =
      testing::TensorOf(TShape{static_cast<index_t>(rois.size() / 5), 5}, type, rois);
  return testing::ToValues(
      RunCpu(ParseAttrs(Op::Get("_contrib_PSROIPooling"), kwargs), {x.blob(), r.blob()})[0].blob());
}

// The plane 0..239 as (1, 8, 6, 5), output_dim 2, pooled_size 2; MXNet 1.9.1's outputs.
TEST(PSROIPoolingTest, AsMXNet) {
  for (const int type : {mshadow::kFloat32, mshadow::kFloat64}) {
    EXPECT_EQ(
        Pool({{"spatial_scale", "1"}, {"output_dim", "2"}, {"pooled_size", "2"}}, kRois, type),
        (Values{6,     38,    81,    113,   126, 158, 201, 233, 17.5, 48.5, 82.5, 113.5,
                137.5, 168.5, 202.5, 233.5, 24,  54,  84,  114, 144,  174,  204,  234}));
    EXPECT_EQ(Pool({{"spatial_scale", "0.5"},
                    {"output_dim", "2"},
                    {"pooled_size", "2"},
                    {"group_size", "2"}},
                   kRois, type),
              (Values{3,   34,    68,  99,    123, 154, 188, 219, 6,   36.5, 71,  101.5,
                      126, 156.5, 191, 221.5, 12,  42,  72,  102, 132, 162,  192, 222}));
  }
}

// The gradient of the first case above for an output gradient of ones: MXNet 1.9.1's nonzero
// elements (each bin's 1 spread over its area), zero elsewhere; the regions' gradient zero.
TEST(PSROIPoolingTest, GradientAsMXNet) {
  const std::vector<std::pair<int, double>> nonzero = {
      {0, 1. / 9},   {1, 1. / 9},   {2, 1. / 9},   {5, 1. / 9},     {6, 1. / 9},     {7, 1. / 9},
      {10, 1. / 9},  {11, 1. / 9},  {12, 1. / 9},  {17, 0.5},       {18, 0.5},       {24, 1},
      {32, 1. / 9},  {33, 1. / 9},  {34, 1. / 9},  {37, 1. / 9},    {38, 1. / 9},    {39, 1. / 9},
      {42, 1. / 9},  {43, 1. / 9},  {44, 1. / 9},  {48, 0.5},       {49, 0.5},       {54, 1},
      {75, 1. / 9},  {76, 1. / 9},  {77, 1. / 9},  {80, 1. / 9},    {81, 1. / 9},    {82, 11. / 18},
      {83, 0.5},     {84, 1},       {85, 1. / 9},  {86, 1. / 9},    {87, 1. / 9},    {107, 1. / 9},
      {108, 1. / 9}, {109, 1. / 9}, {112, 1. / 9}, {113, 11. / 18}, {114, 29. / 18}, {117, 1. / 9},
      {118, 1. / 9}, {119, 1. / 9}};
  const OpCase c{"_contrib_PSROIPooling",
                 {{"spatial_scale", "1"}, {"output_dim", "2"}, {"pooled_size", "2"}},
                 {InputSpec::WithValues(TShape{1, 8, 6, 5}, Ramp(240)),
                  InputSpec::WithValues(TShape{3, 5}, kRois)}};
  const std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat64);
  const std::vector<CpuTensor> grads = testing::Backward(c, inputs, {Values(24, 1.0)});
  Values want(240, 0.0);
  for (const auto& [at, value] : nonzero) want[at] = value;
  // Channels 4-7 repeat channels 0-3's pattern for output channel 1 (MXNet's elements 120-239).
  for (int k = 0; k < 120; ++k) want[120 + k] = want[k];
  testing::ExpectClose(want, testing::ToValues(grads[0].blob()), 1e-12, 1e-12, "data gradient");
  EXPECT_EQ(testing::ToValues(grads[1].blob()), Values(15, 0.0));
}

TEST(PSROIPoolingTest, RegionsOutsideTheBatchPoolNothing) {
  const Kwargs kwargs = {{"spatial_scale", "1"}, {"output_dim", "2"}, {"pooled_size", "2"}};
  for (const double image : {-1.0, 1.0, double{NAN}}) {
    EXPECT_EQ(Pool(kwargs, {image, 0, 0, 4, 5}), Values(8, 0.0)) << image;
  }
  EXPECT_EQ(Pool(kwargs, {0, 0, 0, double{INFINITY}, 5}), Values(8, 0.0));
  // Corners far outside the map clamp to its edges: finite values, no read outside it.
  for (double v : Pool(kwargs, {0, -1e30, -1e30, 1e30, 1e30})) EXPECT_TRUE(std::isfinite(v));
}

TEST(PSROIPoolingTest, NumericalGradientWriteModesAndThreads) {
  InputSpec rois = InputSpec::WithValues(
      TShape{4, 5}, {0, 0, 0, 8, 10, 1, 2.2, 1.4, 6, 5, 1, 5, 5, 5, 5, 0, 3, 0, 9, 12});
  rois.differentiable = false;  // its gradient is zero, not the bins' moves
  const OpCase c{"_contrib_PSROIPooling",
                 {{"spatial_scale", "0.7"}, {"output_dim", "3"}, {"pooled_size", "3"}},
                 {InputSpec(TShape{2, 27, 9, 7}), rois}};
  testing::CheckGradient(c);
  testing::CheckWriteModes(c);
  testing::CheckSameOnThreadCounts(c);
}

TEST(PSROIPoolingTest, ShapesRefused) {
  const Kwargs kwargs = {{"spatial_scale", "1"}, {"output_dim", "2"}, {"pooled_size", "3"}};
  const OpCase channels{
      "_contrib_PSROIPooling", kwargs, {InputSpec(TShape{1, 8, 6, 6}), InputSpec(TShape{1, 5})}};
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(channels); }),
              HasSubstr("with output_dim * group_size^2 = 2 * 3^2 = 18 channels"));
  const OpCase rois{
      "_contrib_PSROIPooling", kwargs, {InputSpec(TShape{1, 18, 6, 6}), InputSpec(TShape{2, 4})}};
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(rois); }),
              HasSubstr("rois has shape (2,4); valid: (regions, 5)"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("_contrib_PSROIPooling"),
                           {{"spatial_scale", "1"}, {"output_dim", "2"}, {"pooled_size", "0"}});
              }),
              HasSubstr("pooled_size"));
}

}  // namespace
}  // namespace ops
