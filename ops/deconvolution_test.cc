// Deconvolution against a direct scatter of every input element through every kernel tap
// (any rank, stride, dilation, padding, adj, target_shape, groups), its write modes and
// numerical gradients, and its errors.
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"
#include "ops/testing/tap_pairs.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::TupleOf;
using testing::Values;

// Per spatial axis: kernel, stride, dilate, pad, adj.
struct Axis {
  int kernel, stride, dilate, pad, adj;
};

// out[n][f][i * stride - pad + k * dilate] += data[n][c][i] * weight[c][f - group start][k]
// for every input position i and tap k landing inside the output; plus bias[f].
Values DirectDeconvolution(const TShape& data_shape, const Values& data, const Values& weight,
                           const Values* bias, const std::vector<Axis>& axes, int filters,
                           int groups, const TShape& out_shape) {
  const int nd = static_cast<int>(axes.size());
  const int batch = data_shape[0], channels = data_shape[1];
  const int group_channels = channels / groups, group_filters = filters / groups;
  int in_size = 1, out_size = 1, kernel_size = 1;
  for (int a = 0; a < nd; ++a) {
    in_size *= data_shape[2 + a];
    out_size *= out_shape[2 + a];
    kernel_size *= axes[a].kernel;
  }
  Values result(static_cast<size_t>(batch) * filters * out_size);
  for (int n = 0; n < batch; ++n) {
    for (int f = 0; f < filters; ++f) {
      for (int o = 0; o < out_size; ++o) {
        result[(static_cast<size_t>(n) * filters + f) * out_size + o] = bias ? (*bias)[f] : 0;
      }
    }
    for (int c = 0; c < channels; ++c) {
      const int group = c / group_channels;
      for (int i = 0; i < in_size; ++i) {
        for (int k = 0; k < kernel_size; ++k) {
          int i_rest = i, k_rest = k, offset = 0;
          bool inside = true;
          for (int a = nd - 1, scale = 1; a >= 0; --a) {
            const int ia = i_rest % data_shape[2 + a], ka = k_rest % axes[a].kernel;
            i_rest /= data_shape[2 + a];
            k_rest /= axes[a].kernel;
            const int o = ia * axes[a].stride - axes[a].pad + ka * axes[a].dilate;
            inside = inside && o >= 0 && o < out_shape[2 + a];
            offset += o * scale;
            scale *= out_shape[2 + a];
          }
          if (!inside) continue;
          for (int fl = 0; fl < group_filters; ++fl) {
            const int f = group * group_filters + fl;
            result[(static_cast<size_t>(n) * filters + f) * out_size + offset] +=
                data[(static_cast<size_t>(n) * channels + c) * in_size + i] *
                weight[(static_cast<size_t>(c) * group_filters + fl) * kernel_size + k];
          }
        }
      }
    }
  }
  return result;
}

struct DeconvCase {
  std::string name;
  TShape data;
  std::vector<Axis> axes;
  int filters;
  int groups;
  bool no_bias;
  TShape expected_out;
};

class DeconvolutionTest : public ::testing::TestWithParam<DeconvCase> {};

