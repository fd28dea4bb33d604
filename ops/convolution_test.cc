// Convolution against a direct loop over every output and kernel tap (any rank, stride,
// dilation, padding, groups), its write modes and numerical gradients, and its errors.
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"
#include "ops/depthwise_convolution.h"
#include "ops/testing/op_test_util.h"
#include "ops/testing/tap_pairs.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::TupleOf;
using testing::Values;

// Per spatial axis: kernel, stride, dilate, pad.
struct Axis {
  int kernel, stride, dilate, pad;
};

// out[n][f][o...] = bias[f] + sum over c in f's group and kernel taps k of
// data[n][c][o * stride - pad + k * dilate] * weight[f][c - group start][k].
Values DirectConvolution(const TShape& data_shape, const Values& data, const Values& weight,
                         const Values* bias, const std::vector<Axis>& axes, int filters, int groups,
                         const TShape& out_shape) {
  const int nd = static_cast<int>(axes.size());
  const int batch = data_shape[0], channels = data_shape[1];
  const int group_channels = channels / groups, group_filters = filters / groups;
  std::vector<int> in(nd), out(nd);
  int in_size = 1, out_size = 1, kernel_size = 1;
  for (int a = 0; a < nd; ++a) {
    in[a] = data_shape[2 + a];
    out[a] = out_shape[2 + a];
    in_size *= in[a];
    out_size *= out[a];
    kernel_size *= axes[a].kernel;
  }
  Values result(static_cast<size_t>(batch) * filters * out_size);
  for (int n = 0; n < batch; ++n) {
    for (int f = 0; f < filters; ++f) {
      const int c0 = f / group_filters * group_channels;
      for (int o = 0; o < out_size; ++o) {
        double sum = bias ? (*bias)[f] : 0.0;
        for (int c = 0; c < group_channels; ++c) {
          for (int k = 0; k < kernel_size; ++k) {
            int o_rest = o, k_rest = k, offset = 0;
            bool inside = true;
            for (int a = nd - 1, scale = 1; a >= 0; --a) {
              const int oa = o_rest % out[a], ka = k_rest % axes[a].kernel;
              o_rest /= out[a];
              k_rest /= axes[a].kernel;
              const int x = oa * axes[a].stride - axes[a].pad + ka * axes[a].dilate;
              inside = inside && x >= 0 && x < in[a];
              offset += x * scale;
              scale *= in[a];
            }
            if (!inside) continue;
            sum += data[(static_cast<size_t>(n) * channels + c0 + c) * in_size + offset] *
                   weight[(static_cast<size_t>(f) * group_channels + c) * kernel_size + k];
          }
        }
        result[(static_cast<size_t>(n) * filters + f) * out_size + o] = sum;
      }
    }
  }
  return result;
}

// The forward of c (a one-group Convolution of inputs data, weight and bias, `filters`
// filters) against the direct loop.
void CheckForwardMatchesDirectLoop(const OpCase& c, const std::vector<Axis>& axes, int filters) {
  const TShape& data = c.inputs[0].shape;
  const TShape out_shape = testing::InferOutputShapes(c)[0];
  testing::CheckForwardOfSums(c, [&](const std::vector<Values>& in) {
    return std::vector<Values>{
        DirectConvolution(data, in[0], in[1], &in[2], axes, filters, 1, out_shape)};
  });
}

struct ConvCase {
  std::string name;
  TShape data;
  std::vector<Axis> axes;
  int filters;
  int groups;
  bool no_bias;
};

