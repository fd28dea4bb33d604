// MultiBoxPrior and box_iou: MXNet 1.9.1's printed anchors and overlaps, a loop over every
// position and anchor as the reference, write modes, MXNet's zero gradients, and the
// parameters and shapes they refuse (values MXNet turns into infinities or NaN among them).
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"
#include "ops/testing/sample_values.h"

namespace ops {
namespace {

using testing::ForwardOf;
using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

TEST(BoundingBoxTest, MxnetsAnchors) {
  const OpCase two_sizes{"_contrib_MultiBoxPrior",
                         {{"sizes", "(0.5,0.25)"}, {"ratios", "(1,2)"}},
                         {InputSpec{TShape{2, 3, 2, 3}}}};
  EXPECT_EQ(testing::InferOutputShapes(two_sizes)[0], (TShape{1, 18, 4}));
  const Values anchors = ForwardOf(two_sizes);
  testing::ExpectClose({0, 0, 0.33333334, 0.5, 0.08333334, 0.125, 0.25, 0.375, -0.06903559,
                        0.07322331, 0.40236893, 0.4267767},
                       Values(anchors.begin(), anchors.begin() + 12), 1e-6, 1e-7, "first cell");
  const OpCase clipped{
      "_contrib_MultiBoxPrior",
      {{"sizes", "(0.5,)"}, {"clip", "true"}, {"steps", "(0.5,0.4)"}, {"offsets", "(0.2,0.3)"}},
      {InputSpec{TShape{2, 3, 2, 3}}}};
  testing::ExpectClose(
      {0,          0,          0.2866667,  0.35, 0.3533333,  0,          0.68666667, 0.35,
       0.75333333, 0,          1,          0.35, 0,          0.35000002, 0.2866667,  0.85,
       0.3533333,  0.35000002, 0.68666667, 0.85, 0.75333333, 0.35000002, 1,          0.85},
      ForwardOf(clipped), 1e-6, 1e-7, "clipped");
}

TEST(BoundingBoxTest, AnchorsAgainstLoops) {
  const int h = 3, w = 5;
  const std::vector<double> sizes{0.3, 0.6}, ratios{1, 2, 0.5};
  const OpCase c{"_contrib_MultiBoxPrior",
                 {{"sizes", "(0.3,0.6)"}, {"ratios", "(1,2,0.5)"}},
                 {InputSpec{TShape{1, 2, h, w}}}};
  testing::CheckForward(
      c,
      [&](const std::vector<Values>&) {
        Values out;
        const auto add = [&](double cy, double cx, double size, double ratio) {
          const double hw = size * h / w * std::sqrt(ratio) / 2, hh = size / std::sqrt(ratio) / 2;
          out.insert(out.end(), {cx - hw, cy - hh, cx + hw, cy + hh});
        };
        for (int r = 0; r < h; ++r) {
          for (int col = 0; col < w; ++col) {
            const double cy = (r + 0.5) / h, cx = (col + 0.5) / w;
            for (const double size : sizes) add(cy, cx, size, ratios[0]);
            for (size_t j = 1; j < ratios.size(); ++j) add(cy, cx, sizes[0], ratios[j]);
          }
        }
        return std::vector<Values>{out};
      },
      /*rtol64=*/1e-6);  // computed in float whatever the type, as MXNet's
  testing::CheckWriteModes(c);
}

// A box's corners from either format, and the overlap of two as the definition says.
double Iou(const double* a, const double* b, bool center) {
  double p[4], q[4];
  for (int k = 0; k < 4; ++k) p[k] = a[k], q[k] = b[k];
  if (center) {
    for (double* box : {p, q}) {
      const double x = box[0], y = box[1], bw = box[2], bh = box[3];
      box[0] = x - bw / 2, box[1] = y - bh / 2, box[2] = x + bw / 2, box[3] = y + bh / 2;
    }
  }
  const double iw = std::min(p[2], q[2]) - std::max(p[0], q[0]);
  const double ih = std::min(p[3], q[3]) - std::max(p[1], q[1]);
  if (iw <= 0 || ih <= 0) return 0;
  const double overlap = iw * ih;
  return overlap / ((p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - overlap);
}

TEST(BoundingBoxTest, OverlapsAgainstTheDefinitionWithZeroGradients) {
  const OpCase mxnet_example{
      "_contrib_box_iou",
      {},
      {InputSpec::WithValues(TShape{2, 4}, {0.5, 0.5, 1.0, 1.0, 0.0, 0.0, 0.5, 0.5}),
       InputSpec::WithValues(TShape{1, 4}, {0.25, 0.25, 0.75, 0.75})}};
  testing::ExpectClose({0.14285715, 0.14285715}, ForwardOf(mxnet_example), 1e-6, 1e-7, "example");
  for (const bool center : {false, true}) {
    // Corners drawn from [0, 1] make some boxes inverted (no area): they overlap nothing.
    // 37 rhs boxes: two whole packets of 16 floats (four of 8 doubles) and a remainder.
    const OpCase c{"_contrib_box_iou",
                   {{"format", center ? "center" : "corner"}},
                   {InputSpec{TShape{2, 3, 4}, 0, 1}, InputSpec{TShape{37, 4}, 0, 1}}};
    EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{2, 3, 37}));
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      Values out;
      for (int a = 0; a < 6; ++a) {
        for (int b = 0; b < 37; ++b) out.push_back(Iou(&in[0][a * 4], &in[1][b * 4], center));
      }
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(c);
    const std::vector<CpuTensor> grads =
        testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat64), {Values(6 * 37, 1.0)});
    EXPECT_EQ(testing::ToValues(grads[0].blob()), Values(24, 0.0));
    EXPECT_EQ(testing::ToValues(grads[1].blob()), Values(37 * 4, 0.0));
  }
}

TEST(BoundingBoxTest, BadParametersAndShapesAreNamed) {
  const auto error_of = [](const std::string& op, const std::map<std::string, std::string>& kw,
                           std::vector<InputSpec> inputs) {
    return testing::ErrorOf([&] { testing::InferOutputShapes({op, kw, std::move(inputs)}); });
  };
  const InputSpec maps{TShape{1, 2, 3, 4}};
  EXPECT_THAT(error_of("_contrib_MultiBoxPrior", {{"ratios", "(0,)"}}, {maps}),
              HasSubstr("ratios (0,) must have 1 to 64 positive, finite entries"));
  EXPECT_THAT(error_of("_contrib_MultiBoxPrior", {{"sizes", "()"}}, {maps}),
              HasSubstr("sizes () must have 1 to 64 positive, finite entries"));
  EXPECT_THAT(error_of("_contrib_MultiBoxPrior", {{"steps", "(0.5,)"}}, {maps}),
              HasSubstr("steps (0.5,) must be a pair (y, x)"));
  EXPECT_THAT(error_of("_contrib_MultiBoxPrior", {}, {InputSpec{TShape{2, 3, 4}}}),
              HasSubstr("data must be feature maps (batch, channels, height, width), got (2,3,4)"));
  EXPECT_THAT(error_of("_contrib_box_iou", {}, {InputSpec{TShape{2, 3}}, InputSpec{TShape{5, 4}}}),
              HasSubstr("lhs must be boxes (..., 4), got (2,3)"));
}

}  // namespace
}  // namespace ops
