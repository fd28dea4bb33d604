// _contrib_box_nms against MXNet 1.9.1's printed results (classes, background, topk, the valid
// threshold, both formats, ties, an IoU at the threshold), write modes, gradients through the
// format conversion against central differences, many items' gradients on two threads, batch
// axes, and the parameters it refuses.
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

using Kw = std::map<std::string, std::string>;

// Six boxes [id, score, xmin, ymin, xmax, ymax]; rows 4 and 5 score 0 and -0.5.
const Values kBoxes = {0, 0.5, 0.1, 0.1, 0.2,  0.2,  1, 0.4,  0.1, 0.1, 0.2, 0.2,
                       0, 0.3, 0.1, 0.1, 0.14, 0.14, 2, 0.6,  0.5, 0.5, 0.7, 0.8,
                       1, 0.0, 0,   0,   1,    1,    0, -0.5, 0,   0,   1,   1};

std::vector<Values> Nms(const TShape& shape, const Values& boxes, const Kw& kw) {
  const OpCase c{"_contrib_box_nms", kw, {InputSpec::WithValues(shape, boxes)}};
  std::vector<Values> out;
  for (const CpuTensor& t : testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat64))) {
    out.push_back(testing::ToValues(t.blob()));
  }
  return out;
}

// `rows` of kBoxes, then rows of -1 up to six.
Values RowsThenNone(const std::vector<Values>& rows) {
  Values out;
  for (const Values& r : rows) out.insert(out.end(), r.begin(), r.end());
  out.resize(36, -1.0);
  return out;
}

void ExpectNear(const Values& expected, const Values& actual, const std::string& what) {
  testing::ExpectClose(expected, actual, 1e-12, 1e-12, what);
}

TEST(BoxNmsTest, MxnetsResults) {
  const TShape shape{6, 6};
  const Values a = {0, 0.5, 0.1, 0.1, 0.2, 0.2}, b = {1, 0.4, 0.1, 0.1, 0.2, 0.2},
               d = {2, 0.6, 0.5, 0.5, 0.7, 0.8};
  // Classes: box 1 is another class than box 0, which suppresses box 2; score 0 is not valid.
  std::vector<Values> out = Nms(shape, kBoxes, {{"overlap_thresh", "0.1"}, {"id_index", "0"}});
  ExpectNear(RowsThenNone({d, a, b}), out[0], "classes");
  EXPECT_EQ(out[1], (Values{3, 0, 1, -1, -1, -1}));  // the hidden input rows
  out = Nms(shape, kBoxes, {{"overlap_thresh", "0.1"}, {"id_index", "0"}, {"background_id", "0"}});
  ExpectNear(RowsThenNone({d, b}), out[0], "background");
  out = Nms(shape, kBoxes, {{"overlap_thresh", "0.1"}, {"topk", "2"}});
  ExpectNear(RowsThenNone({d, a}), out[0], "topk");
  out = Nms(shape, kBoxes,
            {{"overlap_thresh", "0.1"}, {"valid_thresh", "-1"}, {"out_format", "center"}});
  ExpectNear(
      RowsThenNone(
          {{2, 0.6, 0.6, 0.65, 0.2, 0.3}, {0, 0.5, 0.15, 0.15, 0.1, 0.1}, {1, 0, 0.5, 0.5, 1, 1}}),
      out[0], "corner to center");
  out = Nms(shape, kBoxes,
            {{"overlap_thresh", "0.1"}, {"valid_thresh", "-1"}, {"in_format", "center"}});
  ExpectNear(
      RowsThenNone(
          {{2, 0.6, 0.15, 0.1, 0.85, 0.9}, {0, 0.5, 0, 0, 0.2, 0.2}, {1, 0, -0.5, -0.5, 0.5, 0.5}}),
      out[0], "center to corner");
}

