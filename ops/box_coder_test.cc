// _contrib_box_encode and _contrib_box_decode: values as MXNet 1.9.1 gives them, both against
// the definition on random boxes, box_encode's zero gradient, box_decode's gradient in both
// inputs, and bad input.
#include <cmath>
#include <map>
#include <random>
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

// `count` corner boxes of positive size, from a fixed seed.
Values RandomCorners(int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> corner(0, 1), size(0.1, 0.5);
  Values boxes;
  for (int i = 0; i < count; ++i) {
    const double x = corner(rng), y = corner(rng);
    for (double v : {x, y, x + size(rng), y + size(rng)}) boxes.push_back(v);
  }
  return boxes;
}

InputSpec Constant(TShape shape, Values values) {
  InputSpec spec = InputSpec::WithValues(std::move(shape), std::move(values));
  spec.differentiable = false;
  return spec;
}

// Centre and size of a corner box.
struct Box {
  double x, y, w, h;
};
Box FromCorners(const double* b) {
  return {(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, b[2] - b[0], b[3] - b[1]};
}

TEST(BoxEncodeTest, ValuesAsMxnet) {
  const OpCase c{
      "_contrib_box_encode",
      {},
      {Constant(TShape{1, 3}, {1, 1, -1}), Constant(TShape{1, 3}, {1, 0, -1}),
       Constant(TShape{1, 3, 4}, {0, 0, 1, 1, 0.5, 0.5, 1.5, 2.5, 0, 0, 1, 1}),
       Constant(TShape{1, 2, 4}, {0.1, 0.2, 0.5, 0.9, 0, 0, 2, 2}),
       Constant(TShape{4}, {0.1, 0, 0, 0.2}), Constant(TShape{4}, {0.1, 0.1, 0.2, 0.2})}};
  testing::CheckForward(
      c,
      [](const std::vector<Values>&) {
        return std::vector<Values>{{4.0, 5.0, 3.465735912322998, 2.465735912322998, -8.0, -4.75,
                                    -4.581453323364258, -6.249110698699951, 0, 0, 0, 0},
                                   {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0}};
      },
      /*rtol64=*/1e-7);
}

TEST(BoxEncodeTest, RandomBoxesAgainstTheDefinitionWithZeroGradients) {
  constexpr int kBatch = 2, kAnchors = 7, kRefs = 3;
  // Negative and ignored samples may name no reference (-1), as GluonCV's matchers do.
  const Values samples = {1, -1, 0, 1, 1, 1, -1, 1, 1, 0, 1, -1, 1, 1};
  const Values matches = {0, -1, -1, 2, 1, 2, -1, 1, 0, -1, 2, -1, 0, 1};
  const OpCase c{
      "_contrib_box_encode",
      {},
      {Constant(TShape{kBatch, kAnchors}, samples), Constant(TShape{kBatch, kAnchors}, matches),
       Constant(TShape{kBatch, kAnchors, 4}, RandomCorners(kBatch * kAnchors, 1)),
       Constant(TShape{kBatch, kRefs, 4}, RandomCorners(kBatch * kRefs, 2)),
       Constant(TShape{4}, {0.1, -0.1, 0.2, 0}), Constant(TShape{4}, {0.1, 0.1, 0.2, 0.2})}};
  testing::CheckForward(c, [&](const std::vector<Values>& in) {
    Values targets, masks;
    for (int i = 0; i < kBatch * kAnchors; ++i) {
      const bool positive = samples[i] > 0.5;
      if (!positive) {  // its match may be -1: no reference to read
        targets.insert(targets.end(), 4, 0.0);
        masks.insert(masks.end(), 4, 0.0);
        continue;
      }
      const Box a = FromCorners(&in[2][4 * i]);
      const Box r =
          FromCorners(&in[3][4 * ((i / kAnchors) * kRefs + static_cast<int>(matches[i]))]);
      const double t[4] = {(r.x - a.x) / a.w, (r.y - a.y) / a.h, std::log(r.w / a.w),
                           std::log(r.h / a.h)};
      for (int k = 0; k < 4; ++k) {
        targets.push_back((t[k] - in[4][k]) / in[5][k]);
        masks.push_back(1.0);
      }
    }
    return std::vector<Values>{targets, masks};
  });
  testing::CheckWriteModes(c);
  const Values ones(kBatch * kAnchors * 4, 1.0);
  for (const CpuTensor& g :
       testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat64), {ones, ones})) {
    EXPECT_EQ(testing::ToValues(g.blob()), Values(g.shape().Size(), 0.0));
  }
}

