// _contrib_ROIAlign and _contrib_RROIAlign: MXNet 1.9.1's printed values (default, aligned and
// position-sensitive sampling; a region with a negative batch index; rotated regions, one
// partly outside, one below the minimum size), rotated regions at angle 0 against ROIAlign,
// write modes, gradients against central differences, regions that are ignored, the GPU's
// items against the CPU's path, and the shapes and parameters they refuse.
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

// MXNet's probe: sin(0.37 i) over (2, 3, 6, 7) maps; regions turned by 30, -45 and 90 degrees,
// the third partly outside the map at scale 0.5, the fourth below one position a side.
const Values kRotatedRois = {0, 6,  5,  8, 4, 30, 1, 3, 2.5, 5, 7,   -45,
                             0, 12, 10, 6, 6, 90, 1, 1, 1,   1, 0.5, 10};

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

// The same of rotated regions, (R, 6) rois.
Values RotatedOf(const std::map<std::string, std::string>& extra, const Values& rois) {
  std::map<std::string, std::string> kw{{"pooled_size", "(2,2)"}, {"spatial_scale", "0.5"}};
  for (const auto& [k, v] : extra) kw[k] = v;
  const int regions = static_cast<int>(rois.size() / 6);
  const OpCase c{"_contrib_RROIAlign",
                 kw,
                 {InputSpec::WithValues(TShape{2, 2, 5, 6}, Ramp(120)),
                  InputSpec::WithValues(TShape{regions, 6}, rois)}};
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
  for (const char* ratio : {"-1", "2"}) {
    SCOPED_TRACE(std::string("rotated, sampling_ratio ") + ratio);
    InputSpec rois = InputSpec::WithValues(TShape{4, 6}, kRotatedRois);
    rois.differentiable = false;
    const OpCase c{"_contrib_RROIAlign",
                   {{"pooled_size", "(2,3)"}, {"spatial_scale", "0.5"}, {"sampling_ratio", ratio}},
                   {InputSpec{TShape{2, 3, 6, 7}}, rois}};
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
  const Values rotated = RotatedOf(
      {}, {2, 1, 1, 4, 4, 0, 0, nan, 1, 4, 4, 0, 1, 1, 1, 4, 4, inf, 0, -1e30, 0, 1e30, 4, 0});
  EXPECT_EQ(Values(rotated.begin(), rotated.begin() + 24), Values(24, 0.0));
  for (size_t i = 24; i < rotated.size(); ++i) EXPECT_TRUE(std::isfinite(rotated[i])) << i;
}

TEST(ROIAlignTest, RotatedAsMxnet) {
  const Values wave = [] {
    Values v(2 * 3 * 6 * 7);
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.37 * static_cast<double>(i));
    return v;
  }();
  const auto rotated = [&](const std::map<std::string, std::string>& kw) {
    const OpCase c{"_contrib_RROIAlign",
                   kw,
                   {InputSpec::WithValues(TShape{2, 3, 6, 7}, wave),
                    InputSpec::WithValues(TShape{4, 6}, kRotatedRois)}};
    return testing::ToValues(
        testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32))[0].blob());
  };
  testing::ExpectClose(
      Values{0.52560955,  -0.01189656, -0.3546428,  -0.2943411,  0.34454322,  0.4017374,
             -0.53440607, 0.12747501,  0.35298318,  0.25696015,  -0.4401108,  -0.33715495,
             0.5281615,   -0.23946562, -0.3413886,  -0.21234709, 0.5232913,   0.26308325,
             -0.16902617, -0.3325797,  0.13524055,  -0.23349832, 0.44505095,  -0.00044629,
             0.05549762,  0.36983132,  -0.05812056, 0.3002522,   -0.44437712, -0.05716088,
             0.05959294,  -0.3966739,  -0.02063523, -0.35855538, 0.43119615,  0.11315919,
             0.7126181,   0.7126181,   -0.255298,   0.256194,    0.256194,    0.00681448,
             -0.8147635,  -0.8147635,  0.40967292,  -0.3243696,  -0.3243696,  0.07686096,
             0.8939769,   0.8939769,   -0.5525174,  0.3834157,   0.3834157,   -0.15837313,
             0.03976634,  0.04790351,  0.03375479,  -0.57877946, -0.4787972,  -0.40110087,
             -0.11411875, -0.13668159, -0.13979203, 0.6155203,   0.51278985,  0.4295119,
             0.18525922,  0.22161269,  0.24189472,  -0.63493705, -0.5323499,  -0.44583422},
      rotated({{"pooled_size", "(2,3)"}, {"spatial_scale", "0.5"}}), 1e-5, 1e-6, "scale 0.5");
  testing::ExpectClose(
      Values{0.45670405,  -0.17297685, 0.3747747,   0.02975727,  0,           0,
             -0.40502462, 0.15318927,  -0.42354825, -0.00396448, 0,           0,
             0.3419456,   -0.1290901,  0.46040082,  -0.02193988, 0,           0,
             -0.52012664, 0.05994272,  0.06957115,  0.03210954,  -0.07469511, -0.3036569,
             0.46420625,  -0.07184131, -0.06351398, -0.02015799, 0.08398093,  0.21367645,
             -0.39522064, 0.08171789,  0.05566915,  0.00763912,  -0.09090304, -0.11768198,
             0,           0,           0,           0,           0,           0,
             0,           0,           0,           0,           0,           0,
             0,           0,           0,           0,           0,           0,
             -0.43686193, -0.33668894, -0.57080793, -0.4878174,  -0.07038461, -0.12843478,
             0.46741265,  0.35535613,  0.6653084,   0.59483147,  0.12920591,  0.20549102,
             -0.48480788, -0.3640216,  -0.7410835,  -0.6851037,  -0.18439063, -0.27676368},
      rotated({{"pooled_size", "(3,2)"}, {"spatial_scale", "1"}, {"sampling_ratio", "2"}}), 1e-5,
      1e-6, "sampling_ratio 2");
}