TEST(BoxNmsTest, TiesKeepInputOrderAndAnIouAtTheThresholdIsKept) {
  Values ties;
  for (int i = 0; i < 40; ++i) {
    const Values row = {double(i), 0.5, 10.0 * i, 0, 10.0 * i + 1, 1};
    ties.insert(ties.end(), row.begin(), row.end());
  }
  const Values kept = Nms(TShape{40, 6}, ties, {})[1];
  for (int i = 0; i < 40; ++i) EXPECT_EQ(kept[i], i);
  // [0, 0, 1, 1] and [0, 0, 1, 2]: IoU 0.5 exactly, not above 0.5.
  const Values pair = {0, 0.9, 0, 0, 1, 1, 1, 0.8, 0, 0, 1, 2};
  EXPECT_EQ(Nms(TShape{2, 6}, pair, {})[1], (Values{0, 1}));
  EXPECT_EQ(Nms(TShape{2, 6}, pair, {{"overlap_thresh", "0.49"}})[1], (Values{0, -1}));
}

TEST(BoxNmsTest, MxnetsGradientExample) {
  const OpCase c{
      "_contrib_box_nms",
      {{"overlap_thresh", "0.1"}, {"id_index", "0"}, {"force_suppress", "True"}},
      {InputSpec::WithValues(TShape{4, 6}, Values(kBoxes.begin(), kBoxes.begin() + 24))}};
  const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
  Values out_grad;
  for (const double g : {0.1, 0.2, 0.3, 0.4}) out_grad.insert(out_grad.end(), 6, g);
  const Values grad = testing::ToValues(testing::Backward(c, in, {out_grad})[0].blob());
  Values expected(24, 0.0);
  std::fill(expected.begin(), expected.begin() + 6, 0.2);
  std::fill(expected.begin() + 18, expected.end(), 0.1);
  ExpectNear(expected, grad, "in_grad");
}

TEST(BoxNmsTest, WriteModesAndGradientsThroughEveryFormat) {
  // Scores and overlaps well away from the thresholds, so that small steps change no choice.
  const Values boxes = {0.9, 1.0, 1.0, 3.0, 4.0, 7,  //
                        0.7, 1.2, 1.1, 3.1, 4.2, 8,  //
                        0.8, 6.0, 6.0, 7.0, 8.0, 9,  //
                        0.2, 2.0, 5.0, 2.5, 5.5, 1};
  for (const std::string in_format : {"corner", "center"}) {
    for (const std::string out_format : {"corner", "center"}) {
      SCOPED_TRACE(in_format + " to " + out_format);
      const OpCase c{"_contrib_box_nms",
                     {{"score_index", "0"},
                      {"coord_start", "1"},
                      {"in_format", in_format},
                      {"out_format", out_format}},
                     {InputSpec::WithValues(TShape{2, 2, 6}, boxes)}};
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
}

TEST(BoxNmsTest, GradientsOfManyItemsOnTwoThreadsFollowTheIndex) {
  // Eight items of 512 random boxes, enough work for two threads: each input row's gradient is
  // the gradient of the output row the hidden index sends it, zero for rows not kept.
  constexpr index_t kItems = 8, kBoxesPerItem = 512, kWidth = 6;
  const OpCase c{"_contrib_box_nms",
                 {{"overlap_thresh", "0.3"}, {"topk", "200"}},
                 {InputSpec(TShape{kItems, kBoxesPerItem, kWidth}, 0.0, 1.0)}};
  const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
  const Values index = testing::ToValues(testing::Forward(c, in)[1].blob());
  std::mt19937_64 rng(3);
  const Values out_grad = testing::RandomValues(index.size() * kWidth, -1, 1, &rng);
  Values expected(out_grad.size(), 0.0);
  index_t kept = 0;
  for (index_t r = 0; r < kItems * kBoxesPerItem; ++r) {
    if (index[r] < 0) continue;
    ++kept;
    const index_t source = r / kBoxesPerItem * kBoxesPerItem + static_cast<index_t>(index[r]);
    for (index_t k = 0; k < kWidth; ++k) expected[source * kWidth + k] = out_grad[r * kWidth + k];
  }
  ASSERT_GT(kept, kItems);
  ASSERT_LT(kept, kItems * 200 + 1);
  for (const int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    mshadow::SetNumThreads(threads);
    ExpectNear(expected, testing::ToValues(testing::Backward(c, in, {out_grad})[0].blob()),
               "in_grad");
  }
  mshadow::SetNumThreads(1);
}

TEST(BoxNmsTest, AnIndexPastTheBoxesIsNamedByTheBackward) {
  // Two boxes: the index (the forward's hidden output, back from the host) names row 2. The
  // gradient is left as it was.
  const NodeAttrs back = ParseAttrs(Op::Get("_backward_contrib_box_nms"), {});
  const CpuTensor og = testing::TensorOf(TShape{2, 6}, mshadow::kFloat32, Values(12, 1.0));
  const CpuTensor index_grad = testing::TensorOf(TShape{2}, mshadow::kInt32, {0, 0});
  const CpuTensor out = testing::TensorOf(TShape{2, 6}, mshadow::kFloat32, Values(12, 0.5));
  const CpuTensor index = testing::TensorOf(TShape{2}, mshadow::kInt32, {1, 2});
  const CpuTensor grad = testing::TensorOf(TShape{2, 6}, mshadow::kFloat32, Values(12, 7.0));
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke<mshadow::cpu>(back, MakeCpuContext(back),
                                     {og.blob(), index_grad.blob(), out.blob(), index.blob()},
                                     {kWriteTo}, {grad.blob()});
              }),
              HasSubstr("holds 2 at row 1; valid: -1 (no input row) or an input row 0 to 1"));
  EXPECT_EQ(testing::ToValues(grad.blob()), Values(12, 7.0)) << "written before the check";
}