class ConvolutionTest : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvolutionTest, MatchesDirectLoopWithGradients) {
  const ConvCase& cc = GetParam();
  const int nd = static_cast<int>(cc.axes.size());
  TShape weight(static_cast<index_t>(nd + 2));
  weight[0] = cc.filters;
  weight[1] = cc.data[1] / cc.groups;
  for (int a = 0; a < nd; ++a) weight[2 + a] = cc.axes[a].kernel;
  OpCase c{"Convolution",
           {{"kernel", TupleOf(cc.axes, &Axis::kernel)},
            {"stride", TupleOf(cc.axes, &Axis::stride)},
            {"dilate", TupleOf(cc.axes, &Axis::dilate)},
            {"pad", TupleOf(cc.axes, &Axis::pad)},
            {"num_filter", std::to_string(cc.filters)},
            {"num_group", std::to_string(cc.groups)},
            {"no_bias", cc.no_bias ? "True" : "False"}},
           {InputSpec{cc.data}, InputSpec{weight}}};
  if (!cc.no_bias) c.inputs.push_back(InputSpec{TShape{cc.filters}});
  const TShape out_shape = testing::InferOutputShapes(c)[0];
  testing::CheckForwardOfSums(c, [&](const std::vector<Values>& in) {
    return std::vector<Values>{DirectConvolution(cc.data, in[0], in[1],
                                                 cc.no_bias ? nullptr : &in[2], cc.axes, cc.filters,
                                                 cc.groups, out_shape)};
  });
  testing::CheckWriteModes(c);
  testing::CheckStreamedForward(c);
  testing::CheckGradient(c);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvolutionTest,
    ::testing::Values(
        ConvCase{"conv2d_3x3_pad1", TShape{2, 3, 5, 6}, {{3, 1, 1, 1}, {3, 1, 1, 1}}, 4, 1, false},
        // 3x3, stride 1: the CPU runs these (and, for pad <= 2, their data gradients) by
        // Winograd's F(2x2, 3x3), odd output extents and all-padding tiles included (5 channels:
        // the position lanes take layers of 1 to 4).
        ConvCase{"conv2d_3x3_pad0_odd_extents",
                 TShape{1, 5, 7, 8},
                 {{3, 1, 1, 0}, {3, 1, 1, 0}},
                 3,
                 1,
                 true},
        ConvCase{
            "conv2d_3x3_pad2_pad1", TShape{2, 5, 6, 5}, {{3, 1, 1, 2}, {3, 1, 1, 1}}, 2, 1, false},
        ConvCase{"conv2d_3x3_pad3", TShape{1, 5, 4, 3}, {{3, 1, 1, 3}, {3, 1, 1, 3}}, 2, 1, false},
        // Two chunks of images (3 of 289 tiles each, then 1) through every gradient.
        ConvCase{"conv2d_3x3_two_chunks",
                 TShape{4, 5, 33, 33},
                 {{3, 1, 1, 1}, {3, 1, 1, 1}},
                 2,
                 1,
                 false},
        // Blocks of whole tile rows (as many as keep 2^18 elements of transformed inputs and
        // products: about 470 tiles at these channels): rows of 265 tiles, one to a block (the
        // last packets of each row past its end); 30 rows of 18 tiles, blocks of 26 and 4 (the
        // data gradient's 30 rows of 19, blocks of 23 and 7: 5 channels out).
        ConvCase{"conv2d_3x3_wide_rows",
                 TShape{1, 5, 3, 530},
                 {{3, 1, 1, 1}, {3, 1, 1, 1}},
                 2,
                 1,
                 false},
        ConvCase{"conv2d_3x3_two_blocks",
                 TShape{2, 5, 60, 37},
                 {{3, 1, 1, 1}, {3, 1, 1, 0}},
                 3,
                 1,
                 false},
        // More than 8 channels and filters: the point products' 8-row tiles and the rows left.
        ConvCase{"conv2d_3x3_9_to_10_channels",
                 TShape{1, 9, 5, 4},
                 {{3, 1, 1, 1}, {3, 1, 1, 1}},
                 10,
                 1,
                 false},
        ConvCase{
            "conv2d_stride2_no_bias", TShape{2, 2, 7, 6}, {{3, 2, 1, 0}, {2, 2, 1, 1}}, 3, 1, true},
        ConvCase{"conv2d_dilated", TShape{1, 2, 7, 7}, {{3, 1, 2, 2}, {3, 1, 2, 1}}, 2, 1, false},
        ConvCase{"conv2d_groups", TShape{2, 4, 5, 5}, {{3, 1, 1, 1}, {3, 2, 1, 0}}, 6, 2, false},
        ConvCase{"conv2d_depthwise", TShape{1, 3, 4, 5}, {{3, 1, 1, 1}, {3, 1, 1, 1}}, 3, 3, false},
        // Depthwise layers, a padded plane at a time on the CPU (ops/depthwise_convolution.h):
        // rows of packets and a remainder, strides 2 and 3, dilation, uneven pads and kernels.
        ConvCase{
            "depthwise_3x3_wide", TShape{2, 4, 9, 37}, {{3, 1, 1, 1}, {3, 1, 1, 1}}, 4, 4, false},
        ConvCase{
            "depthwise_3x3_stride2", TShape{2, 3, 9, 20}, {{3, 2, 1, 1}, {3, 2, 1, 1}}, 3, 3, true},
        ConvCase{"depthwise_5x3_dilated_stride3",
                 TShape{1, 2, 12, 13},
                 {{5, 1, 2, 3}, {3, 3, 1, 0}},
                 2,
                 2,
                 false},
        // Odd rows past two blocks of lanes a phase; dilation 2 at stride 2 leaves one column
        // phase without taps (its data gradient zero).
        ConvCase{"depthwise_stride2_dilated_odd_wide",
                 TShape{1, 2, 7, 141},
                 {{3, 2, 1, 1}, {4, 2, 2, 1}},
                 2,
                 2,
                 true},
        // Every tap lands in the padding: the data gradient is zero.
        ConvCase{"depthwise_taps_only_in_padding",
                 TShape{1, 2, 3, 2},
                 {{1, 1, 1, 0}, {1, 3, 1, 1}},
                 2,
                 2,
                 false},
        // Stride 1 with pads past the kernel's reach (shifts below zero in the gather).
        ConvCase{"depthwise_pads_past_kernel",
                 TShape{2, 3, 4, 5},
                 {{3, 1, 1, 3}, {2, 1, 1, 2}},
                 3,
                 3,
                 false},
        ConvCase{"conv2d_1x1", TShape{2, 5, 3, 4}, {{1, 1, 1, 0}, {1, 1, 1, 0}}, 4, 1, false},
        ConvCase{
            "conv2d_1x1_groups", TShape{3, 6, 3, 5}, {{1, 1, 1, 0}, {1, 1, 1, 0}}, 4, 2, false},
        ConvCase{
            "conv2d_stride3_pad2", TShape{1, 2, 8, 9}, {{2, 3, 1, 2}, {3, 3, 1, 2}}, 2, 1, false},
        ConvCase{"conv1d", TShape{3, 2, 9}, {{3, 2, 1, 1}}, 4, 1, false},
        // 16 channels per group or more, stride 1, no Winograd: the CPU's forward is one
        // product of the taps over the padded input (ops/deconvolution_phases.h).
        ConvCase{"taps_5x5_pad2", TShape{3, 16, 6, 7}, {{5, 1, 1, 2}, {5, 1, 1, 2}}, 4, 1, false},
        ConvCase{"taps_3x3_groups", TShape{2, 32, 5, 6}, {{3, 1, 1, 1}, {3, 1, 1, 1}}, 6, 2, false},
        ConvCase{"taps_1x1", TShape{2, 16, 3, 4}, {{1, 1, 1, 0}, {1, 1, 1, 0}}, 5, 1, true},
        // Whole strips of filters per group and no padding: the tap weight gradient reads the
        // input in place (tap_gradient::WeightGradient), 3x1 and 1x1.
        ConvCase{"taps_unpadded_groups", TShape{2, 16, 3, 5}, {{3, 1, 1, 0}, {1, 1, 1, 0}}, 64, 2,
                 false},
        ConvCase{
            "taps_unpadded_1x1", TShape{2, 8, 3, 5}, {{1, 1, 1, 0}, {1, 1, 1, 0}}, 32, 1, true},
        ConvCase{"taps_uneven_kernel_and_pad",
                 TShape{1, 16, 5, 7},
                 {{2, 1, 1, 0}, {4, 1, 1, 3}},
                 3,
                 1,
                 false},
        ConvCase{"taps_1d", TShape{2, 16, 9}, {{4, 1, 1, 1}}, 3, 1, false},
        // 1-d with whole strips of channels and filters: forward and data gradient by the
        // product starting from the bias (no tiles for one output row), outputs in two-packet
        // and one-packet strips and a scalar tail.
        ConvCase{"taps_1d_strips", TShape{2, 32, 53}, {{3, 1, 1, 1}}, 64, 1, false},
        // Rows at least a strip wide (16 floats): strips within one output row are read in
        // place, those across two gathered; outputs ending in a packet and a scalar tail.
        ConvCase{
            "taps_5x5_wide_rows", TShape{1, 16, 7, 20}, {{5, 1, 1, 2}, {5, 1, 1, 2}}, 7, 1, false},
        ConvCase{"taps_3x3_groups_wide_rows",
                 TShape{2, 32, 3, 19},
                 {{3, 1, 1, 0}, {3, 1, 1, 1}},
                 4,
                 2,
                 true},
        // Filters per group in whole strips (16 floats and 8 doubles on AVX2), up to 128, two
        // taps or more: tiles of output positions by filters (ops/position_tiles.h), rows of 15
        // (tiles of 6, 5 and 4 positions), 7 (4 and 3) and 2, with and without bias.
        ConvCase{
            "position_tiles_5x5", TShape{2, 16, 7, 15}, {{5, 1, 1, 2}, {5, 1, 1, 2}}, 32, 1, false},
        ConvCase{"position_tiles_3x3_groups",
                 TShape{1, 32, 4, 9},
                 {{3, 1, 1, 1}, {3, 1, 1, 0}},
                 32,
                 2,
                 true},
        // More than 64 channels: two blocks of depth, the second adding to the first's sums.
        ConvCase{"position_tiles_channel_blocks",
                 TShape{1, 80, 5, 6},
                 {{5, 1, 1, 2}, {3, 1, 1, 1}},
                 32,
                 1,
                 false},
        ConvCase{"position_tiles_narrow_rows",
                 TShape{1, 16, 6, 3},
                 {{3, 1, 1, 1}, {2, 1, 1, 0}},
                 16,
                 1,
                 false},
        // 16 filters per group or more: the CPU's data gradient is the deconvolution of the
        // output gradient by output phase (ops/deconvolution_phases.h). Strided, with input
        // rows and columns no output reads (their gradient zero), grouped, 1-d; and 3x3 layers
        // of one strip of channels and filters (16 doubles, 32 floats on AVX-512), whose
        // forward and data gradient take position tiles there instead of Winograd.
        ConvCase{"phase_data_gradient_stride2",
                 TShape{2, 3, 8, 9},
                 {{3, 2, 1, 0}, {3, 2, 1, 1}},
                 16,
                 1,
                 false},
        ConvCase{"phase_data_gradient_groups",
                 TShape{1, 4, 7, 6},
                 {{4, 2, 1, 1}, {3, 1, 1, 1}},
                 32,
                 2,
                 true},
        ConvCase{"phase_data_gradient_1d", TShape{2, 2, 11}, {{5, 3, 1, 2}}, 16, 1, false},
        ConvCase{"tiles_3x3_16", TShape{2, 16, 6, 7}, {{3, 1, 1, 1}, {3, 1, 1, 1}}, 16, 1, false},
        ConvCase{"tiles_3x3_32", TShape{1, 32, 5, 6}, {{3, 1, 1, 1}, {3, 1, 1, 1}}, 32, 1, false},
        // Strided or dilated with whole strips of filters: the forward by position tiles
        // reading the padded input with the strides (a step of 2 and one of 3 along rows).
        ConvCase{
            "strided_tiles_step2", TShape{2, 5, 9, 11}, {{3, 2, 1, 1}, {4, 2, 1, 2}}, 32, 1, false},
        ConvCase{"strided_tiles_step3_dilated",
                 TShape{1, 6, 8, 13},
                 {{2, 1, 2, 1}, {3, 3, 2, 2}},
                 64,
                 2,
                 false},
        // 32 channels a block of depth: the padded input's channels interleaved by 8
        // (position_tiles::ChannelInterleave), at a column step of 2 (an element step of 16)
        // and, 3-d, dilated in groups.
        ConvCase{"strided_tiles_interleaved_channels",
                 TShape{2, 32, 9, 11},
                 {{3, 2, 1, 1}, {3, 2, 1, 1}},
                 16,
                 1,
                 false},
        ConvCase{"tiles_3d_interleaved_channels_dilated_groups",
                 TShape{1, 64, 3, 7, 9},
                 {{1, 1, 1, 0}, {3, 1, 2, 2}, {3, 2, 1, 1}},
                 32,
                 2,
                 false},
        ConvCase{"conv1d_dilated_groups", TShape{2, 4, 10}, {{2, 1, 3, 0}}, 2, 2, true},
        // Pad past the kernel's reach: the tiles skip the kernel rows that read pad rows, and
        // the first and last output rows read none (they are the bias).
        ConvCase{"strided_tiles_rows_of_pad_only",
                 TShape{2, 3, 5, 6},
                 {{2, 2, 2, 3}, {3, 1, 1, 1}},
                 32,
                 1,
                 false},
        // 3-d with whole strips of filters: the forward by position tiles, a slice of output
        // depth at a time, taps reaching across the padded input's depth.
        ConvCase{"tiles_3d",
                 TShape{2, 3, 4, 5, 6},
                 {{3, 1, 1, 1}, {2, 1, 1, 0}, {3, 1, 1, 1}},
                 32,
                 1,
                 false},
        // Depth pad past the kernel's reach: slices of output depth whose taps read pad
        // slices only (the bias) or some of them, rows likewise.
        ConvCase{"tiles_3d_slices_of_pad_only",
                 TShape{1, 3, 3, 4, 5},
                 {{2, 1, 2, 3}, {3, 1, 1, 3}, {3, 1, 1, 1}},
                 32,
                 1,
                 false},
        // ... and with whole strips of data channels at stride 1, the data gradient too, as
        // the convolution of the output gradient by the flipped kernels.
        ConvCase{"tiles_3d_data_gradient_dilated",
                 TShape{1, 32, 4, 5, 7},
                 {{3, 1, 1, 1}, {2, 1, 1, 1}, {3, 1, 2, 3}},
                 32,
                 1,
                 false},
        ConvCase{"tiles_3d_data_gradient_groups",
                 TShape{2, 64, 3, 4, 5},
                 {{2, 1, 1, 0}, {3, 1, 1, 2}, {1, 1, 1, 0}},
                 32,
                 2,
                 true},
        ConvCase{"tiles_3d_strided_dilated_groups",
                 TShape{1, 4, 6, 5, 7},
                 {{2, 2, 2, 1}, {3, 1, 1, 1}, {2, 3, 1, 1}},
                 64,
                 2,
                 true},
        // Strided 3-d with one strip of data channels: the data gradient by output phase, as
        // the deconvolution of the output gradient (a column of the input no output reads).
        ConvCase{"phase_data_gradient_3d",
                 TShape{1, 32, 4, 7, 6},
                 {{3, 1, 1, 1}, {4, 2, 1, 1}, {3, 2, 1, 0}},
                 16,
                 1,
                 false},
        // 3-d with a 3x3 kernel over the last two axes, stride 1 and no dilation there: the
        // CPU's forward by Winograd's F(2x2, 3x3) a slice of output depth at a time, the depth
        // taps input channels of its products; any depth stride and pad, slices that read pad
        // only (their transforms zeros, their outputs the bias) included.
        ConvCase{"winograd_3d",
                 TShape{2, 3, 4, 5, 6},
                 {{3, 1, 1, 1}, {3, 1, 1, 1}, {3, 1, 1, 1}},
                 5,
                 1,
                 false},
        ConvCase{"winograd_3d_depth_strided_pad_only_slices",
                 TShape{1, 2, 5, 4, 7},
                 {{2, 2, 1, 3}, {3, 1, 1, 2}, {3, 1, 1, 0}},
                 3,
                 1,
                 false},
        // ... and the data gradient too, at depth stride 1: the output gradient convolved
        // with the kernels flipped, its depth padded taps - 1 - pad (here 0), rows 0, columns 2.
        ConvCase{"winograd_3d_data_gradient_pads",
                 TShape{1, 3, 4, 5, 6},
                 {{2, 1, 1, 1}, {3, 1, 1, 2}, {3, 1, 1, 0}},
                 4,
                 1,
                 false},
        ConvCase{"winograd_3d_32_filters",
                 TShape{2, 4, 3, 6, 6},
                 {{3, 1, 1, 1}, {3, 1, 1, 1}, {3, 1, 1, 1}},
                 32,
                 1,
                 true},
        ConvCase{"conv3d",
                 TShape{2, 2, 4, 5, 4},
                 {{2, 1, 1, 0}, {3, 2, 1, 1}, {2, 1, 2, 1}},
                 3,
                 1,
                 false}),
    [](const ::testing::TestParamInfo<ConvCase>& info) { return info.param.name; });