TEST_P(DeconvolutionTest, MatchesDirectScatterWithGradients) {
  const DeconvCase& dc = GetParam();
  const int nd = static_cast<int>(dc.axes.size());
  TShape weight(static_cast<index_t>(nd + 2));
  weight[0] = dc.data[1];
  weight[1] = dc.filters / dc.groups;
  for (int a = 0; a < nd; ++a) weight[2 + a] = dc.axes[a].kernel;
  OpCase c{"Deconvolution",
           {{"kernel", TupleOf(dc.axes, &Axis::kernel)},
            {"stride", TupleOf(dc.axes, &Axis::stride)},
            {"dilate", TupleOf(dc.axes, &Axis::dilate)},
            {"pad", TupleOf(dc.axes, &Axis::pad)},
            {"adj", TupleOf(dc.axes, &Axis::adj)},
            {"num_filter", std::to_string(dc.filters)},
            {"num_group", std::to_string(dc.groups)},
            {"no_bias", dc.no_bias ? "True" : "False"}},
           {InputSpec{dc.data}, InputSpec{weight}}};
  if (!dc.no_bias) c.inputs.push_back(InputSpec{TShape{dc.filters}});
  const TShape out_shape = testing::InferOutputShapes(c)[0];
  EXPECT_EQ(out_shape, dc.expected_out);
  testing::CheckForwardOfSums(c, [&](const std::vector<Values>& in) {
    return std::vector<Values>{DirectDeconvolution(dc.data, in[0], in[1],
                                                   dc.no_bias ? nullptr : &in[2], dc.axes,
                                                   dc.filters, dc.groups, out_shape)};
  });
  testing::CheckWriteModes(c);
  testing::CheckStreamedForward(c);
  testing::CheckGradient(c);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DeconvolutionTest,
    ::testing::Values(
        DeconvCase{"deconv2d_3x3",
                   TShape{2, 3, 4, 5},
                   {{3, 1, 1, 0, 0}, {3, 1, 1, 0, 0}},
                   4,
                   1,
                   false,
                   TShape{2, 4, 6, 7}},
        DeconvCase{"deconv2d_stride2_pad1_adj1",
                   TShape{2, 2, 3, 4},
                   {{3, 2, 1, 1, 1}, {3, 2, 1, 1, 0}},
                   3,
                   1,
                   true,
                   TShape{2, 3, 6, 7}},
        DeconvCase{"deconv2d_4x4_stride2_groups",
                   TShape{1, 4, 3, 3},
                   {{4, 2, 1, 1, 0}, {4, 2, 1, 1, 0}},
                   6,
                   2,
                   false,
                   TShape{1, 6, 6, 6}},
        DeconvCase{"deconv2d_dilated",
                   TShape{1, 2, 3, 4},
                   {{3, 1, 2, 1, 0}, {2, 2, 3, 0, 1}},
                   2,
                   1,
                   false,
                   TShape{1, 2, 5, 11}},
        DeconvCase{"deconv2d_depthwise",
                   TShape{2, 3, 4, 4},
                   {{3, 1, 1, 1, 0}, {3, 1, 1, 1, 0}},
                   3,
                   3,
                   true,
                   TShape{2, 3, 4, 4}},
        // Groups of 9 channels: the CPU sums the weight gradient transposed (a packet wide).
        DeconvCase{"deconv2d_groups_of_9_channels",
                   TShape{2, 18, 3, 3},
                   {{3, 2, 1, 1, 0}, {3, 2, 1, 1, 0}},
                   4,
                   2,
                   false,
                   TShape{2, 4, 5, 5}},
        DeconvCase{"deconv1d", TShape{3, 2, 5}, {{3, 2, 1, 1, 1}}, 4, 1, false, TShape{3, 4, 10}},
        // 16 channels per group or more: the CPU runs these by output phase
        // (ops/deconvolution_phases.h), images shared out over the threads.
        DeconvCase{"phases_4x4_stride2",
                   TShape{3, 16, 5, 6},
                   {{4, 2, 1, 1, 0}, {4, 2, 1, 1, 0}},
                   5,
                   1,
                   false,
                   TShape{3, 5, 10, 12}},
        // Kernels shorter than the stride: residues without taps (bias only) and adj.
        DeconvCase{"phases_kernel_below_stride",
                   TShape{1, 16, 3, 4},
                   {{2, 3, 1, 0, 2}, {1, 2, 1, 0, 1}},
                   3,
                   1,
                   false,
                   TShape{1, 3, 10, 8}},
        // Padding past the stride: each residue's first outputs come from later inputs.
        DeconvCase{"phases_pad_past_stride",
                   TShape{2, 16, 4, 5},
                   {{5, 2, 1, 3, 1}, {3, 3, 1, 2, 0}},
                   4,
                   1,
                   true,
                   TShape{2, 4, 6, 11}},
        DeconvCase{"phases_groups",
                   TShape{2, 32, 3, 4},
                   {{3, 2, 1, 1, 0}, {3, 2, 1, 1, 0}},
                   6,
                   2,
                   false,
                   TShape{2, 6, 5, 7}},
        DeconvCase{"phases_stride1",
                   TShape{1, 16, 4, 4},
                   {{3, 1, 1, 1, 0}, {3, 1, 1, 1, 0}},
                   2,
                   1,
                   false,
                   TShape{1, 2, 4, 4}},
        // Filters per group in one or two whole strips (16 floats, 8 doubles): each phase by
        // tiles of output positions by filters (ops/position_tiles.h). A residue without taps
        // (the bias only), uneven phases and groups.
        DeconvCase{"phases_4x4_stride2_position_tiles",
                   TShape{2, 16, 5, 7},
                   {{4, 2, 1, 1, 0}, {4, 2, 1, 1, 1}},
                   16,
                   1,
                   false,
                   TShape{2, 16, 10, 15}},
        DeconvCase{"phases_kernel_below_stride_position_tiles",
                   TShape{1, 16, 3, 4},
                   {{1, 2, 1, 0, 1}, {8, 1, 1, 3, 0}},
                   16,
                   1,
                   false,
                   TShape{1, 16, 6, 5}},
        // 32 filters: a strip of AVX-512's 16-float packets (two of doubles); odd rows and
        // columns of output (adj) on each axis.
        DeconvCase{"phases_4x4_stride2_32_filters_position_tiles",
                   TShape{2, 16, 4, 5},
                   {{4, 2, 1, 1, 1}, {4, 2, 1, 1, 1}},
                   32,
                   1,
                   false,
                   TShape{2, 32, 9, 11}},
        // Two or three taps per phase (3x3 stride 2, 1x3 stride 1) and 128 filters (four strips
        // on AVX-512, eight on AVX2): still by tiles (deconvolution::kMaxTileFilters).
        DeconvCase{"phases_3x3_stride2_32_filters",
                   TShape{2, 16, 4, 5},
                   {{3, 2, 1, 1, 1}, {3, 2, 1, 1, 0}},
                   32,
                   1,
                   false,
                   TShape{2, 32, 8, 9}},
        DeconvCase{"phases_4x4_stride2_128_filters",
                   TShape{1, 16, 3, 4},
                   {{4, 2, 1, 1, 0}, {4, 2, 1, 1, 1}},
                   128,
                   1,
                   false,
                   TShape{1, 128, 6, 9}},
        // 32 channels or more a block of depth: the padded image's channels interleaved by 8
        // (PhasePlan::ChannelInterleave), with groups; 20 channels (not whole blocks of 8) and
        // 16 (blocks too short) stay planar.
        DeconvCase{"phases_4x4_stride2_interleaved_channels",
                   TShape{2, 32, 4, 5},
                   {{4, 2, 1, 1, 1}, {4, 2, 1, 1, 0}},
                   16,
                   1,
                   false,
                   TShape{2, 16, 9, 10}},
        DeconvCase{"phases_3x3_stride2_interleaved_channels_groups",
                   TShape{1, 80, 3, 4},
                   {{3, 2, 1, 1, 1}, {3, 2, 1, 1, 0}},
                   32,
                   2,
                   false,
                   TShape{1, 32, 6, 7}},
        DeconvCase{"phases_4x4_stride2_channels_not_interleaved",
                   TShape{1, 20, 3, 4},
                   {{4, 2, 1, 1, 0}, {4, 2, 1, 1, 1}},
                   16,
                   1,
                   false,
                   TShape{1, 16, 6, 9}},
        // One tap per phase (2x2 stride 2) and filters past kMaxTileFilters: by products per
        // phase (TiledGemm), the phases interleaved into the output.
        DeconvCase{"phases_2x2_stride2_products",
                   TShape{2, 16, 4, 5},
                   {{2, 2, 1, 0, 0}, {2, 2, 1, 0, 1}},
                   32,
                   1,
                   false,
                   TShape{2, 32, 8, 11}},
        DeconvCase{"phases_3x3_stride2_144_filters_products",
                   TShape{1, 16, 3, 4},
                   {{3, 2, 1, 1, 1}, {3, 2, 1, 1, 0}},
                   144,
                   1,
                   false,
                   TShape{1, 144, 6, 7}},
        DeconvCase{"phases_1x3_stride1_32_filters",
                   TShape{2, 16, 3, 7},
                   {{1, 1, 1, 0, 0}, {3, 1, 1, 1, 0}},
                   32,
                   1,
                   false,
                   TShape{2, 32, 3, 7}},
        DeconvCase{"phases_groups_position_tiles",
                   TShape{1, 32, 3, 4},
                   {{3, 2, 1, 1, 0}, {3, 2, 1, 1, 0}},
                   32,
                   2,
                   false,
                   TShape{1, 32, 5, 7}},
        // Stride 1 with 16 filters: the convolution's position tiles (ops/position_tiles.h).
        DeconvCase{"phases_stride1_position_tiles",
                   TShape{2, 16, 4, 9},
                   {{3, 1, 1, 1, 0}, {2, 1, 1, 0, 0}},
                   16,
                   1,
                   false,
                   TShape{2, 16, 4, 10}},
        DeconvCase{"phases_1d", TShape{2, 16, 7}, {{4, 2, 1, 1, 1}}, 3, 1, false, TShape{2, 3, 15}},
        // 3-d with one strip of filters: the forward by position tiles, a slice of output
        // depth at a time, all phases of its depth residue together. Strided on every axis, a
        // depth residue without taps (its slices are the bias), groups.
        DeconvCase{"phases_3d_stride2",
                   TShape{2, 16, 3, 3, 4},
                   {{4, 2, 1, 1, 0}, {3, 2, 1, 1, 1}, {4, 2, 1, 1, 1}},
                   32,
                   1,
                   false,
                   TShape{2, 32, 6, 6, 9}},
        DeconvCase{"phases_3d_depth_residue_without_taps",
                   TShape{1, 16, 3, 3, 4},
                   {{1, 2, 1, 0, 1}, {3, 1, 1, 1, 0}, {3, 1, 1, 1, 0}},
                   32,
                   1,
                   false,
                   TShape{1, 32, 6, 3, 4}},
        DeconvCase{"phases_3d_groups",
                   TShape{1, 32, 2, 3, 3},
                   {{2, 1, 1, 0, 0}, {4, 2, 1, 1, 0}, {4, 2, 1, 1, 1}},
                   64,
                   2,
                   false,
                   TShape{1, 64, 3, 6, 7}},
        DeconvCase{"phases_3d_interleaved_channels",
                   TShape{1, 32, 3, 3, 4},
                   {{4, 2, 1, 1, 0}, {3, 2, 1, 1, 1}, {4, 2, 1, 1, 1}},
                   16,
                   1,
                   false,
                   TShape{1, 16, 6, 6, 9}},
        DeconvCase{"deconv3d",
                   TShape{1, 2, 2, 3, 2},
                   {{2, 1, 1, 0, 0}, {3, 2, 1, 1, 1}, {2, 2, 1, 0, 0}},
                   2,
                   1,
                   false,
                   TShape{1, 2, 3, 6, 4}},
        // 3-d with whole strips of data channels: the backward by position tiles (the data
        // gradient) and tap tiles (the weight gradient), a slice of depth at a time.
        DeconvCase{"deconv3d_tiles_backward",
                   TShape{2, 32, 2, 3, 4},
                   {{2, 1, 1, 0, 0}, {3, 2, 1, 1, 1}, {2, 2, 1, 0, 0}},
                   4,
                   1,
                   false,
                   TShape{2, 4, 3, 6, 8}}),
    [](const ::testing::TestParamInfo<DeconvCase>& info) { return info.param.name; });

