// _contrib_DeformableConvolution and _contrib_ModulatedDeformableConvolution against MXNet
// 1.9.1's printed values (and v1's gradients; MXNet's CPU build has no v2 backward) with
// samples outside the image, near and in its last row and column, against Convolution where
// every offset is 0 (and every mask 1), their gradients against central differences, the GPU's
// atomic data-gradient items against the CPU's planes, write modes, and the shapes and
// parameters they refuse.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/deformable_convolution-inl.h"
#include "ops/invoke.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

using Kw = std::map<std::string, std::string>;

Values Wave(size_t count, double step, bool cosine) {
  Values v;
  for (size_t i = 0; i < count; ++i) {
    const double x = step * static_cast<double>(i);
    v.push_back(static_cast<float>(cosine ? std::cos(x) : std::sin(x)));
  }
  return v;
}

// The Python probe's case: (1, 2, 4, 5) data, 2 filters of 3x3 with pad 1, offsets moving
// five samples: output (0, 0)'s centre tap into the last row, (1, 1)'s first tap outside,
// (2, 3)'s last tap into the last row, (3, 4)'s tap 5 into the last row and column.
OpCase MxnetCase() {
  Values offset(18 * 20, 0.0);
  const auto set = [&](int channel, int y, int x, double v) {
    offset[channel * 20 + y * 5 + x] = v;
  };
  set(8, 0, 0, 3.5), set(9, 0, 0, 2.25), set(0, 1, 1, -0.2), set(1, 1, 1, 0.5);
  set(16, 2, 3, 0.3), set(17, 2, 3, -0.6), set(10, 3, 4, 0.25), set(11, 3, 4, -0.5);
  return {"_contrib_DeformableConvolution",
          {{"kernel", "(3,3)"}, {"num_filter", "2"}, {"pad", "(1,1)"}},
          {InputSpec::WithValues(TShape{1, 2, 4, 5}, Wave(40, 0.7, false)),
           InputSpec::WithValues(TShape{1, 18, 4, 5}, offset),
           InputSpec::WithValues(TShape{2, 2, 3, 3}, Wave(36, 0.3, true)),
           InputSpec::WithValues(TShape{2}, {0.1, -0.2})}};
}

TEST(DeformableConvolutionTest, MxnetsValuesAndGradients) {
  const OpCase c = MxnetCase();
  const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat32);
  const Values out = testing::ToValues(testing::Forward(c, in)[0].blob());
  testing::ExpectClose(
      Values{-0.4866527,  0.16820675, 1.67661774,  2.44352055,  1.82295215,  -1.24679363,
             -0.50178653, -0.3852223, 0.85513008,  1.00497985,  1.30835295,  1.14282787,
             -0.05886448, -0.866529,  -1.02374017, 0.4397794,   0.9541809,   1.30390477,
             1.08741367,  0.2531158,  -0.88728249, -0.11718362, 0.66220927,  1.03609145,
             0.51648897,  -0.6627442, 0.10527532,  0.66152304,  1.05383968,  0.51704472,
             -0.02001052, -0.7023976, -1.33071411, -1.4955653,  -0.74036813, -0.46623635,
             -0.71848065, -1.0147721, -0.92786354, -0.90646994},
      out, 1e-5, 1e-6, "forward");
  const std::vector<CpuTensor> grads = testing::Backward(c, in, {Wave(40, 0.5, true)});
  testing::ExpectClose(
      Values{0.1375576,   -0.85764331, -0.50930762, -0.03627556, 0.1444859,   -0.61008698,
             -0.51974756, 0.25462025,  0.96664792,  0.75031418,  1.1583302,   1.30361879,
             0.72375453,  -0.03331006, -0.11042958, -0.25889099, -0.4044123,  -0.74229646,
             -0.88943225, 0.93636853,  -0.07872263, 0.93689221,  0.61163884,  0.13663497,
             -0.10969651, 0.28847051,  0.06217462,  -0.83219999, -1.52282262, -1.19322145,
             -1.06353748, -1.15676689, -0.32257324, 0.59059793,  0.59504831,  0.34756285,
             0.62675202,  0.8420074,   1.15930426,  -0.34361407},
      testing::ToValues(grads[0].blob()), 1e-5, 1e-6, "data gradient");
  const Values doff = testing::ToValues(grads[1].blob());
  const auto offset_grad = [&](int channel, int y, int x) {
    return doff[channel * 20 + y * 5 + x];
  };
  // In the last row the sample does not move along y; outside it does not move at all.
  EXPECT_NEAR(offset_grad(8, 0, 0), 0, 1e-7);
  EXPECT_NEAR(offset_grad(9, 0, 0), -0.25145066, 1e-5);
  EXPECT_EQ(offset_grad(0, 1, 1), 0);
  EXPECT_EQ(offset_grad(1, 1, 1), 0);
  EXPECT_NEAR(offset_grad(16, 2, 3), 0, 1e-7);
  EXPECT_NEAR(offset_grad(17, 2, 3), -0.59971315, 1e-5);
  EXPECT_NEAR(offset_grad(10, 3, 4), 0, 1e-7);
  EXPECT_NEAR(offset_grad(11, 3, 4), 0, 1e-7);
  EXPECT_NEAR(offset_grad(2, 1, 1), -0.45268753, 1e-5);
  const Values dw = testing::ToValues(grads[2].blob());
  testing::ExpectClose(Values{-5.73751831, -4.81556273, -3.69219136, 5.73397064, 4.29113626,
                              3.53712559, -4.9291153, -5.13371468},
                       Values(dw.begin(), dw.begin() + 8), 1e-5, 1e-6, "weight gradient");
  testing::ExpectClose(Values{-0.14574373, 2.22939444}, testing::ToValues(grads[3].blob()), 1e-5,
                       1e-6, "bias gradient");
}