// Small pointwise layers' forward and data gradient are a product per image, an image a thread
// (PointwiseForward, UsesPointwiseDataProduct): with groups, against the direct loop, in every
// write mode and against finite differences on 1, 2 and 3 threads; 17 positions an image,
// a packet and a part of one on every build.
TEST(ConvolutionTest, PointwiseProductsOnThreadsMatchDifferences) {
  const TShape data{3, 4, 1, 17};
  const OpCase c{"Convolution",
                 {{"kernel", "(1,1)"}, {"num_filter", "6"}, {"num_group", "2"}},
                 {InputSpec{data}, InputSpec{TShape{6, 2, 1, 1}}, InputSpec{TShape{6}}}};
  const std::vector<Axis> axes = {{1, 1, 1, 0}, {1, 1, 1, 0}};
  const TShape out_shape = testing::InferOutputShapes(c)[0];
  for (const int threads : {1, 2, 3}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    mshadow::SetNumThreads(threads);
    testing::CheckForwardOfSums(c, [&](const std::vector<Values>& in) {
      return std::vector<Values>{
          DirectConvolution(data, in[0], in[1], &in[2], axes, 6, 2, out_shape)};
    });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  mshadow::SetNumThreads(0);
}

// Stride-1 layers by tap products write an output larger than the caches through streaming
// stores (register_gemm::Stores): forced on here (any output size), on a 1x1 layer too large
// for the per-image BLAS product, a 5x5 layer of more filters than the position tiles take and
// a 1-d layer, each with whole-line rows (outputs of 64 and 4096 columns), on 1 and 2 threads;
// every write mode (adding goes through the caches).
TEST(ConvolutionTest, TapProductsThroughStreamingStoresMatchTheDirectLoop) {
  struct Layer {
    TShape data, weight;
    std::string kernel, pad;
    std::vector<Axis> axes;
  };
  const Layer layers[] = {
      {TShape{2, 16, 64, 64}, TShape{80, 16, 1, 1}, "(1,1)", "(0,0)", {{1, 1, 1, 0}, {1, 1, 1, 0}}},
      {TShape{2, 16, 8, 8}, TShape{144, 16, 5, 5}, "(5,5)", "(2,2)", {{5, 1, 1, 2}, {5, 1, 1, 2}}},
      {TShape{3, 16, 64}, TShape{40, 16, 3}, "(3,)", "(1,)", {{3, 1, 1, 1}}}};
  mshadow::SetStreamingStoreMinBytes(1);
  for (const Layer& l : layers) {
    const int filters = static_cast<int>(l.weight[0]);
    const OpCase c{"Convolution",
                   {{"kernel", l.kernel}, {"pad", l.pad}, {"num_filter", std::to_string(filters)}},
                   {InputSpec{l.data}, InputSpec{l.weight}, InputSpec{TShape{l.weight[0]}}}};
    for (const int threads : {1, 2}) {
      SCOPED_TRACE("kernel " + l.kernel + " threads=" + std::to_string(threads));
      mshadow::SetNumThreads(threads);
      CheckForwardMatchesDirectLoop(c, l.axes, filters);
      testing::CheckWriteModes(c);
    }
  }
  mshadow::SetNumThreads(0);
  mshadow::SetStreamingStoreMinBytes(0);
}

void CheckWinogradChunks() {
  const TShape data{5, 5, 40, 38};
  const std::vector<Axis> axes{{3, 1, 1, 1}, {3, 1, 1, 1}};
  const OpCase c{"Convolution",
                 {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "17"}},
                 {InputSpec{data}, InputSpec{TShape{17, 5, 3, 3}}, InputSpec{TShape{17}}}};
  CheckForwardMatchesDirectLoop(c, axes, 17);
  testing::CheckWriteModes(c);
}

