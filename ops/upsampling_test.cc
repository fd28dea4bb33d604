// UpSampling nearest against index arithmetic written out: one input, several stacked or
// summed at different scales; write modes, gradients (each input's block sums), and errors.
// UpSampling bilinear against the depthwise Deconvolution it is, with gradients.
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

// The output (N, C, OH, OW) of inputs (N, C_i, h_i, w_i), each repeated OH / h_i times.
Values Reference(const std::vector<Values>& in, const std::vector<TShape>& shapes,
                 const TShape& out, bool sum) {
  Values result(out.Size(), 0.0);
  index_t first_channel = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const TShape& s = shapes[i];
    const index_t scale = out[2] / s[2];
    for (index_t n = 0; n < s[0]; ++n) {
      for (index_t c = 0; c < s[1]; ++c) {
        for (index_t h = 0; h < out[2]; ++h) {
          for (index_t w = 0; w < out[3]; ++w) {
            const double v = in[i][((n * s[1] + c) * s[2] + h / scale) * s[3] + w / scale];
            result[((n * out[1] + first_channel + c) * out[2] + h) * out[3] + w] += v;
          }
        }
      }
    }
    if (!sum) first_channel += s[1];
  }
  return result;
}

struct UpSamplingCase {
  std::string name;
  std::vector<TShape> inputs;
  int scale;
  std::string mode;
  TShape out;
};

class UpSamplingTest : public ::testing::TestWithParam<UpSamplingCase> {};

TEST_P(UpSamplingTest, MatchesReferenceWithGradients) {
  const UpSamplingCase& uc = GetParam();
  OpCase c{"UpSampling",
           {{"scale", std::to_string(uc.scale)},
            {"sample_type", "nearest"},
            {"num_args", std::to_string(uc.inputs.size())},
            {"multi_input_mode", uc.mode}},
           {}};
  for (const TShape& s : uc.inputs) c.inputs.push_back(InputSpec{s});
  EXPECT_EQ(testing::InferOutputShapes(c)[0], uc.out);
  testing::CheckForward(c, [&](const std::vector<Values>& in) {
    return std::vector<Values>{Reference(in, uc.inputs, uc.out, uc.mode == "sum")};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, UpSamplingTest,
    ::testing::Values(
        UpSamplingCase{"one_input", {TShape{2, 3, 4, 5}}, 2, "concat", TShape{2, 3, 8, 10}},
        UpSamplingCase{"scale_3", {TShape{1, 2, 3, 2}}, 3, "concat", TShape{1, 2, 9, 6}},
        UpSamplingCase{"stacked",
                       {TShape{2, 2, 2, 2}, TShape{2, 1, 4, 4}, TShape{2, 3, 1, 1}},
                       2,
                       "concat",
                       TShape{2, 6, 4, 4}},
        UpSamplingCase{
            "summed", {TShape{1, 2, 2, 2}, TShape{1, 2, 4, 4}}, 2, "sum", TShape{1, 2, 4, 4}}),
    [](const ::testing::TestParamInfo<UpSamplingCase>& info) { return info.param.name; });

std::string ShapeError(std::vector<TShape> inputs, const std::string& mode = "concat",
                       const std::string& sample_type = "nearest") {
  return testing::ErrorOf([&] {
    OpCase c{"UpSampling",
             {{"scale", "2"},
              {"sample_type", sample_type},
              {"num_args", std::to_string(inputs.size())},
              {"multi_input_mode", mode}},
             {}};
    for (const TShape& s : inputs) c.inputs.push_back(InputSpec{s});
    testing::InferOutputShapes(c);
  });
}

// bilinear is the depthwise Deconvolution with kernel 2 * scale - scale % 2, stride scale and
// pad ceil((scale - 1) / 2) by the weight input; the output is scale times the input.
TEST(UpSamplingTest, BilinearIsADepthwiseDeconvolution) {
  for (const int scale : {1, 2, 3, 4}) {
    SCOPED_TRACE("scale " + std::to_string(scale));
    const index_t k = 2 * scale - scale % 2, pad = (scale - 1 + 1) / 2;
    const std::vector<InputSpec> inputs = {InputSpec{TShape{2, 3, 4, 5}},
                                           InputSpec{TShape{3, 1, k, k}}};
    const OpCase bilinear{"UpSampling",
                          {{"scale", std::to_string(scale)},
                           {"sample_type", "bilinear"},
                           {"num_filter", "3"},
                           {"num_args", "2"}},
                          inputs};
    const std::string kk = std::to_string(k), ss = std::to_string(scale),
                      pp = std::to_string(pad);
    const OpCase deconvolution{"Deconvolution",
                               {{"kernel", "(" + kk + "," + kk + ")"},
                                {"stride", "(" + ss + "," + ss + ")"},
                                {"pad", "(" + pp + "," + pp + ")"},
                                {"num_filter", "3"},
                                {"num_group", "3"}},
                               inputs};
    EXPECT_EQ(testing::InferOutputShapes(bilinear)[0], (TShape{2, 3, 4 * scale, 5 * scale}));
    const auto values = testing::MakeInputs(bilinear, mshadow::kFloat64);
    EXPECT_EQ(testing::ToValues(testing::Forward(bilinear, values)[0].blob()),
              testing::ToValues(testing::Forward(deconvolution, values)[0].blob()));
    testing::CheckWriteModes(bilinear);
    testing::CheckGradient(bilinear);
  }
}

TEST(UpSamplingTest, ErrorsNameTheBadInput) {
  EXPECT_THAT(ShapeError({TShape{1, 2, 3}}),
              HasSubstr("UpSampling: input 0 has shape (1,2,3); inputs must be (batch, channel, "
                        "height, width)"));
  EXPECT_THAT(ShapeError({TShape{1, 2, 3, 3}, TShape{1, 2, 4, 4}}),
              HasSubstr("UpSampling: input 1 (1,2,4,4) cannot be upsampled to 6x6"));
  EXPECT_THAT(ShapeError({TShape{1, 2, 4, 4}, TShape{1, 2, 2, 4}}),
              HasSubstr("input 1 (1,2,2,4) cannot be upsampled to 8x8"));
  EXPECT_THAT(ShapeError({TShape{1, 2, 4, 4}, TShape{1, 3, 4, 4}}, "sum"),
              HasSubstr("multi_input_mode sum needs equal channels; input 1 (1,3,4,4) has 3"));
  EXPECT_THAT(ShapeError({TShape{1, 2, 4, 4}, TShape()}, "concat", "bilinear"),
              HasSubstr("UpSampling: bilinear takes data (batch, num_filter = 0, height, "
                        "width); the data is (1,2,4,4)"));
  EXPECT_THAT(ShapeError({TShape{1, 2, 0, 4}}), HasSubstr("height and width >= 1"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("UpSampling"), {{"scale", "2"}});
              }),
              HasSubstr("sample_type"));
}

}  // namespace
}  // namespace ops