TEST(BoxEncodeTest, BadMatchesAndShapesAreErrors) {
  const auto encode = [](const Values& matches, const TShape& anchors, const TShape& refs) {
    return testing::ErrorOf([&] {
      const OpCase c{
          "_contrib_box_encode",
          {},
          {Constant(TShape{1, 2}, {-1, 1}), Constant(TShape{1, 2}, matches), InputSpec(anchors),
           InputSpec(refs), InputSpec(TShape{4}), InputSpec(TShape{4}, 1, 2)}};
      testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32));
    });
  };
  EXPECT_THAT(encode({0, 3}, TShape{1, 2, 4}, TShape{1, 3, 4}),
              HasSubstr("the positive sample (0, 1) matches reference 3, which refs' 3 rows do "
                        "not have; valid matches of positive samples: [0, 3)"));
  EXPECT_THAT(encode({7, -1}, TShape{1, 2, 4}, TShape{1, 3, 4}),
              HasSubstr("the positive sample (0, 1) matches reference -1"));
  EXPECT_THAT(encode({0, 0}, TShape{1, 3, 4}, TShape{1, 3, 4}),
              HasSubstr("anchors (1,3,4) must be (1,2,4)"));
  EXPECT_THAT(encode({0, 0}, TShape{1, 2, 4}, TShape{2, 3, 4}),
              HasSubstr("refs (2,3,4) must be (1, M, 4)"));
}

// The corner boxes of offsets d (B, N, 4) from anchors (N, 4) in `format`.
Values Decode(const Values& d, const Values& anchors, const double (&std)[4], double clip,
              bool center) {
  const int n = static_cast<int>(anchors.size() / 4);
  Values boxes;
  for (size_t i = 0; i < d.size() / 4; ++i) {
    const double* a = &anchors[4 * (i % n)];
    const Box b = center ? Box{a[0], a[1], a[2], a[3]} : FromCorners(a);
    double o[4];
    for (int k = 0; k < 4; ++k) o[k] = d[4 * i + k] * std[k];
    for (int k = 2; k < 4; ++k) o[k] = clip > 0 ? std::min(o[k], clip) : o[k];
    const double x = o[0] * b.w + b.x, y = o[1] * b.h + b.y;
    const double hw = std::exp(o[2]) * b.w / 2, hh = std::exp(o[3]) * b.h / 2;
    for (double v : {x - hw, y - hh, x + hw, y + hh}) boxes.push_back(v);
  }
  return boxes;
}

TEST(BoxDecodeTest, ValuesAsMxnet) {
  const OpCase c{"_contrib_box_decode",
                 {{"std0", "0.1"},
                  {"std1", "0.1"},
                  {"std2", "0.2"},
                  {"std3", "0.2"},
                  {"clip", "0.5"},
                  {"format", "corner"}},
                 {InputSpec::WithValues(TShape{1, 2, 4}, {0.5, -1, 0.25, 3, 0, 0, 0, 0}),
                  InputSpec::WithValues(TShape{1, 2, 4}, {0, 0, 1, 1, 0.5, 0.5, 1.5, 2.5})}};
  testing::CheckForward(
      c,
      [](const std::vector<Values>&) {
        return std::vector<Values>{{0.024364471435546875, -0.42436060309410095, 1.075635552406311,
                                    1.2243605852127075, 0.5, 0.5, 1.5, 2.5}};
      },
      /*rtol64=*/1e-7);
}

TEST(BoxDecodeTest, BothFormatsClippedOrNotWithGradients) {
  // The parameters are floats, as MXNet's.
  const double std[4] = {0.1f, 0.2f, 0.3f, 0.4f};
  for (const bool center : {false, true}) {
    for (const double clip : {-1.0, static_cast<double>(0.3f)}) {
      SCOPED_TRACE(std::string(center ? "center" : "corner") + " clip " + std::to_string(clip));
      // Offsets in [-2, 2]: some scaled size offsets pass the clip, some do not.
      const OpCase c{"_contrib_box_decode",
                     {{"std0", "0.1"},
                      {"std1", "0.2"},
                      {"std2", "0.3"},
                      {"std3", "0.4"},
                      {"clip", clip > 0 ? "0.3" : "-1"},
                      {"format", center ? "center" : "corner"}},
                     {InputSpec(TShape{3, 5, 4}, -2, 2), InputSpec(TShape{1, 5, 4}, 0.2, 1)}};
      testing::CheckForward(c, [&](const std::vector<Values>& in) {
        return std::vector<Values>{Decode(in[0], in[1], std, clip, center)};
      });
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
}

TEST(BoxDecodeTest, BadShapesAreErrors) {
  const auto decode = [](const TShape& data, const TShape& anchors) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes(
          {"_contrib_box_decode", {}, {InputSpec(data), InputSpec(anchors)}});
    });
  };
  EXPECT_THAT(decode(TShape{2, 3, 5}, TShape{1, 3, 4}),
              HasSubstr("data (2,3,5) must be (B, N, 4): four offsets per box"));
  EXPECT_THAT(decode(TShape{2, 3, 4}, TShape{2, 3, 4}), HasSubstr("(2,3,4)"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("_contrib_box_decode"), {{"format", "xywh"}});
              }),
              HasSubstr("valid values are: {'center', 'corner'}"));
}

}  // namespace
}  // namespace ops