// Images go through Winograd's gemms a few at a time (about 1024 tiles): several chunks, the
// last one short; on 1, 2 and 3 threads, which share the 5 images out unevenly.
TEST(ConvolutionTest, WinogradChunksOfImagesMatchTheDirectLoop) {
  for (const int threads : {1, 2, 3}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    mshadow::SetNumThreads(threads);
    CheckWinogradChunks();
  }
  mshadow::SetNumThreads(0);
}

// A 3-d layer by Winograd with one image and one block of tile rows: its output slices in
// runs, one a thread (each run transforming again the input slices it shares with the run
// before), on 1, 2 and 3 threads; depth pad 2 (the first and last output slices read one
// input slice).
TEST(ConvolutionTest, Winograd3dRunsOfSlicesOnThreadsMatchTheDirectLoop) {
  const TShape data{1, 3, 7, 6, 5};
  const std::vector<Axis> axes{{3, 1, 1, 2}, {3, 1, 1, 1}, {3, 1, 1, 1}};
  const OpCase c{"Convolution",
                 {{"kernel", "(3,3,3)"}, {"pad", "(2,1,1)"}, {"num_filter", "4"}},
                 {InputSpec{data}, InputSpec{TShape{4, 3, 3, 3, 3}}, InputSpec{TShape{4}}}};
  for (const int threads : {1, 2, 3}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    mshadow::SetNumThreads(threads);
    CheckForwardMatchesDirectLoop(c, axes, 4);
    testing::CheckWriteModes(c);
  }
  mshadow::SetNumThreads(0);
}

