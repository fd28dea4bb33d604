// BilinearResize2D and AdaptiveAvgPooling2D: the interpolation and the bins written out as loops
// (the formulas MXNet 1.9.1's CPU kernels use, which the Python suite checks against MXNet
// itself), every resizing mode's shape as MXNet printed it, write modes, gradients, and the
// shapes and parameters they refuse.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/resize-inl.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

// The input position output o reads along an axis, as a real number.
double SourceOf(int o, int in, int out, bool align_corners) {
  if (align_corners) return out > 1 ? double(in - 1) / (out - 1) * o : 0.0;
  return std::max(double(in) / out * (o + 0.5) - 0.5, 0.0);
}

Values BilinearReference(const Values& data, int planes, int h, int w, int oh, int ow, bool align) {
  Values out;
  for (int p = 0; p < planes; ++p) {
    for (int i = 0; i < oh; ++i) {
      const double ry = SourceOf(i, h, oh, align);
      const int y0 = static_cast<int>(ry), y1 = std::min(y0 + 1, h - 1);
      for (int j = 0; j < ow; ++j) {
        const double rx = SourceOf(j, w, ow, align);
        const int x0 = static_cast<int>(rx), x1 = std::min(x0 + 1, w - 1);
        const auto at = [&](int y, int x) { return data[(p * h + y) * w + x]; };
        const double ly = ry - y0, lx = rx - x0;
        out.push_back((1 - ly) * ((1 - lx) * at(y0, x0) + lx * at(y0, x1)) +
                      ly * ((1 - lx) * at(y1, x0) + lx * at(y1, x1)));
      }
    }
  }
  return out;
}

// BilinearResize2D of (n, c, h, w) images to each of `sizes`, both corner conventions,
// against the loops: values, write modes and, with `gradients`, the gradient.
void CheckBilinearAgainstLoops(int n, int c, int h, int w,
                               const std::vector<std::pair<int, int>>& sizes, bool gradients) {
  for (const bool align : {true, false}) {
    for (const auto& [oh, ow] : sizes) {
      SCOPED_TRACE(std::to_string(oh) + "x" + std::to_string(ow) + (align ? " aligned" : ""));
      const OpCase op{"_contrib_BilinearResize2D",
                      {{"height", std::to_string(oh)},
                       {"width", std::to_string(ow)},
                       {"align_corners", align ? "true" : "false"}},
                      {InputSpec{TShape{n, c, h, w}}}};
      testing::CheckForward(op, [&](const std::vector<Values>& in) {
        return std::vector<Values>{BilinearReference(in[0], n * c, h, w, oh, ow, align)};
      });
      testing::CheckWriteModes(op);
      if (gradients) testing::CheckGradient(op);
    }
  }
}

TEST(ResizeTest, BilinearAgainstLoopsWithGradients) {
  CheckBilinearAgainstLoops(2, 3, 5, 7, {{9, 4}, {3, 11}, {5, 7}, {1, 1}}, true);
  // like: the second input's height and width; its gradient is zero.
  const OpCase like{"_contrib_BilinearResize2D",
                    {{"mode", "like"}},
                    {InputSpec{TShape{1, 2, 4, 6}}, InputSpec{TShape{3, 1, 7, 3}}}};
  testing::CheckForward(like, [&](const std::vector<Values>& in) {
    return std::vector<Values>{BilinearReference(in[0], 2, 4, 6, 7, 3, true)};
  });
  testing::CheckGradient(like);
}

