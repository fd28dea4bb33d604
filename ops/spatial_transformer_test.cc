// GridGenerator, BilinearSampler and SpatialTransformer against direct formulas (MXNet
// 1.9.1's, which the Python suite compares with MXNet itself): grid corners, positions
// outside the data and not numbers, the composition, write modes, numerical gradients of
// every input, thread counts, and the shapes and parameters refused.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/backward.h"
#include "ops/spatial_transformer-inl.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

Values RunOp(const std::string& op, const std::map<std::string, std::string>& kwargs,
             const std::vector<CpuTensor>& in) {
  return testing::ToValues(RunCpu(ParseAttrs(Op::Get(op), kwargs), Blobs(in))[0].blob());
}

double Unit(int i, int n) { return -1.0 + 2.0 * i / (n - 1); }

TEST(GridGeneratorTest, AffineAndWarpGrids) {
  const Values theta = {0.5, -0.2, 0.1, 0.3, 0.9, -0.4, 1, 0, 0, 0, 1, 0};
  const Values grid =
      RunOp("GridGenerator", {{"transform_type", "affine"}, {"target_shape", "(3,4)"}},
            {testing::TensorOf(TShape{2, 6}, mshadow::kFloat64, theta)});
  ASSERT_EQ(grid.size(), 2u * 2 * 3 * 4);
  for (int n = 0; n < 2; ++n) {
    for (int k = 0; k < 2; ++k) {
      for (int h = 0; h < 3; ++h) {
        for (int w = 0; w < 4; ++w) {
          const double* t = &theta[n * 6 + k * 3];
          EXPECT_NEAR(grid[((n * 2 + k) * 3 + h) * 4 + w],
                      t[0] * Unit(w, 4) + t[1] * Unit(h, 3) + t[2], 1e-15);
        }
      }
    }
  }
  // The identity matrix's grid is the unit positions themselves.
  EXPECT_EQ(grid[24 + 0], -1.0);
  EXPECT_DOUBLE_EQ(grid[24 + 11], 1.0);  // -1 + 3 * (2 / 3), as MXNet computes it
  const CpuTensor flow = testing::TensorOf(TShape{1, 2, 3, 5}, mshadow::kFloat64,
                                           Values{0.5, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                  0,   0, 0, 0, 0,  0, 2, 0, 0, 0, 0, 0, 0, 0, 0});
  const Values warped = RunOp("GridGenerator", {{"transform_type", "warp"}}, {flow});
  EXPECT_EQ(warped[0], 0.5 / 2 - 1);  // (0.5 + 0) / ((5 - 1) / 2) - 1
  EXPECT_EQ(warped[4], (-1.0 + 4) / 2 - 1);
  EXPECT_EQ(warped[15 + 6], (2.0 + 1) / 1 - 1);  // y of (1, 1): (2 + 1) / ((3 - 1) / 2) - 1
}

// The bilinear sample of plane (H, W) at grid position (gx, gy), 0 outside.
double Bilinear(const Values& plane, int height, int width, double gx, double gy) {
  const double x = (gx + 1) * (width - 1) / 2, y = (gy + 1) * (height - 1) / 2;
  const double x0 = std::floor(x), y0 = std::floor(y), fx = x - x0, fy = y - y0;
  const auto at = [&](double yy, double xx) {
    return yy >= 0 && yy < height && xx >= 0 && xx < width ? plane[yy * width + xx] : 0.0;
  };
  return at(y0, x0) * (1 - fy) * (1 - fx) + at(y0, x0 + 1) * (1 - fy) * fx +
         at(y0 + 1, x0) * fy * (1 - fx) + at(y0 + 1, x0 + 1) * fy * fx;
}

