// _contrib_DeformablePSROIPooling: bins worked out by hand (samples clamped into the map, one
// left out past its edge, a part offset moving them), its gradients in data and trans against
// those worked out by hand and against central differences, write modes, the hidden sample
// counts, regions that pool nothing, the GPU's atomic data-gradient items against the CPU's
// planes, and the shapes refused. MXNet 1.9.1's CPU build has no kernel for it (its forward
// leaves -FLT_MAX); the Python suite checks it against a NumPy reference.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/deformable_psroi_pooling-inl.h"
#include "ops/invoke.h"
#include "ops/testing/op_test_util.h"
#include "ops/testing/sample_values.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Ramp;
using testing::Values;

using Kw = std::map<std::string, std::string>;

const char* const kOp = "_contrib_DeformablePSROIPooling";

// One 3x3 map, v(y, x) = 3y + x, one bin of 2x2 samples over region [0, 0, 0, 1, 1]: from
// -0.5 (the corner 0 shifted back half a position), a position apart.
OpCase HandCase(bool with_trans) {
  Kw kw{{"spatial_scale", "1"},
        {"output_dim", "1"},
        {"group_size", "1"},
        {"pooled_size", "1"},
        {"sample_per_part", "2"}};
  OpCase c{kOp,
           kw,
           {InputSpec::WithValues(TShape{1, 1, 3, 3}, Ramp(9)),
            InputSpec::WithValues(TShape{1, 5}, {0, 0, 0, 1, 1})}};
  c.inputs[1].differentiable = false;
  if (with_trans) {
    c.kwargs["trans_std"] = "0.5";
    c.kwargs["part_size"] = "1";
    c.inputs.push_back(InputSpec::WithValues(TShape{1, 2, 1, 1}, {0.25, -0.25}));
  } else {
    c.kwargs["no_trans"] = "True";
  }
  return c;
}

// Without trans the samples sit at x, y in {-0.5, 0.5}, -0.5 clamped to 0: v(0, 0) = 0,
// v(0, 0.5) = 0.5, v(0.5, 0) = 1.5, v(0.5, 0.5) = 2; their mean 1.
TEST(DeformablePSROIPoolingTest, SamplesClampedIntoTheMap) {
  const OpCase c = HandCase(false);
  const std::vector<CpuTensor> out = testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat64));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(testing::ToValues(out[0].blob()), Values{1.0});
  EXPECT_EQ(testing::ToValues(out[1].blob()), Values{4.0});  // the hidden sample count
}

// trans (0.25, -0.25) times trans_std 0.5 times the region's extent 2 moves the samples by
// (0.25, -0.25): x in {-0.25 (clamped to 0), 0.75}, y in {-0.75 (left out), 0.25}. Values
// v(0.25, 0) = 0.75, v(0.25, 0.75) = 1.5: the mean 1.125 of 2 samples. For an output gradient
// of 1, each sample's share 0.5 goes to its neighbours by their weights; trans's x gradient is
// the samples' x slopes (0 at the clamped one, 1 at the other) times 0.5, the extent 2 and
// trans_std 0.5: 0.5; its y gradient, the y slopes (3 and 3), likewise: 3.
TEST(DeformablePSROIPoolingTest, PartOffsetsMoveTheSamples) {
  const OpCase c = HandCase(true);
  const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
  const std::vector<CpuTensor> out = testing::Forward(c, in);
  EXPECT_EQ(testing::ToValues(out[0].blob()), Values{1.125});
  EXPECT_EQ(testing::ToValues(out[1].blob()), Values{2.0});
  const std::vector<CpuTensor> grads = testing::Backward(c, in, {{1.0}});
  ASSERT_EQ(grads.size(), 3u);
  testing::ExpectClose(Values{0.46875, 0.28125, 0, 0.15625, 0.09375, 0, 0, 0, 0},
                       testing::ToValues(grads[0].blob()), 1e-15, 1e-15, "data gradient");
  EXPECT_EQ(testing::ToValues(grads[1].blob()), Values(5, 0.0));
  testing::ExpectClose(Values{0.5, 3.0}, testing::ToValues(grads[2].blob()), 1e-15, 1e-15,
                       "trans gradient");
}

// Two classes of one output channel each, a 2x2 group grid, 2x2 bins of 2x2 samples. The
// regions' corners are whole and their extents 4, so the samples start half a position off
// the grid a position apart, and trans in [-1, 1] times 0.1 times 4 keeps them within 0.4 of
// there: off the grid's lines and inside the map, where the samples are smooth in data and
// trans, so central differences see the derivative.
OpCase SmoothCase(bool no_trans) {
  Kw kw{{"spatial_scale", "1"},
        {"output_dim", "2"},
        {"group_size", "2"},
        {"pooled_size", "2"},
        {"sample_per_part", "2"}};
  OpCase c{kOp,
           kw,
           {InputSpec{TShape{2, 8, 6, 7}},
            InputSpec::WithValues(TShape{3, 5}, {0, 1, 1, 4, 4, 1, 2, 0, 5, 3, 0, 0, 1, 3, 4})}};
  c.inputs[1].differentiable = false;
  if (no_trans) {
    c.kwargs["no_trans"] = "True";
  } else {
    c.kwargs["trans_std"] = "0.1";
    c.inputs.push_back(InputSpec{TShape{3, 4, 2, 2}});
  }
  return c;
}