// mx.nd.contrib.BilinearResize2D of a (1, 1, 7, 8) input with scale_height=1.5 and
// scale_width=0.5, each mode's output shape.
TEST(ResizeTest, ModesShapeAsMxnet) {
  const std::map<std::string, TShape> expected = {
      {"size", TShape{1, 1, 10, 4}},        {"odd_scale", TShape{1, 1, 10, 4}},
      {"to_even_down", TShape{1, 1, 6, 8}}, {"to_even_up", TShape{1, 1, 8, 8}},
      {"to_odd_down", TShape{1, 1, 7, 7}},  {"to_odd_up", TShape{1, 1, 7, 9}}};
  for (const auto& [mode, shape] : expected) {
    const OpCase c{"_contrib_BilinearResize2D",
                   {{"mode", mode}, {"scale_height", "1.5"}, {"scale_width", "0.5"}},
                   {InputSpec{TShape{1, 1, 7, 8}}}};
    EXPECT_EQ(testing::InferOutputShapes(c)[0], shape) << mode;
  }
  EXPECT_EQ(testing::InferOutputShapes({"_contrib_BilinearResize2D",
                                        {{"height", "3"}, {"width", "2"}},
                                        {InputSpec{TShape{1, 1, 7, 8}}}})[0],
            (TShape{1, 1, 3, 2}));
}

Values AdaptiveReference(const Values& data, int planes, int h, int w, int oh, int ow) {
  Values out;
  for (int p = 0; p < planes; ++p) {
    for (int i = 0; i < oh; ++i) {
      const int y0 = i * h / oh, y1 = static_cast<int>(std::ceil(double(i + 1) * h / oh));
      for (int j = 0; j < ow; ++j) {
        const int x0 = j * w / ow, x1 = static_cast<int>(std::ceil(double(j + 1) * w / ow));
        double sum = 0;
        for (int y = y0; y < y1; ++y) {
          for (int x = x0; x < x1; ++x) sum += data[(p * h + y) * w + x];
        }
        out.push_back(sum / ((y1 - y0) * (x1 - x0)));
      }
    }
  }
  return out;
}

TEST(ResizeTest, AdaptiveAveragesAgainstLoopsWithGradients) {
  const int n = 2, c = 2, h = 7, w = 9;
  for (const auto& [size, oh, ow] :
       std::vector<std::tuple<std::string, int, int>>{{"()", 1, 1},
                                                      {"(3,1)", 3, 1},
                                                      {"(1,3)", 1, 3},
                                                      {"(3,)", 3, 3},
                                                      {"(4,5)", 4, 5},
                                                      {"(7,9)", 7, 9},
                                                      {"(10,12)", 10, 12}}) {
    SCOPED_TRACE(size);
    const OpCase op{
        "_contrib_AdaptiveAvgPooling2D", {{"output_size", size}}, {InputSpec{TShape{n, c, h, w}}}};
    testing::CheckForward(op, [&, oh = oh, ow = ow](const std::vector<Values>& in) {
      return std::vector<Values>{AdaptiveReference(in[0], n * c, h, w, oh, ow)};
    });
    testing::CheckWriteModes(op);
    testing::CheckGradient(op);
  }
}

// The GPU's gradient items (an output gradient element a thread, added atomically) run here on
// the CPU through Kernel<OP, cpu>, against the CPU's plane items.
// Planes wide enough for the CPU's row loops to run in packets, upscaled and downscaled, as
// segmentation and detection networks resize them.
TEST(ResizeTest, BilinearWidePlanesAgainstLoops) {
  CheckBilinearAgainstLoops(2, 2, 19, 37, {{41, 70}, {8, 17}, {19, 37}}, false);
}

