// _contrib_Proposal and _contrib_MultiProposal against MXNet 1.9.1's printed proposals (centre
// and log-size regressions, corner offsets with iou_loss, positions past the image, boxes
// below the least size, a batch), kept boxes repeated, write modes, the zero gradient, the
// scores' visibility, and the parameters and shapes they refuse.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/invoke.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

using Kw = std::map<std::string, std::string>;

// Two anchors (ratios 0.5 and 2, scale 1, stride 8) on a 3 x 4 map; the scores and
// regressions of the Python probe that printed MXNet's values below.
Values Wave(size_t count, double offset, double amplitude, double step, bool cosine) {
  Values v;
  for (size_t i = 0; i < count; ++i) {
    const double x = step * static_cast<double>(i);
    v.push_back(static_cast<float>(offset + amplitude * (cosine ? std::cos(x) : std::sin(x))));
  }
  return v;
}

const Kw kParams = {{"ratios", "(0.5,2)"}, {"scales", "(1,)"},          {"feature_stride", "8"},
                    {"rpn_min_size", "4"}, {"rpn_pre_nms_top_n", "10"}, {"rpn_post_nms_top_n", "6"},
                    {"threshold", "0.6"},  {"output_score", "True"}};

OpCase Proposal(const std::string& name, int images, const Values& im_info, Kw kw = kParams) {
  const size_t plane = 12;
  return {
      name,
      kw,
      {InputSpec::WithValues(TShape{images, 4, 3, 4},
                             Wave(images * 4 * plane, 0.5, 0.45, 1.7, false)),
       InputSpec::WithValues(TShape{images, 8, 3, 4}, Wave(images * 8 * plane, 0, 0.3, 0.9, true)),
       InputSpec::WithValues(TShape{images, 3}, im_info)}};
}

std::vector<Values> Outputs(const OpCase& c) {
  std::vector<Values> out;
  for (const CpuTensor& t : testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32))) {
    out.push_back(testing::ToValues(t.blob()));
  }
  return out;
}

TEST(ProposalTest, MxnetsProposals) {
  // 20 x 30 pixels: the map's last row and column lie outside (score -1).
  const std::vector<Values> out = Outputs(Proposal("_contrib_Proposal", 1, {20, 30, 1}));
  testing::ExpectClose(Values{0, 18.592802, 1.3441038, 22.298357, 10.93059,   //
                              0, 16.378708, 0.9762573, 22.28093,  15.124924,  //
                              0, 17.055996, 6.370126,  26.132977, 13.456933,  //
                              0, 6.4616337, 4.6819673, 13.519449, 15.643824,  //
                              0, 14.009943, 3.5339658, 23.490522, 7.063998,   //
                              0, 11.540181, 0,         15.034911, 9.591313},
                       out[0], 1e-5, 1e-5, "rois");
  testing::ExpectClose(Values{0.9412653, 0.8400381, 0.8016031, 0.7484753, 0.5971943, 0.5306424},
                       out[1], 1e-6, 1e-7, "scores");
}

TEST(ProposalTest, MxnetsCornerOffsetsWithIouLoss) {
  Kw kw = kParams;
  kw["iou_loss"] = "True";
  const std::vector<Values> out = Outputs(Proposal("_contrib_Proposal", 1, {20, 30, 1}, kw));
  testing::ExpectClose(Values{0, 17.157597, 0,         21.756985, 8.874672,   //
                              0, 16.971636, 5.712549,  22.140083, 17.233006,  //
                              0, 14.690408, 8.735588,  24.41236,  14.298474,  //
                              0, 8.748424,  5.8885746, 14.294883, 16.996817,  //
                              0, 14.431839, 1.2998304, 24.451628, 5.71897,    //
                              0, 9.297924,  0,         13.711146, 9.135604},
                       out[0], 1e-5, 1e-5, "rois");
}

TEST(ProposalTest, MxnetsBatch) {
  // Image 1 at scale 2: every box is below its least size (8), scored -1 and widened by 4.
  const std::vector<Values> out =
      Outputs(Proposal("_contrib_MultiProposal", 2, {24, 32, 1, 20, 30, 2}));
  testing::ExpectClose(Values{0, 18.592802, 1.3441038,  22.298357, 10.93059,   //
                              0, 10.238113, 18.719975,  22.748428, 22.372784,  //
                              0, 18.286373, 2.750588,   30.74675,  6.391126,   //
                              0, 10.559866, 17.409042,  14.27952,  23,         //
                              0, 16.378708, 0.9762573,  22.28093,  15.124924,  //
                              0, 17.055996, 6.370126,   26.132977, 13.456933,  //
                              1, -4,        -4,         13.176305, 9.0875435,  //
                              1, 5.8532104, -4,         22.342093, 9.624252,   //
                              1, 15.119663, -3.2545962, 30.298306, 10.397951,  //
                              1, 20.980959, -1.1120484, 33,        11.018899,  //
                              1, 23.466007, -4,         33,        13.996283,  //
                              1, -4,        7.507826,   11.143801, 18.962675},
                       out[0], 1e-5, 1e-5, "rois");
  testing::ExpectClose(Values{0.9412653, 0.9272317, 0.923193, 0.9014053, 0.8400381, 0.8016031, -1,
                              -1, -1, -1, -1, -1},
                       out[1], 1e-6, 1e-7, "scores");
}