TEST(DeformablePSROIPoolingTest, GradientsAndWriteModes) {
  for (const bool no_trans : {false, true}) {
    SCOPED_TRACE(no_trans ? "no_trans" : "trans");
    const OpCase c = SmoothCase(no_trans);
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
}

// A region past the batch, one with a NaN corner and one whose trans is infinite pool
// nothing: zeros, no samples, no gradient.
TEST(DeformablePSROIPoolingTest, RegionsOutsideTheBatchOrNotFiniteAreIgnored) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  OpCase c = SmoothCase(false);
  c.inputs[1] =
      InputSpec::WithValues(TShape{3, 5}, {2, 1, 1, 4, 4, 1, nan, 0, 5, 3, 0, 0, 1, 3, 4});
  c.inputs[1].differentiable = false;
  Values trans(48, 0.1);
  trans[32] = inf;  // region 2, class 0, part (0, 0): x
  c.inputs[2] = InputSpec::WithValues(TShape{3, 4, 2, 2}, trans);
  const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
  const std::vector<CpuTensor> out = testing::Forward(c, in);
  const Values y = testing::ToValues(out[0].blob()), count = testing::ToValues(out[1].blob());
  EXPECT_EQ(Values(y.begin(), y.begin() + 16), Values(16, 0.0));
  EXPECT_EQ(Values(count.begin(), count.begin() + 16), Values(16, 0.0));
  EXPECT_EQ(y[16], 0.0);  // region 2's bin (0, 0) of channel 0 moves by trans 32
  EXPECT_EQ(count[16], 0.0);
  EXPECT_EQ(count[17], 4.0);
  const std::vector<CpuTensor> grads = testing::Backward(c, in, {Values(y.size(), 1.0)});
  const Values dtrans = testing::ToValues(grads[2].blob());
  EXPECT_EQ(Values(dtrans.begin(), dtrans.begin() + 32), Values(32, 0.0));
  for (double v : testing::ToValues(grads[0].blob())) EXPECT_TRUE(std::isfinite(v));
}

// The GPU's data gradient (an output element a thread, atomics) runs here through
// Kernel<OP, cpu> against the CPU's items (a data plane each).
TEST(DeformablePSROIPoolingTest, TheGpuItemsAgreeWithTheCpuPlanes) {
  using deformable_psroi_pooling::Geometry;
  const OpCase c = SmoothCase(false);
  const NodeAttrs attrs = ParseAttrs(Op::Get(kOp), c.kwargs);
  const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
  const Geometry g = deformable_psroi_pooling::GeometryOf(
      GetParam<deformable_psroi_pooling::DeformablePSROIPoolingParam>(attrs), in[0].shape(),
      in[1].shape(), in[2].shape());
  Values og(3 * 2 * 2 * 2);
  for (size_t i = 0; i < og.size(); ++i) og[i] = std::sin(0.7 * static_cast<double>(i));
  Values planes(in[0].shape().Size(), 0.0), atomics(planes.size(), 0.0);
  const double *rois = in[1].data<double>(), *trans = in[2].data<double>();
  Kernel<deformable_psroi_pooling::spread_data_plane, cpu>::LaunchItems(
      nullptr, g.batch * g.channels, 1, planes.data(), og.data(), rois, trans, g);
  Kernel<deformable_psroi_pooling::spread_data_atomic, cpu>::Launch(
      nullptr, static_cast<index_t>(og.size()), atomics.data(), og.data(), rois, trans, g);
  testing::ExpectClose(planes, atomics, 1e-12, 1e-12, "data gradient");
}

TEST(DeformablePSROIPoolingTest, BadShapesAreNamed) {
  const auto error_of = [](const Kw& kw, const std::vector<TShape>& shapes) {
    OpCase c{kOp, kw, {}};
    for (const TShape& s : shapes) c.inputs.push_back(InputSpec{s});
    return testing::ErrorOf([&] { testing::InferOutputShapes(c); });
  };
  const Kw kw{{"spatial_scale", "1"},
              {"output_dim", "2"},
              {"group_size", "2"},
              {"pooled_size", "3"},
              {"trans_std", "0.1"}};
  EXPECT_THAT(error_of(kw, {TShape{1, 6, 5, 5}, TShape{2, 5}, TShape{2, 2, 3, 3}}),
              HasSubstr("data has shape (1,6,5,5); valid: 4 axes (batch, channel, height, width) "
                        "with output_dim * group_size^2 = 2 * 2^2 = 8 channels"));
  EXPECT_THAT(error_of(kw, {TShape{1, 8, 5, 5}, TShape{2, 4}, TShape{2, 2, 3, 3}}),
              HasSubstr("rois has shape (2,4); valid: (regions, 5)"));
  EXPECT_THAT(error_of(kw, {TShape{1, 8, 5, 5}, TShape{2, 5}, TShape{2, 6, 3, 3}}),
              HasSubstr("trans has shape (2,6,3,3); valid: (2, 2 * classes, 3, 3): a (dx, dy) "
                        "pair for each class (classes dividing output_dim, 2)"));
  EXPECT_THAT(error_of(kw, {TShape{1, 8, 5, 5}, TShape{2, 5}, TShape{2, 2, 2, 2}}),
              HasSubstr("trans has shape (2,2,2,2)"));
  Kw bad = kw;
  bad["sample_per_part"] = "0";
  EXPECT_THAT(error_of(bad, {TShape{1, 8, 5, 5}, TShape{2, 5}, TShape{2, 2, 3, 3}}),
              HasSubstr("sample_per_part"));
}

}  // namespace
}  // namespace ops
