// _contrib_ROIAlign: MXNet 1.9.1's printed values (default, aligned and position-sensitive
// sampling; a region with a negative batch index), write modes, gradients against central
// differences, regions that are ignored, and the shapes and parameters it refuses.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/roi_align-inl.h"
#include "ops/testing/op_test_util.h"
#include "ops/testing/sample_values.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Ramp;
using testing::Values;

const Values kRois = {0, 0.5, 1.0, 7.0, 8.5, 1, 2, 2, 5, 4, -1, 0, 0, 4, 4, 1, 3.3, 0.2, 4.1, 3.9};

Values AlignOf(const std::map<std::string, std::string>& extra, const Values& rois = kRois) {
  std::map<std::string, std::string> kw{{"pooled_size", "(2,2)"}, {"spatial_scale", "0.5"}};
  for (const auto& [k, v] : extra) kw[k] = v;
  const int regions = static_cast<int>(rois.size() / 5);
  const OpCase c{"_contrib_ROIAlign",
                 kw,
                 {InputSpec::WithValues(TShape{2, 2, 5, 6}, Ramp(120)),
                  InputSpec::WithValues(TShape{regions, 5}, rois)}};
  return testing::ToValues(
      testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat64))[0].blob());
}

// Region 2 has a negative batch index. MXNet's CPU kernel zeroes output element 2 (the
// region's number as a flat index) and leaves the region's own outputs unset (garbage with
// sample_ratio=2); ours zero the region's outputs. Element 2 below is MXNet's value without
// region 2.
TEST(ROIAlignTest, MxnetsValues) {
  const auto expect_near = [](const Values& actual, const Values& expected) {
    testing::ExpectClose(expected, actual, 1e-6, 1e-6, "");
  };
  expect_near(AlignOf({}), {9.6875, 11.3125, 20.9375, 22.5625, 39.6875, 41.3125, 50.9375, 52.5625,
                            68.875, 69.625,  71.875,  72.625,  98.875,  99.625,  101.875, 102.625,
                            0,      0,       0,       0,       0,       0,       0,       0,
                            65.275, 65.775,  70.825,  71.325,  95.275,  95.775,  100.825, 101.325});
  expect_near(
      AlignOf({{"aligned", "true"}}),
      {6.1875, 7.8125, 17.4375, 19.0625, 36.1875, 37.8125, 47.4375, 49.0625, 65.375, 66.125, 68.375,
       69.125, 95.375, 96.125,  98.375,  99.125,  0,       0,       0,       0,      0,      0,
       0,      0,      61.625,  61.825,  67.175,  67.375,  91.625,  91.825,  97.175, 97.375});
  expect_near(AlignOf({{"position_sensitive", "true"}, {"pooled_size", "(1,2)"}}),
              {15.3125, 46.9375, 70.375, 101.125, 0, 0, 68.05, 98.55});
  // Regions partly outside the maps: their samples there are zeros.
  expect_near(AlignOf({}, {0, 8, 6, 16, 14, 1, -6, -4, 3, 2}),
              {27.25, 0, 0, 0, 57.25, 0, 0, 0, 0, 30.25, 0, 62.375, 0, 45.25, 0, 92.375});
}

TEST(ROIAlignTest, WriteModesAndGradients) {
  const std::vector<std::map<std::string, std::string>> params = {
      {{"pooled_size", "(2,3)"}, {"spatial_scale", "0.5"}},
      {{"pooled_size", "(2,2)"}, {"spatial_scale", "0.5"}, {"sample_ratio", "2"}},
      {{"pooled_size", "(3,2)"}, {"spatial_scale", "0.5"}, {"aligned", "true"}},
      {{"pooled_size", "(2,2)"}, {"spatial_scale", "0.5"}, {"position_sensitive", "true"}},
  };
  for (const auto& kw : params) {
    SCOPED_TRACE(kw.at("pooled_size"));
    InputSpec rois = InputSpec::WithValues(TShape{4, 5}, kRois);
    rois.differentiable = false;
    const OpCase c{"_contrib_ROIAlign", kw, {InputSpec{TShape{2, 4, 5, 6}}, rois}};
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
}

// Regions past the batch or with corners that are not finite give zeros and no gradient.
TEST(ROIAlignTest, RegionsOutsideTheBatchOrNotFiniteAreIgnored) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Values rois = {2, 0, 0, 4, 4, 0, 0, nan, 4, 4, 1, 0, 0, inf, 4, 0, -1e30, 0, 1e30, 4};
  const Values out = AlignOf({}, rois);
  EXPECT_EQ(Values(out.begin(), out.begin() + 24), Values(24, 0.0));
  for (size_t i = 24; i < out.size(); ++i) EXPECT_TRUE(std::isfinite(out[i])) << i;
}