// A 3-d layer by Winograd with its depth taps' products in runs of one slot (128 filters of 64
// channels), two of three (64 of 64) and all three (8 of 8): winograd::Shape::ProductSlots.
TEST(ConvolutionTest, Winograd3dProductsOverRunsOfTapsMatchTheDirectLoop) {
  const std::vector<Axis> axes{{3, 1, 1, 1}, {3, 1, 1, 1}, {3, 1, 1, 1}};
  for (const auto& [channels, filters] : {std::pair<int, int>{64, 128}, {64, 64}, {8, 8}}) {
    SCOPED_TRACE("channels=" + std::to_string(channels) + " filters=" + std::to_string(filters));
    const TShape data{2, channels, 4, 5, 6};
    const OpCase c{
        "Convolution",
        {{"kernel", "(3,3,3)"}, {"pad", "(1,1,1)"}, {"num_filter", std::to_string(filters)}},
        {InputSpec{data}, InputSpec{TShape{filters, channels, 3, 3, 3}},
         InputSpec{TShape{filters}}}};
    CheckForwardMatchesDirectLoop(c, axes, filters);
  }
}

// Winograd's gradients with slots of images summed apart (3 images: 3 slots) on 1, 2 and 3
// threads.
TEST(ConvolutionTest, WinogradGradientsOnThreadsMatchDifferences) {
  const OpCase c{
      "Convolution",
      {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "3"}},
      {InputSpec{TShape{3, 5, 6, 7}}, InputSpec{TShape{3, 5, 3, 3}}, InputSpec{TShape{3}}}};
  for (const int threads : {1, 2, 3}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    mshadow::SetNumThreads(threads);
    testing::CheckGradient(c);
  }
  mshadow::SetNumThreads(0);
}

// Position tiles with their strips of filters on the library's threads (one image) and with
// the images shared out (three, five), the last ones by parts of their strips
// (ForEachImagePart: 64 filters are 2 or 4 strips), on 1, 2 and 3 threads.
TEST(ConvolutionTest, PositionTilesOnThreadsMatchTheDirectLoop) {
  const std::vector<Axis> axes{{5, 1, 1, 2}, {3, 1, 1, 1}};
  for (const index_t batch : {1, 3, 5}) {
    const TShape data{batch, 16, 6, 13};
    const OpCase c{"Convolution",
                   {{"kernel", "(5,3)"}, {"pad", "(2,1)"}, {"num_filter", "64"}},
                   {InputSpec{data}, InputSpec{TShape{64, 16, 5, 3}}, InputSpec{TShape{64}}}};
    for (const int threads : {1, 2, 3}) {
      SCOPED_TRACE("batch=" + std::to_string(batch) + " threads=" + std::to_string(threads));
      mshadow::SetNumThreads(threads);
      CheckForwardMatchesDirectLoop(c, axes, 64);
      testing::CheckWriteModes(c);
    }
  }
  mshadow::SetNumThreads(0);
}

// Position tiles a band of output rows at a time through every block of depth
// (position_tiles::BandRows): 128 channels of 32 padded columns, bands of 4 of the 9 rows.
TEST(ConvolutionTest, PositionTilesInBandsOfRowsMatchTheDirectLoop) {
  const TShape data{1, 128, 9, 30};
  const std::vector<Axis> axes{{5, 1, 1, 2}, {3, 1, 1, 1}};
  const OpCase c{"Convolution",
                 {{"kernel", "(5,3)"}, {"pad", "(2,1)"}, {"num_filter", "32"}},
                 {InputSpec{data}, InputSpec{TShape{32, 128, 5, 3}}, InputSpec{TShape{32}}}};
  CheckForwardMatchesDirectLoop(c, axes, 32);
  testing::CheckWriteModes(c);
}