// A 2-d layer's gradients by direct sums over every input position and tap landing inside
// the output: dx[n][c][i] = sum og[n][f][o] * w[c][f][k], dw[c][f][k] = sum x[n][c][i] *
// og[n][f][o], o = i * stride - pad + k per axis.
std::vector<Values> DirectDeconvolutionGradients(const TShape& data_shape, const Values& data,
                                                 const Values& weight, const Values& og, int kernel,
                                                 int stride, int pad, const TShape& out_shape) {
  Values dx(data.size()), dw(weight.size());
  testing::ForEachTapPair(data_shape, out_shape, kernel, stride, pad,
                          [&](size_t i, size_t o, size_t w) {
                            dx[i] += og[o] * weight[w];
                            dw[w] += data[i] * og[o];
                          });
  return {dx, dw};
}

// The CPU's two backward paths against direct sums, float64 and float32: 24 data channels go
// over og's column matrix in chunks (20 filters of 64 x 64 outputs through a 4 x 4 kernel:
// chunks of 7, 7 and 6 in float64, 10 and 10 in float32), the data gradient summed over them;
// 32 (whole strips of either type) by position and tap tiles reading og in place.
TEST(DeconvolutionTest, BackwardMatchesDirectSums) {
  const int filters = 20;
  for (const index_t channels : {24, 32}) {
    SCOPED_TRACE("channels=" + std::to_string(channels));
    const TShape data{2, channels, 32, 32};
    const OpCase c{"Deconvolution",
                   {{"kernel", "(4,4)"},
                    {"stride", "(2,2)"},
                    {"pad", "(1,1)"},
                    {"num_filter", std::to_string(filters)}},
                   {InputSpec{data}, InputSpec{TShape{channels, filters, 4, 4}}}};
    const TShape out_shape = testing::InferOutputShapes(c)[0];
    ASSERT_EQ(out_shape, (TShape{2, filters, 64, 64}));
    std::mt19937_64 rng(5);
    const Values og = testing::RandomValues(static_cast<size_t>(out_shape.Size()), -1, 1, &rng);
    for (const int type_flag : {mshadow::kFloat64, mshadow::kFloat32}) {
      const std::vector<CpuTensor> inputs = testing::MakeInputs(c, type_flag);
      const Values x = testing::ToValues(inputs[0].blob()), w = testing::ToValues(inputs[1].blob());
      const std::vector<Values> expected =
          DirectDeconvolutionGradients(data, x, w, og, 4, 2, 1, out_shape);
      const std::vector<CpuTensor> grads = testing::Backward(c, inputs, {og});
      const double rtol = type_flag == mshadow::kFloat64 ? 1e-10 : 1e-4;
      testing::ExpectClose(expected[0], testing::ToValues(grads[0].blob()), rtol, rtol,
                           "data grad");
      testing::ExpectClose(expected[1], testing::ToValues(grads[1].blob()), rtol, rtol,
                           "weight grad");
    }
  }
}