// The v2 probe: the same data, weight and bias, masks 0.5 + 0.5 cos(0.9 i), offsets moving
// samples into the last row (and past it by half a pixel), within the pixel before the first
// row or column, and past it.
TEST(DeformableConvolutionTest, ModulatedAsMxnet) {
  Values offset(18 * 20, 0.0), mask(9 * 20);
  const auto set = [&](int channel, int y, int x, double v) {
    offset[channel * 20 + y * 5 + x] = v;
  };
  set(8, 0, 0, 3.5), set(9, 0, 0, 2.25), set(0, 1, 1, -0.7), set(1, 1, 1, 0.4);
  set(16, 2, 3, 1.5), set(17, 2, 3, -0.6), set(10, 3, 4, 0.25), set(11, 3, 4, -0.5);
  set(2, 1, 2, -1.3), set(7, 2, 0, -0.4), set(6, 2, 0, 0.3);
  for (size_t i = 0; i < mask.size(); ++i) mask[i] = 0.5 + 0.5 * std::cos(0.9 * i);
  const OpCase v1 = MxnetCase();
  const OpCase c{"_contrib_ModulatedDeformableConvolution",
                 v1.kwargs,
                 {v1.inputs[0], InputSpec::WithValues(TShape{1, 18, 4, 5}, offset),
                  InputSpec::WithValues(TShape{1, 9, 4, 5}, mask), v1.inputs[2], v1.inputs[3]}};
  const Values out =
      testing::ToValues(testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32))[0].blob());
  testing::ExpectClose(
      Values{0.46878824,  0.69705254,  0.46631753, 1.3003513,   1.52732,     0.43270195,
             -1.3294321,  -0.828147,   2.1931784,  0.2907981,   0.0187316,   0.21778989,
             1.3288306,   -0.7652087,  -2.262583,  0.36903805,  1.4025874,   -0.15480068,
             -1.3426465,  -0.03852842, 0.48965174, -0.45543915, -0.19230592, 1.9645314,
             1.2561772,   -0.10754461, -0.8440878, 1.3504857,   2.5107756,   -0.81636626,
             -0.34506342, 0.9492547,   0.672293,   -1.9602759,  -2.0011048,  0.5113768,
             0.56598425,  -1.7958834,  -2.120925,  -0.50347877},
      out, 1e-5, 1e-6, "forward");
}

struct Setting {
  Kw kw;
  TShape data, offset, weight;
  bool bias;
};

std::vector<Setting> Settings() {
  return {
      {{{"kernel", "(3,3)"}, {"num_filter", "3"}, {"pad", "(1,1)"}},
       TShape{2, 4, 5, 6},
       TShape{2, 18, 5, 6},
       TShape{3, 4, 3, 3},
       true},
      {{{"kernel", "(3,3)"},
        {"num_filter", "6"},
        {"num_group", "2"},
        {"num_deformable_group", "2"},
        {"stride", "(2,2)"},
        {"no_bias", "True"}},
       TShape{1, 4, 7, 6},
       TShape{1, 36, 3, 2},
       TShape{6, 2, 3, 3},
       false},
      {{{"kernel", "(2,2)"}, {"num_filter", "4"}, {"dilate", "(1,2)"}, {"pad", "(1,0)"}},
       TShape{2, 2, 6, 6},
       TShape{2, 8, 7, 4},
       TShape{4, 2, 2, 2},
       true},
  };
}