// Position lanes (ops/position_lanes.h: 1 to 4 channels per group): rows that end in a short
// packet (37, 45, 50 outputs... of 16 lanes), tiles of filters past the last filter (10 = 8 +
// 2, 9, 3), column strides 1 to 3 (stride 2 from an odd and an even pad: the rows split in
// pairs; stride 3 with dilation: residue by residue), rows strided alone, 1-d layers, two
// groups, images of several bands (their rows split as the bands come to them, a part's
// from its first band's); on 1 to 3 threads (three images: shared out whole, the last ones
// by parts of their runs, a thread's split copied anew for another image; one image: its runs
// shared out), streamed and cached stores, every write mode.
TEST(ConvolutionTest, PositionLanesMatchTheDirectLoop) {
  struct Layer {
    TShape data;
    std::vector<Axis> axes;
    int filters, groups;
  };
  const Layer layers[] = {
      {TShape{3, 3, 9, 37}, {{3, 1, 1, 1}, {3, 1, 1, 1}}, 10, 1},
      {TShape{3, 4, 11, 45}, {{7, 2, 1, 3}, {7, 2, 1, 3}}, 9, 1},
      {TShape{3, 3, 10, 40}, {{5, 2, 1, 2}, {5, 2, 1, 2}}, 16, 1},
      {TShape{3, 2, 12, 41}, {{3, 1, 2, 1}, {3, 3, 2, 1}}, 3, 1},
      {TShape{3, 1, 13, 34}, {{3, 2, 1, 0}, {1, 1, 1, 0}}, 8, 1},
      {TShape{3, 2, 50}, {{5, 2, 1, 1}}, 12, 1},
      {TShape{3, 6, 7, 19}, {{3, 1, 1, 1}, {3, 2, 1, 1}}, 8, 2},
      {TShape{3, 3, 40, 70}, {{5, 2, 1, 2}, {5, 2, 1, 2}}, 16, 1},
      {TShape{3, 2, 80, 50}, {{3, 3, 2, 2}, {3, 3, 2, 2}}, 8, 2},
  };
  for (size_t i = 0; i < std::size(layers); ++i) {
    const Layer& l = layers[i];
    const int nd = static_cast<int>(l.axes.size());
    TShape weight(static_cast<index_t>(nd + 2));
    weight[0] = l.filters;
    weight[1] = l.data[1] / l.groups;
    for (int a = 0; a < nd; ++a) weight[2 + a] = l.axes[a].kernel;
    for (const index_t batch : {index_t{3}, index_t{1}}) {
      TShape data = l.data;
      data[0] = batch;
      const OpCase c{"Convolution",
                     {{"kernel", TupleOf(l.axes, &Axis::kernel)},
                      {"stride", TupleOf(l.axes, &Axis::stride)},
                      {"dilate", TupleOf(l.axes, &Axis::dilate)},
                      {"pad", TupleOf(l.axes, &Axis::pad)},
                      {"num_filter", std::to_string(l.filters)},
                      {"num_group", std::to_string(l.groups)}},
                     {InputSpec{data}, InputSpec{weight}, InputSpec{TShape{l.filters}}}};
      const TShape out_shape = testing::InferOutputShapes(c)[0];
      for (const int threads : {1, 2, 3}) {
        SCOPED_TRACE("layer " + std::to_string(i) + " batch=" + std::to_string(batch) +
                     " threads=" + std::to_string(threads));
        mshadow::SetNumThreads(threads);
        testing::CheckForwardOfSums(c, [&](const std::vector<Values>& in) {
          return std::vector<Values>{DirectConvolution(data, in[0], in[1], &in[2], l.axes,
                                                       l.filters, l.groups, out_shape)};
        });
        testing::CheckWriteModes(c);
        testing::CheckStreamedForward(c);
      }
    }
  }
  mshadow::SetNumThreads(0);
}

// Convolutions streaming their outputs to outputs that start off a cache line (NumPy's arrays
// start 16 bytes into one; a host's may start anywhere). The first layers' lanes: where rows
// are wide for their products (LeadToLines), each row's first positions up to a line a run of
// their own, the rest streamed; rows of whole lines at strides 1 and 2 with and without such
// leads, and a row shorter than a line. A 1x1 layer's tap product: the columns before each
// row's first line through the caches (ColumnsBeforeALine), its padded image as far into a
// line as the output (PaddedImageShift). testing::CheckStreamedOffALine: every element offset
// of a line, float and double, 1 and 2 threads.
TEST(ConvolutionTest, StreamsToOutputsOffALine) {
  struct Layer {
    TShape data;
    std::string kernel, stride, pad;
    int filters;
  };
  const Layer layers[] = {{TShape{2, 1, 6, 32}, "(3,3)", "(1,1)", "(1,1)", 10},
                          {TShape{1, 3, 4, 160}, "(3,3)", "(1,1)", "(1,1)", 8},
                          {TShape{2, 1, 9, 256}, "(5,5)", "(2,2)", "(2,2)", 8},
                          {TShape{2, 3, 6, 32}, "(3,3)", "(1,1)", "(1,1)", 10},
                          {TShape{2, 1, 5, 7}, "(3,3)", "(1,1)", "(1,1)", 4},
                          {TShape{1, 16, 64, 64}, "(1,1)", "(1,1)", "(0,0)", 80}};
  for (const Layer& l : layers) {
    TShape weight{l.filters, l.data[1], 0, 0};
    weight[2] = weight[3] = l.kernel[1] - '0';
    SCOPED_TRACE("kernel " + l.kernel + " width " + std::to_string(l.data[3]));
    testing::CheckStreamedOffALine({"Convolution",
                                    {{"kernel", l.kernel},
                                     {"stride", l.stride},
                                     {"pad", l.pad},
                                     {"num_filter", std::to_string(l.filters)}},
                                    {InputSpec{l.data}, InputSpec{weight},
                                     InputSpec{TShape{l.filters}}}});
  }
}