// The GPU's items (an output element a thread, the gradient added atomically) run here on the
// CPU through Kernel<OP, cpu>, against the CPU's own path (the sample table): what can be
// checked of the GPU code without a GPU.
// The CPU takes output channels four at a time: 4, 6 (a block and two) and 3 (position
// sensitive, 6 channels over 2 bins) output channels.
TEST(ROIAlignTest, TheGpuItemsAgreeWithTheCpuPath) {
  using Kw = std::map<std::string, std::string>;
  const std::vector<std::pair<TShape, Kw>> cases = {
      {TShape{2, 4, 5, 6}, {{"pooled_size", "(2,3)"}, {"spatial_scale", "0.5"}}},
      {TShape{2, 4, 5, 6},
       {{"pooled_size", "(2,2)"}, {"spatial_scale", "0.5"}, {"position_sensitive", "1"}}},
      {TShape{2, 4, 5, 6}, {{"pooled_size", "(3,2)"}, {"spatial_scale", "0.5"}, {"aligned", "1"}}},
      {TShape{2, 6, 5, 6}, {{"pooled_size", "(2,3)"}, {"spatial_scale", "0.5"}}},
      {TShape{2, 6, 5, 6},
       {{"pooled_size", "(1,2)"}, {"spatial_scale", "0.5"}, {"position_sensitive", "1"}}}};
  for (const auto& [shape, kw] : cases) {
    SCOPED_TRACE(kw.at("pooled_size") + " over " + std::to_string(shape[1]) + " channels");
    InputSpec rois = InputSpec::WithValues(TShape{4, 5}, kRois);
    rois.differentiable = false;
    const OpCase c{"_contrib_ROIAlign", kw, {InputSpec{shape}, rois}};
    const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
    const Values y = testing::ToValues(testing::Forward(c, in)[0].blob());
    Values og(y.size());
    for (size_t i = 0; i < og.size(); ++i) og[i] = std::sin(0.7 * static_cast<double>(i));
    const Values dx = testing::ToValues(testing::Backward(c, in, {og})[0].blob());
    const NodeAttrs attrs = ParseAttrs(Op::Get("_contrib_ROIAlign"), kw);
    const roi_align::Geometry g = roi_align::GeometryOf(GetParam<roi_align::ROIAlignParam>(attrs),
                                                        in[0].shape(), in[1].shape());
    Values gpu_y(y.size()), gpu_dx(dx.size(), 0.0);
    Kernel<roi_align::roi_align_forward<kWriteTo>, cpu>::Launch(
        nullptr, static_cast<index_t>(y.size()), gpu_y.data(), in[0].data<double>(),
        in[1].data<double>(), g);
    Kernel<roi_align::roi_align_backward_atomic, cpu>::Launch(
        nullptr, static_cast<index_t>(og.size()), gpu_dx.data(), og.data(), in[1].data<double>(),
        g);
    testing::ExpectClose(y, gpu_y, 1e-12, 1e-12, "forward");
    testing::ExpectClose(dx, gpu_dx, 1e-12, 1e-12, "gradient");
  }
}

TEST(ROIAlignTest, BadShapesAndParametersAreNamed) {
  const auto error_of = [](const std::map<std::string, std::string>& kw, const TShape& data,
                           const TShape& rois) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes({"_contrib_ROIAlign", kw, {InputSpec{data}, InputSpec{rois}}});
    });
  };
  const std::map<std::string, std::string> ok{{"pooled_size", "(2,2)"}, {"spatial_scale", "1"}};
  EXPECT_THAT(error_of(ok, TShape{2, 3, 4}, TShape{1, 5}),
              HasSubstr("data must be feature maps (batch, channels, height, width), got (2,3,4)"));
  EXPECT_THAT(
      error_of(ok, TShape{1, 2, 3, 4}, TShape{3, 4}),
      HasSubstr("rois must be (regions, 5), each [batch_index, x1, y1, x2, y2], got (3,4)"));
  EXPECT_THAT(error_of({{"pooled_size", "(2,0)"}, {"spatial_scale", "1"}}, TShape{1, 2, 3, 4},
                       TShape{1, 5}),
              HasSubstr("pooled_size (2,0) must be (height, width), both at least 1"));
  EXPECT_THAT(error_of({{"pooled_size", "(2,2)"}, {"spatial_scale", "0"}}, TShape{1, 2, 3, 4},
                       TShape{1, 5}),
              HasSubstr("spatial_scale 0 must be positive and finite"));
  EXPECT_THAT(
      error_of({{"pooled_size", "(2,2)"}, {"spatial_scale", "1"}, {"position_sensitive", "1"}},
               TShape{1, 6, 3, 4}, TShape{1, 5}),
      HasSubstr("position_sensitive: the channels, 6, must be a multiple of the bins, 2 x 2"));
}

}  // namespace
}  // namespace ops