// The phases by position tiles a band of rows at a time through all four phases and every
// block of depth (position_tiles::BandRows): 128 channels of 42 padded columns, bands of 3 of
// each phase's 9 rows.
TEST(DeconvolutionTest, PhasesInBandsOfRowsMatchTheDirectScatter) {
  const TShape data{1, 128, 9, 40};
  const std::vector<Axis> axes{{4, 2, 1, 1, 0}, {4, 2, 1, 1, 0}};
  const OpCase c{"Deconvolution",
                 {{"kernel", "(4,4)"},
                  {"stride", "(2,2)"},
                  {"pad", "(1,1)"},
                  {"num_filter", "32"},
                  {"no_bias", "False"}},
                 {InputSpec{data}, InputSpec{TShape{128, 32, 4, 4}}, InputSpec{TShape{32}}}};
  const TShape out_shape = testing::InferOutputShapes(c)[0];
  testing::CheckForwardOfSums(c, [&](const std::vector<Values>& in) {
    return std::vector<Values>{
        DirectDeconvolution(data, in[0], in[1], &in[2], axes, 32, 1, out_shape)};
  });
  testing::CheckWriteModes(c);
}

// MXNet 1.9.1's shapes: no bias by default; target_shape sets pad and adj.
TEST(DeconvolutionTest, ShapesAsInMXNet) {
  auto infer = [](std::map<std::string, std::string> kwargs) {
    return testing::InferOutputShapes(
        OpCase{"Deconvolution", kwargs, {InputSpec{TShape{1, 4, 5, 5}}, InputSpec{TShape()}}});
  };
  EXPECT_EQ(infer({{"kernel", "(3,3)"}, {"num_filter", "6"}})[0], (TShape{1, 6, 7, 7}));
  EXPECT_EQ(infer({{"kernel", "(3,3)"}, {"num_filter", "6"}, {"stride", "(2,2)"},
                   {"target_shape", "(10,10)"}})[0],
            (TShape{1, 6, 10, 10}));
  EXPECT_EQ(infer({{"kernel", "(3,3)"}, {"num_filter", "6"}, {"stride", "(2,2)"},
                   {"target_shape", "(9,8)"}})[0],
            (TShape{1, 6, 9, 8}));
  EXPECT_EQ(infer({{"kernel", "(3,3)"}, {"num_filter", "6"}, {"pad", "(3,3)"}})[0],
            (TShape{1, 6, 1, 1}));
}