TEST(BilinearSamplerTest, SamplesInsideAtTheEdgesOutsideAndNotANumber) {
  Values plane(4 * 5);
  for (size_t i = 0; i < plane.size(); ++i) plane[i] = std::sin(1.3 * i) + 2;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // (x, y) pairs: corners, inside, half a cell outside, far outside, NaN.
  const Values xs = {-1, 1, -1, 0.3, -1.2, 1.1, 7, nan}, ys = {-1, 1, 1, -0.45, 0.2, 1.2, 0, 0};
  Values grid = xs;
  grid.insert(grid.end(), ys.begin(), ys.end());
  const Values out = RunOp("BilinearSampler", {},
                           {testing::TensorOf(TShape{1, 1, 4, 5}, mshadow::kFloat64, plane),
                            testing::TensorOf(TShape{1, 2, 1, 8}, mshadow::kFloat64, grid)});
  EXPECT_EQ(out[0], plane[0]);
  EXPECT_EQ(out[1], plane[19]);
  EXPECT_EQ(out[2], plane[15]);
  for (int p = 3; p < 6; ++p) {
    EXPECT_NEAR(out[p], Bilinear(plane, 4, 5, xs[p], ys[p]), 1e-14) << p;
  }
  EXPECT_NE(out[4], 0.0);  // half a cell outside still blends with the edge
  EXPECT_EQ(out[6], 0.0);
  EXPECT_EQ(out[7], 0.0);
}

// An infinite output gradient at a position whose cell is half outside the plane reaches its
// inside corners only: nothing else of the data's gradient changes (no NaN from inf * 0).
TEST(BilinearSamplerTest, InfiniteGradientReachesOnlyInsideCorners) {
  // One channel (plane by plane) and 17 (channels innermost on the CPU).
  for (const index_t channels : {1, 17}) {
    SCOPED_TRACE(channels);
    const CpuTensor data =
        testing::TensorOf(TShape{1, channels, 3, 4}, mshadow::kFloat64, Values(12 * channels, 1));
    // x = (-1.2 + 1) * 3 / 2 = -0.3: columns -1 (outside) and 0; y = 0.5: rows 0 and 1.
    const CpuTensor grid = testing::TensorOf(TShape{1, 2, 1, 1}, mshadow::kFloat64, {-1.2, -0.5});
    const CpuTensor og =
        testing::TensorOf(TShape{1, channels, 1, 1}, mshadow::kFloat64,
                          Values(channels, std::numeric_limits<double>::infinity()));
    const NodeAttrs attrs = ParseAttrs(Op::Get("BilinearSampler"), {});
    CpuTensor dx(TShape{1, channels, 3, 4}, mshadow::kFloat64);
    CpuTensor dgrid(TShape{1, 2, 1, 1}, mshadow::kFloat64);
    const NodeAttrs backward = BackwardAttrs(attrs);
    Invoke<mshadow::cpu>(backward, MakeCpuContext(backward),
                         BackwardInputs(attrs, {og.blob()}, {data.blob(), grid.blob()}, {}),
                         {kWriteTo, kWriteTo}, {dx.blob(), dgrid.blob()});
    const Values g = testing::ToValues(dx.blob());
    for (size_t i = 0; i < g.size(); ++i) {
      if (i % 12 == 0 || i % 12 == 4) {
        EXPECT_EQ(g[i], std::numeric_limits<double>::infinity()) << i;
      } else {
        EXPECT_EQ(g[i], 0.0) << i;
      }
    }
  }
}

OpCase SamplerCase() {
  return OpCase{"BilinearSampler",
                {},
                {InputSpec(TShape{2, 3, 6, 7}), InputSpec(TShape{2, 2, 4, 5}, -1.2, 1.2)}};
}

OpCase TransformerCase() {
  return OpCase{
      "SpatialTransformer",
      {{"target_shape", "(4,5)"}, {"transform_type", "affine"}, {"sampler_type", "bilinear"}},
      {InputSpec(TShape{2, 3, 6, 7}), InputSpec(TShape{2, 6}, -0.8, 0.8)}};
}

TEST(SpatialTransformerTest, IsTheSamplerAtTheAffineGrid) {
  const OpCase c = TransformerCase();
  const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
  const std::vector<CpuTensor> grid =
      RunCpu(ParseAttrs(Op::Get("GridGenerator"),
                        {{"transform_type", "affine"}, {"target_shape", "(4,5)"}}),
             {in[1].blob()});
  EXPECT_EQ(RunOp("SpatialTransformer", c.kwargs, in),
            RunOp("BilinearSampler", {}, {in[0], grid[0]}));
}