// The lanes' data gradients onto 1 to 4 channels per group, in float64 against differences;
// 1 and 2 threads. At stride 1 (position_lanes: the convolution of the output gradient with
// the kernels flipped): 3x3 and dilated 5x3 layers whose rows end in a short packet, a 1-d
// layer without padding (the gradient's pad 4), two groups; the narrow tiles (up to 4
// channels), the 3-filter ones and the wide ones (the forward of 16 filters). Strided
// (phase_lanes: the deconvolution of the output gradient by output phase): the stem's 7x7
// kernel of stride 2 on an odd image, strides 2 and 3 on the two axes, an even 4x4 kernel
// (both residues 2 taps) in two groups, pad past kernel - 1 (outputs whose taps reach past the
// output gradient), a 1-d layer of stride 3 without padding.
TEST(ConvolutionTest, LaneDataGradientsMatchDifferences) {
  struct Layer {
    TShape data, weight;
    std::string kernel, stride, pad, dilate;
    int groups;
  };
  const Layer layers[] = {
      {TShape{2, 3, 9, 21}, TShape{16, 3, 3, 3}, "(3,3)", "(1,1)", "(1,1)", "(1,1)", 1},
      {TShape{2, 4, 7, 19}, TShape{5, 4, 5, 3}, "(5,3)", "(1,1)", "(1,2)", "(2,2)", 1},
      {TShape{3, 2, 30}, TShape{3, 2, 5}, "(5,)", "(1,)", "(0,)", "(1,)", 1},
      {TShape{2, 6, 5, 17}, TShape{8, 3, 3, 3}, "(3,3)", "(1,1)", "(1,0)", "(1,1)", 2},
      {TShape{2, 3, 15, 21}, TShape{8, 3, 7, 7}, "(7,7)", "(2,2)", "(3,3)", "(1,1)", 1},
      {TShape{2, 3, 13, 17}, TShape{5, 3, 3, 4}, "(3,4)", "(2,3)", "(1,2)", "(1,1)", 1},
      {TShape{2, 4, 11, 12}, TShape{6, 2, 4, 4}, "(4,4)", "(2,2)", "(1,1)", "(1,1)", 2},
      {TShape{2, 1, 9, 10}, TShape{3, 1, 2, 2}, "(2,2)", "(2,2)", "(1,2)", "(1,1)", 1},
      {TShape{3, 2, 40}, TShape{4, 2, 5}, "(5,)", "(3,)", "(0,)", "(1,)", 1},
  };
  for (const Layer& l : layers) {
    const OpCase c{"Convolution",
                   {{"kernel", l.kernel},
                    {"stride", l.stride},
                    {"pad", l.pad},
                    {"dilate", l.dilate},
                    {"num_filter", std::to_string(l.weight[0])},
                    {"num_group", std::to_string(l.groups)}},
                   {InputSpec{l.data}, InputSpec{l.weight}, InputSpec{TShape{l.weight[0]}}}};
    for (const int threads : {1, 2}) {
      SCOPED_TRACE("kernel " + l.kernel + " stride " + l.stride + " threads=" +
                   std::to_string(threads));
      mshadow::SetNumThreads(threads);
      testing::CheckGradient(c);
    }
  }
  mshadow::SetNumThreads(0);
}

// Layers whose float32 and float64 gradients take different paths: a 3x3 layer of 32 channels
// and filters (on AVX-512 its float32 data gradient takes position tiles over the output
// gradient's phases, float64's Winograd), a strided, dilated 5x5 layer of 32 filters in 2
// groups (float32's weight gradient by column chunks, float64's by tap tiles, 16 doubles a
// strip) and one of 32 filters (both types' by tap tiles). Both gradients must agree
// (CheckGradient runs float64 only).
TEST(ConvolutionTest, Float32GradientsMatchFloat64) {
  const std::vector<OpCase> cases{
      {"Convolution",
       {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "32"}},
       {InputSpec{TShape{2, 32, 9, 10}}, InputSpec{TShape{32, 32, 3, 3}}, InputSpec{TShape{32}}}},
      {"Convolution",
       {{"kernel", "(5,5)"},
        {"stride", "(2,3)"},
        {"dilate", "(1,2)"},
        {"pad", "(2,1)"},
        {"num_filter", "32"},
        {"num_group", "2"}},
       {InputSpec{TShape{3, 8, 11, 17}}, InputSpec{TShape{32, 4, 5, 5}}, InputSpec{TShape{32}}}},
      {"Convolution",
       {{"kernel", "(3,4)"}, {"stride", "(2,2)"}, {"pad", "(1,2)"}, {"num_filter", "32"}},
       {InputSpec{TShape{2, 5, 12, 13}}, InputSpec{TShape{32, 5, 3, 4}}, InputSpec{TShape{32}}}}};
  for (const OpCase& c : cases) {
    SCOPED_TRACE(c.kwargs.at("kernel"));
    const TShape out_shape = testing::InferOutputShapes(c)[0];
    std::mt19937_64 rng(3);
    const Values og = testing::RandomValues(static_cast<size_t>(out_shape.Size()), -1, 1, &rng);
    const std::vector<CpuTensor> grads64 =
        testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat64), {og});
    const std::vector<CpuTensor> grads32 =
        testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat32), {og});
    const char* names[] = {"data grad", "weight grad", "bias grad"};
    for (size_t i = 0; i < grads64.size(); ++i) {
      testing::ExpectClose(testing::ToValues(grads64[i].blob()),
                           testing::ToValues(grads32[i].blob()), 1e-4, 1e-4, names[i]);
    }
  }
}

// A strided 2-d layer's gradients (no groups) by direct sums over every output and tap inside
// the input: dx[n][c][x] += og[n][f][o] * w[f][c][k], dw[f][c][k] += og[n][f][o] * x[n][c][x],
// x = o * stride - pad + k per axis.
std::vector<Values> DirectConvolutionGradients(const TShape& data_shape, const Values& data,
                                               const Values& weight, const Values& og, int kernel,
                                               int stride, int pad, const TShape& out_shape) {
  Values dx(data.size()), dw(weight.size());
  testing::ForEachTapPair(out_shape, data_shape, kernel, stride, pad,
                          [&](size_t o, size_t x, size_t w) {
                            dx[x] += og[o] * weight[w];
                            dw[w] += og[o] * data[x];
                          });
  return {dx, dw};
}

// A square layer (kernel, stride, pad on both axes) with data `data` and `filters` filters.
OpCase SquareLayer(const TShape& data, int filters, int kernel, int stride, int pad) {
  const std::string k = std::to_string(kernel), s = std::to_string(stride);
  const std::string p = std::to_string(pad);
  return OpCase{"Convolution",
                {{"kernel", "(" + k + "," + k + ")"},
                 {"stride", "(" + s + "," + s + ")"},
                 {"pad", "(" + p + "," + p + ")"},
                 {"num_filter", std::to_string(filters)}},
                {InputSpec{data}, InputSpec{TShape{filters, data[1], kernel, kernel}},
                 InputSpec{TShape{filters}}}};
}