TEST(ResizeTest, TheGpuItemsAgreeWithTheCpuPath) {
  const TShape x{2, 3, 5, 7}, y{2, 3, 9, 4};
  Values og(y.Size());
  for (size_t i = 0; i < og.size(); ++i) og[i] = std::sin(0.9 * static_cast<double>(i));
  for (const bool align : {true, false}) {
    const OpCase op{"_contrib_BilinearResize2D",
                    {{"height", "9"}, {"width", "4"}, {"align_corners", align ? "1" : "0"}},
                    {InputSpec{x}}};
    const std::vector<CpuTensor> in = testing::MakeInputs(op, mshadow::kFloat64);
    const Values y_cpu = testing::ToValues(testing::Forward(op, in)[0].blob());
    Values gpu_y(y.Size());
    Kernel<resize::bilinear_resize<kWriteTo>, cpu>::Launch(
        nullptr, static_cast<index_t>(gpu_y.size()), gpu_y.data(), in[0].data<double>(),
        resize::AxisOf<double>(x[2], y[2], align), resize::AxisOf<double>(x[3], y[3], align));
    testing::ExpectClose(y_cpu, gpu_y, 1e-12, 1e-12, align ? "aligned forward" : "forward");
    const Values dx = testing::ToValues(testing::Backward(op, in, {og})[0].blob());
    Values gpu_dx(x.Size(), 0.0);
    Kernel<resize::bilinear_resize_grad_atomic, cpu>::Launch(
        nullptr, static_cast<index_t>(og.size()), gpu_dx.data(), og.data(),
        resize::AxisOf<double>(x[2], y[2], align), resize::AxisOf<double>(x[3], y[3], align));
    testing::ExpectClose(dx, gpu_dx, 1e-12, 1e-12, align ? "aligned" : "not aligned");
  }
  const OpCase pool{"_contrib_AdaptiveAvgPooling2D", {{"output_size", "(4,3)"}}, {InputSpec{x}}};
  Values pool_og(2 * 3 * 4 * 3);
  for (size_t i = 0; i < pool_og.size(); ++i) pool_og[i] = std::cos(0.4 * static_cast<double>(i));
  const std::vector<CpuTensor> in = testing::MakeInputs(pool, mshadow::kFloat64);
  const Values y_cpu = testing::ToValues(testing::Forward(pool, in)[0].blob());
  const Values dx = testing::ToValues(testing::Backward(pool, in, {pool_og})[0].blob());
  Values gpu_y(pool_og.size()), gpu_dx(x.Size(), 0.0);
  const resize::AdaptiveAxis ay{x[2], 4}, ax{x[3], 3};
  Kernel<resize::adaptive_avg_pool<kWriteTo>, cpu>::Launch(
      nullptr, static_cast<index_t>(gpu_y.size()), gpu_y.data(), in[0].data<double>(), ay, ax);
  Kernel<resize::adaptive_avg_pool_grad, cpu>::Launch(nullptr, static_cast<index_t>(pool_og.size()),
                                                      gpu_dx.data(), pool_og.data(), ay, ax);
  testing::ExpectClose(y_cpu, gpu_y, 1e-12, 1e-12, "adaptive forward");
  testing::ExpectClose(dx, gpu_dx, 1e-12, 1e-12, "adaptive gradient");
}

TEST(ResizeTest, BadShapesAndParametersAreNamed) {
  const auto error_of = [](const std::string& op, const std::map<std::string, std::string>& kw,
                           const TShape& shape) {
    return testing::ErrorOf([&] { testing::InferOutputShapes({op, kw, {InputSpec{shape}}}); });
  };
  EXPECT_THAT(error_of("_contrib_BilinearResize2D", {}, TShape{2, 3, 4}),
              HasSubstr("data must be images (batch, channels, height, width), got (2,3,4)"));
  EXPECT_THAT(error_of("_contrib_BilinearResize2D", {{"mode", "odd_scale"}}, TShape{1, 1, 4, 4}),
              HasSubstr("mode odd_scale needs scale_height"));
  EXPECT_THAT(error_of("_contrib_BilinearResize2D", {{"scale_height", "0.1"}}, TShape{1, 1, 4, 4}),
              HasSubstr("the output height would be 0 (input height 4); it must be at least 1"));
  EXPECT_THAT(error_of("_contrib_BilinearResize2D", {{"height", "0"}}, TShape{1, 1, 4, 4}),
              HasSubstr("height"));
  EXPECT_THAT(error_of("_contrib_BilinearResize2D", {}, TShape{1, 1, 0, 4}),
              HasSubstr("data (1,1,0,4) has no pixels to interpolate"));
  EXPECT_THAT(
      error_of("_contrib_AdaptiveAvgPooling2D", {{"output_size", "(2,3,4)"}}, TShape{1, 1, 4, 4}),
      HasSubstr("output_size (2,3,4) must be (), (extent) or (height, width), each at least 1"));
  EXPECT_THAT(
      error_of("_contrib_AdaptiveAvgPooling2D", {{"output_size", "(0,)"}}, TShape{1, 1, 4, 4}),
      HasSubstr("each at least 1"));
}

}  // namespace
}  // namespace ops