// target_shape gives the same output as the pad and adj it stands for.
TEST(DeconvolutionTest, TargetShapeEqualsItsPadAndAdj) {
  const std::vector<InputSpec> inputs = {InputSpec{TShape{1, 2, 4, 4}},
                                         InputSpec{TShape{2, 3, 3, 3}}};
  const OpCase targeted{"Deconvolution",
                        {{"kernel", "(3,3)"}, {"num_filter", "3"}, {"stride", "(2,2)"},
                         {"target_shape", "(8,7)"}},
                        inputs};
  // full extent 2 * 3 + 3 = 9: 8 is pad 1, adj 1; 7 is pad 1, adj 0.
  const OpCase padded{"Deconvolution",
                      {{"kernel", "(3,3)"}, {"num_filter", "3"}, {"stride", "(2,2)"},
                       {"pad", "(1,1)"}, {"adj", "(1,0)"}},
                      inputs};
  const auto values = testing::MakeInputs(targeted, mshadow::kFloat64);
  EXPECT_EQ(testing::ToValues(testing::Forward(targeted, values)[0].blob()),
            testing::ToValues(testing::Forward(padded, values)[0].blob()));
}

TEST(DeconvolutionTest, BadParametersAndShapes) {
  auto infer = [](std::map<std::string, std::string> kwargs, TShape data) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes(
          OpCase{"Deconvolution", kwargs, {InputSpec{data}, InputSpec{TShape()}}});
    });
  };
  EXPECT_THAT(infer({{"kernel", "(3,3)"}, {"num_filter", "6"}, {"stride", "(2,2)"},
                     {"adj", "(2,2)"}},
                    TShape{1, 4, 5, 5}),
              HasSubstr("Deconvolution: adj 2 on spatial axis 0 must be smaller than its "
                        "stride 2"));
  EXPECT_THAT(infer({{"kernel", "(3,3)"}, {"num_filter", "6"}, {"stride", "(2,2)"},
                     {"target_shape", "(20,20)"}},
                    TShape{1, 4, 5, 5}),
              HasSubstr("target_shape (20,20) asks for 20 positions on spatial axis 0; valid: "
                        "1 to 11 for data (1,4,5,5)"));
  EXPECT_THAT(infer({{"kernel", "(3,3)"}, {"num_filter", "6"}, {"target_shape", "(5,)"}},
                    TShape{1, 4, 5, 5}),
              HasSubstr("target_shape (5,) has 1 entries but the kernel has 2 spatial axes"));
  EXPECT_THAT(infer({{"kernel", "(3,3)"}, {"num_filter", "6"}, {"pad", "(4,4)"}},
                    TShape{1, 4, 5, 5}),
              HasSubstr("pad 4 on spatial axis 0 leaves no output positions (-1)"));
  EXPECT_THAT(infer({{"kernel", "(3,3)"}, {"num_filter", "6"}, {"num_group", "4"}},
                    TShape{1, 4, 5, 5}),
              HasSubstr("num_group 4 must divide both the input channels (4) and num_filter (6)"));
  EXPECT_THAT(infer({{"kernel", "(3,)"}, {"num_filter", "6"}}, TShape{1, 4, 5, 5}),
              HasSubstr("takes data of rank 3"));
  EXPECT_THAT(infer({{"kernel", "(3,3)"}, {"num_filter", "2"}, {"layout", "NHWC"}},
                    TShape{1, 5, 5, 1}),
              HasSubstr("channel-first layouts NCW, NCHW and NCDHW"));
}

}  // namespace
}  // namespace ops