TEST(SpatialTransformerTest, WriteModesGradientsAndThreads) {
  for (const OpCase& c :
       {SamplerCase(), TransformerCase(),
        OpCase{"GridGenerator",
               {{"transform_type", "affine"}, {"target_shape", "(3,4)"}},
               {InputSpec(TShape{2, 6})}},
        // Rows of whole packets and a remainder (19 = 16 + 3 floats, 2 * 8 + 3 doubles).
        OpCase{"GridGenerator",
               {{"transform_type", "affine"}, {"target_shape", "(5,19)"}},
               {InputSpec(TShape{3, 6})}},
        OpCase{"GridGenerator", {{"transform_type", "warp"}}, {InputSpec(TShape{2, 2, 3, 4})}},
        // Enough channels for the CPU's channels-innermost gradients: whole packets and a
        // remainder (19 = 16 + 3 floats, 2 * 8 + 3 doubles), positions outside the data.
        OpCase{"BilinearSampler",
               {},
               {InputSpec(TShape{2, 19, 6, 7}), InputSpec(TShape{2, 2, 4, 5}, -1.2, 1.2)}},
        OpCase{"SpatialTransformer",
               {{"target_shape", "(9,11)"},
                {"transform_type", "affine"},
                {"sampler_type", "bilinear"}},
               {InputSpec(TShape{3, 16, 5, 8}), InputSpec(TShape{3, 6}, -0.8, 0.8)}}}) {
    SCOPED_TRACE(c.op);
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
    testing::CheckSameOnThreadCounts(c);
  }
}

// The CPU's gradients with the channels innermost take images of a packet of channels or more
// whose scratch stays within its bound; others keep the plane kernels (WriteModesGradients...
// checks both give the right values).
TEST(BilinearSamplerTest, ChannelsLastGradientsTakeOnlyWhatTheirScratchBoundAllows) {
  using spatial_transformer::ChannelsLastServes;
  const index_t packet = vec::Full<float>::kSize;
  EXPECT_TRUE(ChannelsLastServes<float>({32, 32, 64, 64, 64, 64}));
  EXPECT_TRUE(ChannelsLastServes<float>({1, packet, 9, 11, 5, 8}));
  EXPECT_FALSE(ChannelsLastServes<float>({1, packet - 1, 9, 11, 5, 8}));
  // (2 * 512 * 512 + 64) * 16 floats: 4 KiB past 32 MiB.
  EXPECT_FALSE(ChannelsLastServes<float>({1, 16, 512, 512, 4, 4}));
  EXPECT_TRUE(ChannelsLastServes<float>({1, 16, 511, 512, 4, 4}));
}

TEST(SpatialTransformerTest, BadShapesAndParametersAreNamed) {
  const auto shape_error = [](const OpCase& c) {
    return testing::ErrorOf([&] { testing::InferOutputShapes(c); });
  };
  EXPECT_THAT(
      shape_error(OpCase{
          "BilinearSampler", {}, {InputSpec(TShape{2, 3, 6, 7}), InputSpec(TShape{3, 2, 4, 5})}}),
      HasSubstr("(3,2,4,5)"));
  EXPECT_THAT(shape_error(OpCase{"GridGenerator",
                                 {{"transform_type", "affine"}, {"target_shape", "(3,4)"}},
                                 {InputSpec(TShape{2, 4})}}),
              HasSubstr("(2,4)"));
  EXPECT_THAT(shape_error(OpCase{
                  "GridGenerator", {{"transform_type", "warp"}}, {InputSpec(TShape{2, 2, 1, 4})}}),
              HasSubstr("(2,2,1,4)"));
  EXPECT_THAT(shape_error(OpCase{"SpatialTransformer",
                                 TransformerCase().kwargs,
                                 {InputSpec(TShape{2, 3, 6, 7}), InputSpec(TShape{1, 6})}}),
              HasSubstr("(1,6)"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("GridGenerator"),
                           {{"transform_type", "affine"}, {"target_shape", "(1,5)"}});
              }),
              HasSubstr("(1,5)"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("SpatialTransformer"),
                           {{"transform_type", "affine"}, {"sampler_type", "bilinear"}});
              }),
              HasSubstr("target_shape"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("GridGenerator"), {{"transform_type", "shear"}});
              }),
              HasSubstr("shear"));
}

}  // namespace
}  // namespace ops