// SquareLayer's data and weight gradients, float64 and float32, against direct sums, on each of
// `thread_counts` threads (0: the library's default).
void CheckGradientsMatchDirectSums(const TShape& data, int filters, int kernel, int stride,
                                   int pad, std::initializer_list<int> thread_counts) {
  const OpCase c = SquareLayer(data, filters, kernel, stride, pad);
  const TShape out_shape = testing::InferOutputShapes(c)[0];
  std::mt19937_64 rng(9);
  const Values og = testing::RandomValues(static_cast<size_t>(out_shape.Size()), -1, 1, &rng);
  for (const int type_flag : {mshadow::kFloat64, mshadow::kFloat32}) {
    const std::vector<CpuTensor> inputs = testing::MakeInputs(c, type_flag);
    const std::vector<Values> expected = DirectConvolutionGradients(
        data, testing::ToValues(inputs[0].blob()), testing::ToValues(inputs[1].blob()), og,
        kernel, stride, pad, out_shape);
    const double rtol = type_flag == mshadow::kFloat64 ? 1e-10 : 1e-4;
    for (const int threads : thread_counts) {
      SCOPED_TRACE("float" + std::to_string(type_flag == mshadow::kFloat64 ? 64 : 32) +
                   " threads=" + std::to_string(threads));
      mshadow::SetNumThreads(threads);
      const std::vector<CpuTensor> grads = testing::Backward(c, inputs, {og});
      testing::ExpectClose(expected[0], testing::ToValues(grads[0].blob()), rtol, rtol,
                           "data grad");
      testing::ExpectClose(expected[1], testing::ToValues(grads[1].blob()), rtol, rtol,
                           "weight grad");
    }
  }
  mshadow::SetNumThreads(0);
}

// Phase lanes over an image of several bands (the output gradient's rows copied a band at a
// time: 2 bands of 128 filters' rows in float32, 4 in float64); 1 and 2 threads.
TEST(ConvolutionTest, PhaseLanesBandsMatchDirectSums) {
  const TShape data{2, 3, 161, 30};
  ASSERT_EQ(testing::InferOutputShapes(SquareLayer(data, 128, 7, 2, 3))[0],
            (TShape{2, 128, 81, 15}));
  CheckGradientsMatchDirectSums(data, 128, 7, 2, 3, {1, 2});
}

// A layer whose column matrix the CPU makes in two chunks of input channels (20 channels of
// 20 x 20 outputs through a 5 x 5 kernel: chunks of 10 in float64), its forward products and
// weight gradient summed over them.
TEST(ConvolutionTest, ColumnChunksMatchDirectSums) {
  const TShape data{2, 20, 40, 40};
  const OpCase c = SquareLayer(data, 16, 5, 2, 2);
  ASSERT_EQ(testing::InferOutputShapes(c)[0], (TShape{2, 16, 20, 20}));
  CheckForwardMatchesDirectLoop(c, {{5, 2, 1, 2}, {5, 2, 1, 2}}, 16);
  CheckGradientsMatchDirectSums(data, 16, 5, 2, 2, {0});
}

// The depthwise backward fetches a channel's planes of the next image (output gradient,
// input, data gradient) a share per input row: every line of the three is fetched once the
// last input row's share is, whatever their extents and wherever they start in a line.
TEST(ConvolutionTest, DepthwiseNextPlanesFetchEveryLineWithinTheRows) {
  const std::vector<float> planes(3 * 4096);
  for (index_t rows : {1, 2, 7, 56}) {
    for (index_t cols : {1, 3, 17, 56}) {
      for (index_t start : {0, 1, 5, 15}) {
        ConvGeometry g;
        g.ndim = 2;
        g.in[0] = rows;
        g.in[1] = cols;
        g.out[0] = (rows + 1) / 2;
        g.out[1] = (cols + 1) / 2;
        for (bool with_data : {true, false}) {
          const float* first = planes.data() + start;
          depthwise::NextPlanes next(g, first, with_data ? first + 4096 : nullptr,
                                     first + 2 * 4096);
          ASSERT_FALSE(next.Done());
          for (index_t r = 0; r < rows; ++r) next.Row();
          EXPECT_TRUE(next.Done()) << rows << "x" << cols << " from element " << start;
        }
      }
    }
  }
}

TEST(ConvolutionTest, DefaultsAreStrideOneNoPadding) {
  const OpCase c{"Convolution",
                 {{"kernel", "(3,3)"}, {"num_filter", "2"}},
                 {InputSpec{TShape{1, 1, 5, 6}}, InputSpec{TShape()}, InputSpec{TShape()}}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{1, 2, 3, 4}));
}

TEST(ConvolutionTest, BadParametersAndShapes) {
  auto infer = [](std::map<std::string, std::string> kwargs, TShape data) {
    return testing::ErrorOf([&] {
      kwargs["no_bias"] = "True";
      testing::InferOutputShapes(
          OpCase{"Convolution", kwargs, {InputSpec{data}, InputSpec{TShape()}}});
    });
  };
  EXPECT_THAT(infer({{"kernel", "(3,3)"}, {"num_filter", "2"}}, TShape{1, 2, 5}),
              HasSubstr("takes data of rank 4 (batch, channel, height, width) but the data is "
                        "(1,2,5)"));
  EXPECT_THAT(infer({{"kernel", "(5,5)"}, {"num_filter", "2"}}, TShape{1, 2, 4, 9}),
              HasSubstr("the kernel (5,5) (dilated extent 5 on spatial axis 0) is larger than "
                        "the padded input (4)"));
  EXPECT_THAT(
      infer({{"kernel", "(3,3)"}, {"num_filter", "4"}, {"num_group", "2"}}, TShape{1, 3, 5, 5}),
      HasSubstr("num_group 2 must divide both the input channels (3) and num_filter (4)"));
  EXPECT_THAT(
      infer({{"kernel", "(3,3)"}, {"num_filter", "2"}, {"stride", "(1,0)"}}, TShape{1, 1, 5, 5}),
      HasSubstr("stride (1,0) has entry 0 on axis 1; each must be at least 1"));
  EXPECT_THAT(
      infer({{"kernel", "(3,3)"}, {"num_filter", "2"}, {"pad", "(1,1,1)"}}, TShape{1, 1, 5, 5}),
      HasSubstr("pad (1,1,1) has 3 entries but the kernel has 2 spatial axes"));
  EXPECT_THAT(infer({{"kernel", "(1,1,1,1)"}, {"num_filter", "2"}}, TShape{1, 1, 5, 5, 5, 5}),
              HasSubstr("kernel (1,1,1,1) must have 1, 2 or 3 entries"));
  EXPECT_THAT(
      infer({{"kernel", "(3,3)"}, {"num_filter", "2"}, {"layout", "NHWC"}}, TShape{1, 5, 5, 1}),
      HasSubstr("channel-first layouts NCW, NCHW and NCDHW only"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("Convolution"), {{"kernel", "(3,3)"}, {"num_filter", "0"}});
              }),
              HasSubstr("num_filter"));
}

}  // namespace
}  // namespace ops