// A region turned by 0 degrees is ROIAlign's region with the same corners (where both are
// at least one position a side: below, ROIAlign extends a region from its corner, RROIAlign
// about its centre).
TEST(ROIAlignTest, RotatedByZeroIsROIAlign) {
  const Values corners = {0, 0.5, 1.0, 7.0, 8.5, 1, 2, 2, 5, 4, 1, 3.3, 0.2, 6.1, 3.9};
  Values rotated;
  for (size_t r = 0; r < corners.size(); r += 5) {
    const double* c = &corners[r];
    rotated.insert(rotated.end(),
                   {c[0], (c[1] + c[3]) / 2, (c[2] + c[4]) / 2, c[3] - c[1], c[4] - c[2], 0});
  }
  for (const char* ratio : {"-1", "2"}) {
    SCOPED_TRACE(ratio);
    testing::ExpectClose(AlignOf({{"sample_ratio", ratio}}, corners),
                         RotatedOf({{"sampling_ratio", ratio}}, rotated), 1e-12, 1e-12, "forward");
  }
}

// The GPU's items (an output element a thread, the gradient added atomically) run here on the
// CPU through Kernel<OP, cpu>, against the CPU's own path (the sample table): what can be
// checked of the GPU code without a GPU.
// The CPU takes output channels four at a time: 4, 6 (a block and two) and 3 (position
// sensitive, 6 channels over 2 bins) output channels.
TEST(ROIAlignTest, TheGpuItemsAgreeWithTheCpuPath) {
  using Kw = std::map<std::string, std::string>;
  struct Case {
    const char* op;
    TShape data;
    Kw kw;
    TShape rois;
    const Values& roi_values;
  };
  const std::vector<Case> cases = {
      {"_contrib_ROIAlign",
       TShape{2, 4, 5, 6},
       {{"pooled_size", "(2,3)"}, {"spatial_scale", "0.5"}},
       TShape{4, 5},
       kRois},
      {"_contrib_ROIAlign",
       TShape{2, 4, 5, 6},
       {{"pooled_size", "(2,2)"}, {"spatial_scale", "0.5"}, {"position_sensitive", "1"}},
       TShape{4, 5},
       kRois},
      {"_contrib_ROIAlign",
       TShape{2, 4, 5, 6},
       {{"pooled_size", "(3,2)"}, {"spatial_scale", "0.5"}, {"aligned", "1"}},
       TShape{4, 5},
       kRois},
      {"_contrib_ROIAlign",
       TShape{2, 6, 5, 6},
       {{"pooled_size", "(2,3)"}, {"spatial_scale", "0.5"}},
       TShape{4, 5},
       kRois},
      {"_contrib_ROIAlign",
       TShape{2, 6, 5, 6},
       {{"pooled_size", "(1,2)"}, {"spatial_scale", "0.5"}, {"position_sensitive", "1"}},
       TShape{4, 5},
       kRois},
      {"_contrib_RROIAlign",
       TShape{2, 6, 6, 7},
       {{"pooled_size", "(2,3)"}, {"spatial_scale", "0.5"}},
       TShape{4, 6},
       kRotatedRois}};
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(k.op) + " " + k.kw.at("pooled_size") + " over " +
                 std::to_string(k.data[1]) + " channels");
    InputSpec rois = InputSpec::WithValues(k.rois, k.roi_values);
    rois.differentiable = false;
    const OpCase c{k.op, k.kw, {InputSpec{k.data}, rois}};
    const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
    const Values y = testing::ToValues(testing::Forward(c, in)[0].blob());
    Values og(y.size());
    for (size_t i = 0; i < og.size(); ++i) og[i] = std::sin(0.7 * static_cast<double>(i));
    const Values dx = testing::ToValues(testing::Backward(c, in, {og})[0].blob());
    const NodeAttrs attrs = ParseAttrs(Op::Get(k.op), k.kw);
    const roi_align::Geometry g =
        k.rois[1] == 6 ? roi_align::GeometryOf(GetParam<roi_align::RROIAlignParam>(attrs),
                                               in[0].shape(), in[1].shape())
                       : roi_align::GeometryOf(GetParam<roi_align::ROIAlignParam>(attrs),
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
  EXPECT_THAT(
      testing::ErrorOf([&] {
        testing::InferOutputShapes(
            {"_contrib_RROIAlign", ok, {InputSpec{TShape{1, 2, 3, 4}}, InputSpec{TShape{3, 5}}}});
      }),
      HasSubstr("rois must be (regions, 6), each [batch_index, x_center, y_center, width, "
                "height, theta], got (3,5)"));
}

}  // namespace
}  // namespace ops