const char* const kV1 = "_contrib_DeformableConvolution";
const char* const kV2 = "_contrib_ModulatedDeformableConvolution";

// The case of operator `op` under setting s, its offsets (and v2's masks) as given.
OpCase CaseOf(const std::string& op, const Setting& s, const InputSpec& offset,
              const InputSpec& mask) {
  OpCase c{op, s.kw, {InputSpec{s.data}, offset}};
  if (op == kV2) c.inputs.push_back(mask);
  c.inputs.push_back(InputSpec{s.weight});
  if (s.bias) c.inputs.push_back(InputSpec{TShape{s.weight[0]}});
  return c;
}

TShape MaskShape(const TShape& offset) {
  return TShape{offset[0], offset[1] / 2, offset[2], offset[3]};
}

TEST(DeformableConvolutionTest, ZeroOffsetsConvolve) {
  for (const std::string op : {kV1, kV2}) {
    for (const Setting& s : Settings()) {
      SCOPED_TRACE(op + " " + s.kw.at("kernel") + " " + s.kw.at("num_filter"));
      const TShape mask = MaskShape(s.offset);
      const OpCase deformable =
          CaseOf(op, s, InputSpec::WithValues(s.offset, Values(s.offset.Size(), 0)),
                 InputSpec::WithValues(mask, Values(mask.Size(), 1)));
      const size_t weight = op == kV2 ? 3 : 2;
      Kw conv_kw = s.kw;
      conv_kw.erase("num_deformable_group");
      OpCase conv{"Convolution", conv_kw, {InputSpec{s.data}, InputSpec{s.weight}}};
      if (s.bias) conv.inputs.push_back(InputSpec{TShape{s.weight[0]}});
      const std::vector<CpuTensor> d_in = testing::MakeInputs(deformable, mshadow::kFloat64);
      std::vector<CpuTensor> c_in = testing::MakeInputs(conv, mshadow::kFloat64);
      for (size_t i = 0; i < c_in.size(); ++i) {
        const size_t from = i == 0 ? 0 : weight + i - 1;
        c_in[i] = testing::TensorOf(c_in[i].blob().shape_, mshadow::kFloat64,
                                    testing::ToValues(d_in[from].blob()));
      }
      const Values y = testing::ToValues(testing::Forward(deformable, d_in)[0].blob());
      testing::ExpectClose(testing::ToValues(testing::Forward(conv, c_in)[0].blob()), y, 1e-12,
                           1e-12, "forward");
      const Values og = Wave(y.size(), 0.37, true);
      const std::vector<CpuTensor> dg = testing::Backward(deformable, d_in, {og});
      const std::vector<CpuTensor> cg = testing::Backward(conv, c_in, {og});
      for (size_t i = 0; i < cg.size(); ++i) {
        const size_t from = i == 0 ? 0 : weight + i - 1;
        testing::ExpectClose(testing::ToValues(cg[i].blob()), testing::ToValues(dg[from].blob()),
                             1e-12, 1e-12, "gradient " + std::to_string(i));
      }
    }
  }
}