TEST(BoxNmsTest, BatchAxesAreItems) {
  // The same six boxes twice over a (2, 1) batch: the same result twice.
  Values twice = kBoxes;
  twice.insert(twice.end(), kBoxes.begin(), kBoxes.end());
  const std::vector<Values> out =
      Nms(TShape{2, 1, 6, 6}, twice, {{"overlap_thresh", "0.1"}, {"id_index", "0"}});
  EXPECT_EQ(Values(out[0].begin(), out[0].begin() + 36), Values(out[0].begin() + 36, out[0].end()));
  EXPECT_EQ(out[1], (Values{3, 0, 1, -1, -1, -1, 3, 0, 1, -1, -1, -1}));
}

TEST(BoxNmsTest, BadParametersAreNamed) {
  const auto error_of = [](const TShape& shape, const Kw& kw) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes({"_contrib_box_nms", kw, {InputSpec{shape}}});
    });
  };
  EXPECT_THAT(
      error_of(TShape{4, 6}, {{"coord_start", "3"}}),
      HasSubstr("coord_start 3 is outside the boxes of width 6 (data (4,6)); valid: [0, 2]"));
  EXPECT_THAT(error_of(TShape{4, 6}, {{"score_index", "6"}}),
              HasSubstr("score_index 6 is outside the boxes of width 6"));
  EXPECT_THAT(
      error_of(TShape{4, 6}, {{"id_index", "-2"}}),
      HasSubstr("id_index -2 is outside the boxes of width 6 (data (4,6)); valid: [-1, 5]"));
  EXPECT_THAT(error_of(TShape{6}, {}), HasSubstr("data must be boxes (..., N, K)"));
  const NodeAttrs attrs = ParseAttrs(Op::Get("_contrib_box_nms"), {});
  std::vector<int> in = {mshadow::kInt32}, out;
  EXPECT_EQ(testing::ErrorOf([&] { InferTypes(attrs, &in, &out); }),
            "_contrib_box_nms: data type int32 is not supported; valid: float32, float64");
}

}  // namespace
}  // namespace ops
