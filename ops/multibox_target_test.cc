// _contrib_MultiBoxTarget against MXNet 1.9.1's printed targets (matching by overlap, negative
// mining with and without a minimum, custom variances and ignore_label, an image without
// labels), where it differs (too few negatives to mine), write modes, the zero gradient, and
// the labels, parameters and shapes it refuses.
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

// Ten anchors; two images: two labels and padding, then one label, padding and a row past it.
const Values kAnchors = {0.1, 0.1, 0.3, 0.3, 0.12, 0.1, 0.32, 0.3, 0.5,  0.5,  0.9,  0.9, 0,   0,
                         1,   1,   0.2, 0.6, 0.4,  0.8, 0.55, 0.5, 0.95, 0.85, 0.6,  0.1, 0.7, 0.2,
                         0.8, 0.1, 0.9, 0.2, 0.1,  0.8, 0.2,  0.9, 0.7,  0.7,  0.75, 0.75};
const Values kLabels = {1,  0.1, 0.12, 0.31, 0.3, 7,  0, 0.5,  0.52, 0.88, 0.9,  7,
                        -1, -1,  -1,   -1,   -1,  -1, 2, 0.58, 0.1,  0.7,  0.21, 0,
                        -1, -1,  -1,   -1,   -1,  -1, 5, 5,    5,    5,    5,    5};
Values Predictions() {
  Values p = {0.5, 0.1, 0.3,  -0.2, 0.9,  0.0, 0.7, -0.4, 0.2,  0.6,  //
              0.2, 0.4, -0.1, 0.3,  0.1,  0.2, 0.0, 0.5,  -0.2, 0.3,  //
              0.1, 0.3, 0.2,  0.5,  -0.3, 0.1, 0.4, 0.1,  0.6,  -0.1};
  for (int i = 0; i < 10; ++i) p.push_back(0.1 * i);
  for (int i = 0; i < 10; ++i) p.push_back(0);
  for (int i = 0; i < 10; ++i) p.push_back(0.05);
  return p;
}

OpCase Target(const Kw& kw, const Values& labels = kLabels) {
  return {"_contrib_MultiBoxTarget",
          kw,
          {InputSpec::WithValues(TShape{1, 10, 4}, kAnchors),
           InputSpec::WithValues(TShape{2, 3, 6}, labels),
           InputSpec::WithValues(TShape{2, 3, 10}, Predictions())}};
}

std::vector<Values> Targets(const Kw& kw, const Values& labels = kLabels) {
  const OpCase c = Target(kw, labels);
  std::vector<Values> out;
  for (const CpuTensor& t : testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32))) {
    out.push_back(testing::ToValues(t.blob()));
  }
  return out;
}

// MXNet's box targets of image 0's positive anchors 0, 1, 2, 5 and image 1's anchor 6
// (default variances); the rest are 0.
Values BoxTargets(bool anchor_1, bool anchor_5) {
  Values loc(80, 0.0);
  const Values a0 = {0.24999975, 0.50000024, 0.24395059, -0.5268027};
  const Values a1 = {-0.7500001, 0.50000024, 0.24395116, -0.5268027};
  const Values a2 = {-0.24999978, 0.24999978, -0.2564662, -0.2564662};
  const Values a5 = {-1.5000002, 0.999999, -0.2564662, 0.41119015};
  const Values a16 = {-0.9999994, 0.49999952, 0.91160995, 0.47655046};
  for (int v = 0; v < 4; ++v) {
    loc[v] = a0[v];
    loc[4 + v] = anchor_1 ? a1[v] : 0;
    loc[8 + v] = a2[v];
    loc[20 + v] = anchor_5 ? a5[v] : 0;
    loc[40 + 24 + v] = a16[v];
  }
  return loc;
}

Values MaskOf(const Values& loc_positions) {
  Values mask(80, 0.0);
  for (double a : loc_positions) {
    for (int v = 0; v < 4; ++v) mask[static_cast<int>(a) * 4 + v] = 1;
  }
  return mask;
}

