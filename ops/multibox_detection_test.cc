// _contrib_MultiBoxDetection against MXNet 1.9.1's printed detections (suppression within a
// class and across classes, clipping), nms_topk and background_id (where MXNet's CPU build
// differs), ties, write modes, the zero gradient, and the shapes it refuses.
#include <map>
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

using Kw = std::map<std::string, std::string>;

// One image, three classes (0 the background), five anchors.
const Values kProb = {0.2, 0.1, 0.5, 0.6, 0.7,  //
                      0.5, 0.8, 0.4, 0.1, 0.1,  //
                      0.3, 0.1, 0.1, 0.3, 0.2};
const Values kLoc = {0.1, -0.2, 0.3, 0.0, 0.0, 0.1, -0.1, 0.2, 0.5, 0.5,
                     0.5, 0.5,  0,   0,   0,   0,   -1,   1,   0.5, -0.5};
const Values kAnchors = {0.1, 0.1, 0.3, 0.3, 0.12, 0.1, 0.32, 0.3, 0.5, 0.5,
                         0.9, 0.9, 0,   0,   1,    1,   0.2,  0.6, 0.4, 0.8};

OpCase Detection(const Kw& kw, const Values& prob = kProb) {
  return {"_contrib_MultiBoxDetection",
          kw,
          {InputSpec::WithValues(TShape{1, 3, 5}, prob), InputSpec::WithValues(TShape{1, 20}, kLoc),
           InputSpec::WithValues(TShape{1, 5, 4}, kAnchors)}};
}

Values Detect(const Kw& kw, const Values& prob = kProb) {
  const OpCase c = Detection(kw, prob);
  return testing::ToValues(
      testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32))[0].blob());
}

const Values kNone = {-1, -1, -1, -1, -1, -1};

Values Rows(std::vector<Values> rows) {
  Values out;
  for (const Values& r : rows) out.insert(out.end(), r.begin(), r.end());
  return out;
}

TEST(MultiBoxDetectionTest, MxnetsDetections) {
  const Values first = {0, 0.8, 0.1219801, 0.09791891, 0.3180199, 0.3060811};
  const Values suppressed = {-1, 0.5, 0.09581634, 0.096, 0.3081837, 0.296};
  const Values third = {0, 0.4, 0.4989658, 0.4989658, 0.9410341, 0.9410341};
  testing::ExpectClose(Rows({first, suppressed, third, {1, 0.3, 0, 0, 1, 1}, kNone}),
                       Detect({{"threshold", "0.25"}}), 1e-6, 1e-7, "default");
  // Across classes with force_suppress; unclipped (these boxes are inside [0, 1] anyway).
  testing::ExpectClose(Rows({first, suppressed, third, {-1, 0.3, 0, 0, 1, 1}, kNone}),
                       Detect({{"threshold", "0.25"},
                               {"force_suppress", "True"},
                               {"nms_threshold", "0.01"},
                               {"clip", "False"}}),
                       1e-6, 1e-7, "force_suppress");
}

TEST(MultiBoxDetectionTest, TopkBackgroundAndTies) {
  // nms_topk 1: the best detection alone suppresses; the others keep their rows, class -1.
  const Values top = Detect({{"threshold", "0.25"}, {"nms_topk", "1"}});
  EXPECT_EQ(Values({top[0], top[6], top[12], top[18]}), (Values{0, -1, -1, -1}));
  EXPECT_FLOAT_EQ(top[13], 0.4f);
  EXPECT_FLOAT_EQ(top[8], 0.09581634f);
  // background_id 1: class 1 is skipped, classes 0 and 2 become 0 and 1.
  const Values other = Detect({{"threshold", "0.25"}, {"background_id", "1"}});
  EXPECT_EQ(Values({other[0], other[1], other[6], other[7]}), (Values{0, 0.7f, 0, 0.6f}));
  // No background: every class counts, reported as itself.
  const Values none = Detect({{"threshold", "0.25"}, {"background_id", "-1"}});
  EXPECT_EQ(Values({none[0], none[1]}), (Values{1, 0.8f}));
  // Equal scores keep the anchors' order: anchor 0's decoded box, then anchor 1's.
  const Values tie = Detect({{"nms_threshold", "1"}}, Values(15, 0.5));
  EXPECT_NEAR(tie[2], 0.09581634, 1e-6);
  EXPECT_NEAR(tie[8], 0.1219801, 1e-6);
}

TEST(MultiBoxDetectionTest, WriteModesAndZeroGradient) {
  const OpCase c = Detection({{"threshold", "0.25"}});
  testing::CheckWriteModes(c);
  const std::vector<CpuTensor> grads =
      testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat32), {Values(30, 1.0)});
  for (const CpuTensor& g : grads) {
    for (const double v : testing::ToValues(g.blob())) ASSERT_EQ(v, 0.0);
  }
}

TEST(MultiBoxDetectionTest, BadShapesAreNamed) {
  const auto error_of = [](const TShape& prob, const TShape& loc, const TShape& anchor,
                           const Kw& kw = {}) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes(
          {"_contrib_MultiBoxDetection", kw, {InputSpec{prob}, InputSpec{loc}, InputSpec{anchor}}});
    });
  };
  EXPECT_THAT(error_of(TShape{1, 3, 5}, TShape{1, 20}, TShape{2, 5, 4}),
              HasSubstr("anchor (2,5,4) must be (1, 5, 4)"));
  EXPECT_THAT(error_of(TShape{1, 3, 5}, TShape{1, 16}, TShape{1, 5, 4}),
              HasSubstr("loc_pred (1,16) must be (1, 20)"));
  EXPECT_THAT(error_of(TShape{3, 5}, TShape{1, 20}, TShape{1, 5, 4}),
              HasSubstr("cls_prob must be (batch, classes, anchors), got (3,5)"));
  EXPECT_THAT(
      error_of(TShape{1, 3, 5}, TShape{1, 20}, TShape{1, 5, 4}, {{"variances", "(0.1,0.2)"}}),
      HasSubstr("variances must hold 4 values"));
}

}  // namespace
}  // namespace ops