// Offsets in (0.05, 0.45) keep every sample off the grid's lines and off the image's edges
// (padding's grid points stay outside, or, in v2, within the pixel outside the image, where it
// is smooth too), where the interpolation is smooth, so central differences see its
// derivative.
TEST(DeformableConvolutionTest, GradientsAndWriteModes) {
  for (const std::string op : {kV1, kV2}) {
    for (const Setting& s : Settings()) {
      SCOPED_TRACE(op + " " + s.kw.at("kernel") + " " + s.kw.at("num_filter"));
      const OpCase c =
          CaseOf(op, s, InputSpec{s.offset, 0.05, 0.45}, InputSpec{MaskShape(s.offset)});
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
}

// The GPU's data gradient (an item a column element, atomics) runs here through
// Kernel<OP, cpu> against the CPU's items (a channel plane each), under both borders, with
// and without a mask.
template <deformable_convolution::Border kBorder>
void ExpectTheGpuItemsAgreeWithTheCpuPlanes(bool masked) {
  using deformable_convolution::DeformableLayout;
  const Setting s = Settings()[1];
  const NodeAttrs attrs = ParseAttrs(Op::Get(kV1), s.kw);
  const DeformableLayout l = deformable_convolution::LayoutOf(
      GetParam<deformable_convolution::DeformableConvolutionParam>(attrs), s.data);
  std::mt19937_64 rng(7);
  const Values col = testing::RandomValues(l.ColRows() * l.OutSize(), -1, 1, &rng);
  const Values offset = testing::RandomValues(s.offset.Size() / s.offset[0], -2, 2, &rng);
  const Values mask = testing::RandomValues(offset.size() / 2, -1, 1, &rng);
  const double* m = masked ? mask.data() : nullptr;
  Values planes(l.channels * l.InSize(), 0.0), atomics(planes.size(), 0.0);
  Kernel<deformable_convolution::deformable_col2im_plane<kBorder>, cpu>::LaunchItems(
      nullptr, l.channels, 1, l, col.data(), offset.data(), m, planes.data());
  Kernel<deformable_convolution::deformable_col2im_atomic<kBorder>, cpu>::Launch(
      nullptr, l.ColRows() * l.OutSize(), l, col.data(), offset.data(), m, atomics.data());
  testing::ExpectClose(planes, atomics, 1e-12, 1e-12, "data gradient");
}

TEST(DeformableConvolutionTest, TheGpuItemsAgreeWithTheCpuPlanes) {
  using deformable_convolution::Border;
  ExpectTheGpuItemsAgreeWithTheCpuPlanes<Border::kClampLast>(false);
  ExpectTheGpuItemsAgreeWithTheCpuPlanes<Border::kZeroOutside>(true);
}

TEST(DeformableConvolutionTest, BadShapesAndParametersAreNamed) {
  const auto error_of = [](const TShape& data, const TShape& offset, const Kw& kw) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes(
          {"_contrib_DeformableConvolution",
           kw,
           {InputSpec{data}, InputSpec{offset}, InputSpec{TShape{3, 4, 3, 3}}}});
    });
  };
  const Kw kw = {{"kernel", "(3,3)"}, {"num_filter", "3"}, {"pad", "(1,1)"}, {"no_bias", "True"}};
  EXPECT_THAT(error_of(TShape{2, 4, 5, 6}, TShape{2, 9, 5, 6}, kw),
              HasSubstr("offset (2,9,5,6) must be (2,18,5,6)"));
  Kw bad = kw;
  bad["kernel"] = "(3,3,3)";
  EXPECT_THAT(error_of(TShape{2, 4, 5, 6, 7}, TShape{2, 54, 5, 6, 7}, bad),
              HasSubstr("kernel (3,3,3) must be 2-d"));
  bad = kw;
  bad["num_deformable_group"] = "3";
  EXPECT_THAT(error_of(TShape{2, 4, 5, 6}, TShape{2, 54, 5, 6}, bad),
              HasSubstr("num_deformable_group 3 the input channels"));
  bad = kw;
  bad["layout"] = "NCW";
  EXPECT_THAT(error_of(TShape{2, 4, 5, 6}, TShape{2, 18, 5, 6}, bad),
              HasSubstr("NCHW layout only"));
  bad = kw;
  bad["im2col_step"] = "0";
  EXPECT_THAT(testing::ErrorOf([&] {
                testing::InferOutputShapes(
                    {kV2,
                     bad,
                     {InputSpec{TShape{2, 4, 5, 6}}, InputSpec{TShape{2, 18, 5, 6}},
                      InputSpec{TShape{2, 9, 5, 6}}, InputSpec{TShape{3, 4, 3, 3}}}});
              }),
              HasSubstr("im2col_step"));
  EXPECT_THAT(testing::ErrorOf([&] {
                testing::InferOutputShapes(
                    {kV2,
                     kw,
                     {InputSpec{TShape{2, 4, 5, 6}}, InputSpec{TShape{2, 18, 5, 6}},
                      InputSpec{TShape{2, 18, 5, 6}}, InputSpec{TShape{3, 4, 3, 3}}}});
              }),
              HasSubstr("mask (2,18,5,6) must be (2,9,5,6): a factor for each of the 9 taps"));
  bad = kw;
  bad.erase("pad");
  bad["kernel"] = "(7,3)";
  EXPECT_THAT(error_of(TShape{2, 4, 5, 6}, TShape{2, 42, 1, 4}, bad),
              HasSubstr("larger than the padded input"));
}

}  // namespace
}  // namespace ops