TEST(MultiBoxTargetTest, MxnetsTargetsWithoutMining) {
  const std::vector<Values> t = Targets({});
  testing::ExpectClose(BoxTargets(true, true), t[0], 1e-5, 1e-6, "loc_target");
  EXPECT_EQ(t[1], MaskOf({0, 1, 2, 5, 16}));
  EXPECT_EQ(t[2], (Values{2, 2, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0}));
  // overlap_threshold 0: each label's own anchor only.
  const std::vector<Values> own = Targets({{"overlap_threshold", "0"}});
  testing::ExpectClose(BoxTargets(false, false), own[0], 1e-5, 1e-6, "bipartite loc_target");
  EXPECT_EQ(own[2], (Values{2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0}));
}

TEST(MultiBoxTargetTest, MxnetsMinedNegatives) {
  // Ratio 1: four positives, four negatives of the lowest background probability.
  EXPECT_EQ(Targets({{"negative_mining_ratio", "1"}})[2],
            (Values{2, 2, 1, 0, -1, 1, 0, 0, 0, -1, 0, -1, -1, -1, -1, -1, 3, -1, -1, -1}));
  // Ratio 0.5 with a minimum of 3: image 0 gets 3, not 2, image 1 3, not 0 (MXNet 1.9.1's
  // CPU build ignores minimum_negative_samples: 2 and 0), another ignore_label.
  const std::vector<Values> minimum = Targets({{"negative_mining_ratio", "0.5"},
                                               {"minimum_negative_samples", "3"},
                                               {"ignore_label", "-7"}});
  EXPECT_EQ(minimum[2], (Values{2, 2, 1, 0,  -7, 1,  -7, 0,  0,  -7,  //
                                0, 0, 0, -7, -7, -7, 3,  -7, -7, -7}));
  EXPECT_EQ(Targets({{"negative_mining_ratio", "0.5"}, {"ignore_label", "-7"}})[2],
            (Values{2,  2,  1,  0,  -7, 1,  -7, 0,  -7, -7,  //
                    -7, -7, -7, -7, -7, -7, 3,  -7, -7, -7}));
  EXPECT_EQ(minimum[1], MaskOf({0, 1, 2, 5, 16}));
  // Round one's positives alone, by a high overlap_threshold or none.
  EXPECT_EQ(Targets({{"negative_mining_ratio", "3"},
                     {"negative_mining_thresh", "0.6"},
                     {"overlap_threshold", "0.9"}})[2],
            (Values{2, -1, 1, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, 3, -1, -1, -1}));
  EXPECT_EQ(Targets({{"overlap_threshold", "0"}, {"negative_mining_ratio", "2"}})[2],
            (Values{2, -1, 1, 0, -1, -1, 0, 0, 0, -1, 0, 0, -1, -1, -1, -1, 3, -1, -1, -1}));
}

TEST(MultiBoxTargetTest, MxnetsVariancesAndThresholds) {
  const std::vector<Values> t = Targets({{"negative_mining_ratio", "1.5"},
                                         {"negative_mining_thresh", "0.6"},
                                         {"overlap_threshold", "0.3"},
                                         {"variances", "(0.2,0.3,0.4,0.5)"}});
  Values loc(80, 0.0);
  const std::vector<std::pair<int, Values>> rows = {
      {0, {0.12499987, 0.16666673, 0.1219753, -0.21072109}},
      {1, {-0.37500006, 0.16666673, 0.12197558, -0.21072109}},
      {2, {-0.12499989, 0.08333325, -0.1282331, -0.10258649}},
      {5, {-0.7500001, 0.333333, -0.1282331, 0.16447607}},
      {16, {-0.4999997, 0.16666651, 0.45580497, 0.19062018}}};
  for (const auto& [anchor, box] : rows) {
    for (int v = 0; v < 4; ++v) loc[anchor * 4 + v] = box[v];
  }
  testing::ExpectClose(loc, t[0], 1e-5, 1e-6, "loc_target");
  EXPECT_EQ(t[2], (Values{2, 2, 1, 0, 0, 1, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, 3, -1, -1, -1}));
}