TEST(ProposalTest, FewerKeptBoxesRepeat) {
  Kw kw = kParams;
  kw["rpn_pre_nms_top_n"] = "4";
  kw["rpn_post_nms_top_n"] = "11";
  kw["threshold"] = "0.01";
  const std::vector<Values> out = Outputs(Proposal("_contrib_Proposal", 1, {20, 30, 1}, kw));
  ASSERT_EQ(out[0].size(), 55u);
  // The best box is always kept; the kept ones repeat in order.
  EXPECT_NEAR(out[0][1], 18.592802, 1e-5);
  int kept = 1;
  while (kept < 4 && out[1][kept] < out[1][kept - 1]) ++kept;
  for (int r = kept; r < 11; ++r) {
    for (int v = 0; v < 5; ++v) ASSERT_EQ(out[0][r * 5 + v], out[0][(r % kept) * 5 + v]) << r;
    ASSERT_EQ(out[1][r], out[1][r % kept]) << r;
  }
}

TEST(ProposalTest, WriteModesZeroGradientAndHiddenScores) {
  const OpCase c = Proposal("_contrib_MultiProposal", 2, {24, 32, 1, 20, 30, 2});
  testing::CheckWriteModes(c);
  const std::vector<CpuTensor> grads = testing::Backward(
      c, testing::MakeInputs(c, mshadow::kFloat32), {Values(60, 1.0), Values(12, 1.0)});
  for (const CpuTensor& g : grads) {
    for (const double v : testing::ToValues(g.blob())) ASSERT_EQ(v, 0.0);
  }
  Kw kw = kParams;
  kw.erase("output_score");
  const Op* op = Op::Get("_contrib_Proposal");
  NodeAttrs attrs = ParseAttrs(op, kw);
  EXPECT_EQ(attrs.op->num_visible_outputs(attrs), 1u);
  attrs = ParseAttrs(op, kParams);
  EXPECT_EQ(attrs.op->num_visible_outputs(attrs), 2u);
}

TEST(ProposalTest, BadParametersAndShapesAreNamed) {
  const auto error_of = [](const std::string& name, const TShape& prob, const TShape& pred,
                           const TShape& info, Kw kw = kParams) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes({name, kw, {InputSpec{prob}, InputSpec{pred}, InputSpec{info}}});
    });
  };
  const TShape prob{1, 4, 3, 4}, pred{1, 8, 3, 4}, info{1, 3};
  EXPECT_THAT(error_of("_contrib_Proposal", TShape{1, 6, 3, 4}, pred, info),
              HasSubstr("cls_prob must be (batch, 2 x 2, height, width)"));
  EXPECT_THAT(error_of("_contrib_Proposal", TShape{2, 4, 3, 4}, TShape{2, 8, 3, 4}, TShape{2, 3}),
              HasSubstr("_contrib_Proposal takes one image"));
  EXPECT_THAT(error_of("_contrib_MultiProposal", prob, TShape{1, 8, 3, 5}, info),
              HasSubstr("bbox_pred (1,8,3,5) must be (1, 8, 3, 4)"));
  EXPECT_THAT(error_of("_contrib_MultiProposal", prob, pred, TShape{1, 4}),
              HasSubstr("im_info (1,4) must be (1, 3)"));
  Kw kw = kParams;
  kw["scales"] = "(1,-2)";
  EXPECT_THAT(error_of("_contrib_MultiProposal", TShape{1, 8, 3, 4}, TShape{1, 16, 3, 4}, info, kw),
              HasSubstr("scales must be positive and finite, got -2"));
  const std::string too_big = testing::ErrorOf([] {
    Outputs(Proposal("_contrib_MultiProposal", 2, {24, 32, 1, 20, 40, 1}));
  });
  EXPECT_THAT(too_big, HasSubstr("im_info of image 1: height 20 and width 40 at feature_stride "
                                 "8 span 2 x 5 positions, more than the 3 x 4 feature map"));
  kw = kParams;
  kw["rpn_post_nms_top_n"] = "0";
  EXPECT_THAT(error_of("_contrib_Proposal", prob, pred, info, kw),
              HasSubstr("rpn_post_nms_top_n must be at least 1"));
  kw = kParams;
  kw["feature_stride"] = "0";
  EXPECT_THAT(error_of("_contrib_Proposal", prob, pred, info, kw),
              HasSubstr("feature_stride must be at least 1"));
}

}  // namespace
}  // namespace ops