TEST(MultiBoxTargetTest, MiningTakesTheNegativesThereAre) {
  // Ratio 3 asks for 6 negatives of image 0's two positives, but only anchors 4, 6, 7 and 8
  // overlap its labels by less than 0.01: MXNet 1.9.1 stops with an error, this takes the 4.
  // Image 1 gets its 3, the anchors of the lowest background probability.
  EXPECT_EQ(Targets({{"negative_mining_ratio", "3"},
                     {"negative_mining_thresh", "0.01"},
                     {"overlap_threshold", "0.9"}})[2],
            (Values{2, -1, 1, -1, 0, -1, 0, 0, 0, -1, 0, 0, 0, -1, -1, -1, 3, -1, -1, -1}));
}

TEST(MultiBoxTargetTest, AnImageWithoutLabelsIsIgnored) {
  Values labels = kLabels;
  labels[18] = -1;  // image 1's label becomes padding
  for (int v = 19; v < 24; ++v) labels[v] = -1;
  const std::vector<Values> t = Targets({}, labels);
  for (int j = 10; j < 20; ++j) EXPECT_EQ(t[2][j], -1) << j;
  for (int j = 40; j < 80; ++j) ASSERT_EQ(t[0][j] + t[1][j], 0) << j;
}

TEST(MultiBoxTargetTest, WriteModesAndZeroGradient) {
  const OpCase c = Target({{"negative_mining_ratio", "1"}});
  testing::CheckWriteModes(c);
  const std::vector<CpuTensor> grads =
      testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat32),
                        {Values(80, 1.0), Values(80, 1.0), Values(20, 1.0)});
  for (const CpuTensor& g : grads) {
    for (const double v : testing::ToValues(g.blob())) ASSERT_EQ(v, 0.0);
  }
}

TEST(MultiBoxTargetTest, PaddingMustBeMinusOneThroughout) {
  Values labels = kLabels;
  labels[14] = 0.4;  // image 0's padding row, ymin
  const std::string error = testing::ErrorOf([&] { Targets({}, labels); });
  EXPECT_THAT(error, HasSubstr("label row 2 of image 0 has class -1"));
  EXPECT_THAT(error, HasSubstr("value 0.4"));
}

TEST(MultiBoxTargetTest, BadParametersAndShapesAreNamed) {
  const auto error_of = [](const TShape& anchor, const TShape& label, const TShape& pred,
                           const Kw& kw = {}) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes(
          {"_contrib_MultiBoxTarget", kw, {InputSpec{anchor}, InputSpec{label}, InputSpec{pred}}});
    });
  };
  const TShape anchor{1, 10, 4}, label{2, 3, 6}, pred{2, 3, 10};
  EXPECT_THAT(
      error_of(TShape{2, 10, 4}, label, pred),
      HasSubstr("anchor must be (1, anchors, 4), corners shared by the batch, got (2,10,4)"));
  EXPECT_THAT(error_of(anchor, TShape{2, 3, 4}, pred),
              HasSubstr("label must be (batch, labels >= 1, width >= 5)"));
  EXPECT_THAT(error_of(anchor, label, TShape{2, 3, 9}), HasSubstr("cls_pred (2,3,9) must be (2, "
                                                                  "classes, 10)"));
  EXPECT_THAT(error_of(anchor, label, TShape{3, 3, 10}), HasSubstr("must be (2, classes, 10)"));
  EXPECT_THAT(error_of(anchor, label, pred, {{"variances", "(0.1,0.2)"}}),
              HasSubstr("variances must hold 4 values"));
  EXPECT_THAT(error_of(anchor, label, pred, {{"variances", "(0.1,0.1,0,0.2)"}}),
              HasSubstr("positive and finite"));
  EXPECT_THAT(error_of(anchor, label, pred,
                       {{"negative_mining_ratio", "3"}, {"negative_mining_thresh", "0"}}),
              HasSubstr("negative_mining_thresh must be positive when mining"));
}

}  // namespace
}  // namespace ops
