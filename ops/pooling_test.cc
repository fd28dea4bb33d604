// Pooling against a loop over a padded copy of each plane (every type, rank, convention and
// count_include_pad), its write modes and numerical gradients, and its errors.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/streaming_stores.h"
#include "ops/backward.h"
#include "ops/pooling-inl.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

std::vector<int> ParseTuple(const std::string& text) {
  std::vector<int> values;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '-' || std::isdigit(static_cast<unsigned char>(text[i]))) {
      size_t used;
      values.push_back(std::stoi(text.substr(i), &used));
      i += used;
    } else {
      ++i;
    }
  }
  return values;
}

// Pools each plane of `data` by padding it with NaN (positions outside the input), then
// reading each window of the padded plane: NaN entries count towards avg's divisor only with
// count_include_pad, and a window is cut where the padded input ends (full convention).
Values ReferencePooling(const TShape& shape, const Values& data, const OpCase& c,
                        const TShape& out_shape) {
  const std::map<std::string, std::string>& kw = c.kwargs;
  const int nd = static_cast<int>(shape.ndim()) - 2;
  const bool global = kw.count("global_pool") && kw.at("global_pool") == "True";
  std::vector<int> kernel(nd), stride(nd, 1), pad(nd, 0), in(nd), out(nd);
  for (int a = 0; a < nd; ++a) {
    in[a] = shape[2 + a];
    out[a] = out_shape[2 + a];
  }
  if (global) {
    kernel = in;
  } else {
    kernel = ParseTuple(kw.at("kernel"));
    if (kw.count("stride")) stride = ParseTuple(kw.at("stride"));
    if (kw.count("pad")) pad = ParseTuple(kw.at("pad"));
  }
  const std::string type = kw.count("pool_type") ? kw.at("pool_type") : "max";
  const int p = kw.count("p_value") ? std::stoi(kw.at("p_value")) : 0;
  const bool include_pad = !kw.count("count_include_pad") || kw.at("count_include_pad") == "True";
  std::vector<int> padded(nd);
  int padded_size = 1, in_size = 1, out_size = 1;
  for (int a = 0; a < nd; ++a) {
    padded[a] = in[a] + 2 * pad[a];
    padded_size *= padded[a];
    in_size *= in[a];
    out_size *= out[a];
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Values result;
  for (size_t plane = 0; plane < data.size() / in_size; ++plane) {
    Values padded_plane(padded_size, nan);
    for (int x = 0; x < in_size; ++x) {
      int rest = x, at = 0;
      std::vector<int> coord(nd);
      for (int a = nd - 1; a >= 0; --a) {
        coord[a] = rest % in[a];
        rest /= in[a];
      }
      for (int a = 0; a < nd; ++a) at = at * padded[a] + coord[a] + pad[a];
      padded_plane[at] = data[plane * in_size + x];
    }
    for (int o = 0; o < out_size; ++o) {
      std::vector<int> lo(nd), hi(nd);
      int rest = o;
      for (int a = nd - 1; a >= 0; --a) {
        lo[a] = rest % out[a] * stride[a];
        hi[a] = std::min(lo[a] + kernel[a], padded[a]);
        rest /= out[a];
      }
      double best = -std::numeric_limits<double>::infinity(), sum = 0;
      int count = 0, real = 0;
      std::vector<int> at = lo;
      while (true) {
        int flat = 0;
        for (int a = 0; a < nd; ++a) flat = flat * padded[a] + at[a];
        const double v = padded_plane[flat];
        ++count;
        if (!std::isnan(v)) {
          ++real;
          best = std::max(best, v);
          sum += type == "lp" ? std::pow(v, p) : v;
        }
        int a = nd - 1;
        for (; a >= 0; --a) {
          if (++at[a] < hi[a]) break;
          at[a] = lo[a];
        }
        if (a < 0) break;
      }
      if (type == "max") result.push_back(best);
      if (type == "sum") result.push_back(sum);
      if (type == "avg") result.push_back(sum / (include_pad ? count : real));
      if (type == "lp") result.push_back(p == 3 ? std::cbrt(sum) : std::pow(sum, 1.0 / p));
    }
  }
  return result;
}

struct PoolCase {
  std::string name;
  TShape data;
  std::map<std::string, std::string> kwargs;
  TShape expected_out;
  double lo = -1, hi = 1;
};

class PoolingTest : public ::testing::TestWithParam<PoolCase> {};

TEST_P(PoolingTest, MatchesPaddedLoopWithGradients) {
  const PoolCase& pc = GetParam();
  InputSpec data{pc.data, pc.lo, pc.hi};
  const OpCase c{"Pooling", pc.kwargs, {data}};
  const TShape out_shape = testing::InferOutputShapes(c)[0];
  EXPECT_EQ(out_shape, pc.expected_out);
  testing::CheckForward(c, [&](const std::vector<Values>& in) {
    return std::vector<Values>{ReferencePooling(pc.data, in[0], c, out_shape)};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

INSTANTIATE_TEST_SUITE_P(
    Windows, PoolingTest,
    ::testing::Values(
        PoolCase{"max_3x3_stride2_pad1",
                 TShape{2, 3, 7, 8},
                 {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}},
                 TShape{2, 3, 4, 4}},
        PoolCase{"max_2x2_default_stride",
                 TShape{1, 2, 4, 5},
                 {{"kernel", "(2,2)"}},
                 TShape{1, 2, 3, 4}},
        PoolCase{"avg_include_pad",
                 TShape{2, 2, 5, 5},
                 {{"kernel", "(3,3)"}, {"pool_type", "avg"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}},
                 TShape{2, 2, 3, 3}},
        PoolCase{"avg_exclude_pad",
                 TShape{2, 2, 5, 5},
                 {{"kernel", "(3,3)"},
                  {"pool_type", "avg"},
                  {"stride", "(2,2)"},
                  {"pad", "(1,1)"},
                  {"count_include_pad", "False"}},
                 TShape{2, 2, 3, 3}},
        PoolCase{"avg_full_convention",
                 TShape{1, 2, 6, 8},
                 {{"kernel", "(3,3)"},
                  {"pool_type", "avg"},
                  {"stride", "(2,2)"},
                  {"pooling_convention", "full"}},
                 TShape{1, 2, 3, 4}},
        PoolCase{"max_full_convention",
                 TShape{1, 1, 6, 6},
                 {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pooling_convention", "full"}},
                 TShape{1, 1, 3, 3}},
        PoolCase{"sum_1d",
                 TShape{2, 3, 9},
                 {{"kernel", "(3,)"}, {"pool_type", "sum"}, {"stride", "(2,)"}},
                 TShape{2, 3, 4}},
        PoolCase{"lp1",
                 TShape{1, 2, 4, 4},
                 {{"kernel", "(2,2)"}, {"pool_type", "lp"}, {"p_value", "1"}, {"stride", "(2,2)"}},
                 TShape{1, 2, 2, 2}},
        PoolCase{"lp2",
                 TShape{1, 2, 4, 4},
                 {{"kernel", "(2,2)"}, {"pool_type", "lp"}, {"p_value", "2"}, {"stride", "(2,2)"}},
                 TShape{1, 2, 2, 2}},
        PoolCase{"lp3_positive",
                 TShape{1, 2, 5, 4},
                 {{"kernel", "(3,2)"}, {"pool_type", "lp"}, {"p_value", "3"}, {"stride", "(1,2)"}},
                 TShape{1, 2, 3, 2},
                 0.5,
                 2},
        PoolCase{"max_3d",
                 TShape{1, 2, 4, 5, 4},
                 {{"kernel", "(2,3,2)"}, {"stride", "(2,1,2)"}, {"pad", "(0,1,1)"}},
                 TShape{1, 2, 2, 5, 3}},
        // The CPU pools max, avg and sum one axis at a time: strides 1, 2 (constant in the
        // width pass) and 3 (run-time), edges cut by padding, 3-d windows.
        PoolCase{"avg_3d_exclude_pad_stride3",
                 TShape{1, 2, 5, 6, 7},
                 {{"kernel", "(3,2,3)"},
                  {"pool_type", "avg"},
                  {"stride", "(2,1,3)"},
                  {"pad", "(1,0,1)"},
                  {"count_include_pad", "False"}},
                 TShape{1, 2, 3, 5, 3}},
        PoolCase{"sum_3d_full_convention",
                 TShape{1, 1, 4, 5, 7},
                 {{"kernel", "(2,3,2)"},
                  {"pool_type", "sum"},
                  {"stride", "(2,2,3)"},
                  {"pad", "(1,1,0)"},
                  {"pooling_convention", "full"}},
                 TShape{1, 1, 3, 3, 3}},
        // Windows that tile the plane (stride = kernel, no padding), whose avg and sum
        // gradients spread each output gradient row once: 3-d, 2-d with rows of 38 and a
        // window that is not a power of two.
        PoolCase{"avg_2x2x2_tiles_3d",
                 TShape{1, 2, 4, 6, 34},
                 {{"kernel", "(2,2,2)"}, {"pool_type", "avg"}, {"stride", "(2,2,2)"}},
                 TShape{1, 2, 2, 3, 17}},
        PoolCase{"sum_3x2_tiles",
                 TShape{2, 2, 6, 38},
                 {{"kernel", "(3,2)"}, {"pool_type", "sum"}, {"stride", "(3,2)"}},
                 TShape{2, 2, 2, 19}},
        PoolCase{"avg_3x3_tiles_exclude_pad",
                 TShape{1, 3, 6, 9},
                 {{"kernel", "(3,3)"},
                  {"pool_type", "avg"},
                  {"stride", "(3,3)"},
                  {"count_include_pad", "False"}},
                 TShape{1, 3, 2, 3}},
        // Stride 2 along width, where an output gradient reaches every second input: kernels
        // 2 and 1 (odd positions reached by one window or by none), 4 and 5 with padding on
        // rows of whole packets and a remainder.
        PoolCase{"avg_2x2_stride2_odd_width",
                 TShape{1, 2, 3, 9},
                 {{"kernel", "(2,2)"}, {"pool_type", "avg"}, {"stride", "(2,2)"}},
                 TShape{1, 2, 1, 4}},
        PoolCase{"avg_1x1_stride2",
                 TShape{1, 1, 4, 10},
                 {{"kernel", "(1,1)"}, {"pool_type", "avg"}, {"stride", "(2,2)"}},
                 TShape{1, 1, 2, 5}},
        PoolCase{"sum_3x4_stride2_pad2_wide",
                 TShape{1, 2, 5, 37},
                 {{"kernel", "(3,4)"}, {"pool_type", "sum"}, {"stride", "(1,2)"}, {"pad", "(1,2)"}},
                 TShape{1, 2, 5, 19}},
        PoolCase{"avg_3x5_stride2_exclude_pad",
                 TShape{1, 2, 6, 16},
                 {{"kernel", "(3,5)"},
                  {"pool_type", "avg"},
                  {"stride", "(2,2)"},
                  {"pad", "(1,2)"},
                  {"count_include_pad", "False"}},
                 TShape{1, 2, 3, 8}},
        PoolCase{"avg_stride1",
                 TShape{2, 2, 9, 11},
                 {{"kernel", "(3,3)"}, {"pool_type", "avg"}, {"pad", "(1,1)"}},
                 TShape{2, 2, 9, 11}},
        PoolCase{"max_stride3_wide",
                 TShape{1, 2, 7, 20},
                 {{"kernel", "(3,4)"}, {"stride", "(2,3)"}, {"pad", "(1,2)"}},
                 TShape{1, 2, 4, 7}},
        PoolCase{"global_avg",
                 TShape{2, 3, 4, 5},
                 {{"kernel", "(1,1)"}, {"pool_type", "avg"}, {"global_pool", "True"}},
                 TShape{2, 3, 1, 1}},
        PoolCase{"global_max_1d", TShape{2, 3, 6}, {{"global_pool", "True"}}, TShape{2, 3, 1}},
        // Global pooling reduces each plane in one pass: planes of packets and a remainder,
        // 3-d, and of one element.
        PoolCase{"global_sum_7x7",
                 TShape{2, 3, 7, 7},
                 {{"kernel", "(1,1)"}, {"pool_type", "sum"}, {"global_pool", "True"}},
                 TShape{2, 3, 1, 1}},
        PoolCase{"global_avg_3d",
                 TShape{1, 2, 3, 4, 5},
                 {{"kernel", "(1,1,1)"}, {"pool_type", "avg"}, {"global_pool", "True"}},
                 TShape{1, 2, 1, 1, 1}},
        PoolCase{"global_avg_1x1",
                 TShape{2, 2, 1, 1},
                 {{"kernel", "(1,1)"}, {"pool_type", "avg"}, {"global_pool", "True"}},
                 TShape{2, 2, 1, 1}},
        PoolCase{"global_max_3d",
                 TShape{1, 2, 3, 4, 5},
                 {{"kernel", "(1,1,1)"}, {"global_pool", "True"}},
                 TShape{1, 2, 1, 1, 1}}),
    [](const ::testing::TestParamInfo<PoolCase>& info) { return info.param.name; });

TEST(PoolingTest, MaxGradientGoesToTheFirstMaximum) {
  // Every element equal: each window's gradient lands on its first element only.
  const OpCase c{"Pooling",
                 {{"kernel", "(2,2)"}, {"stride", "(1,1)"}},
                 {InputSpec::WithValues(TShape{1, 1, 3, 3}, Values(9, 1.0))}};
  const auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
  const auto outputs = testing::Forward(c, inputs);
  EXPECT_EQ(testing::ToValues(outputs[0].blob()), Values(4, 1.0));
}

// As MXNet 1.9.1: max skips NaN; a window with no number in it gives the lowest finite value
// and its gradient goes to its first element; a window past the input (full convention)
// gives the lowest value too and passes no gradient back.
TEST(PoolingTest, MaxSkipsNaNAndEmptyWindows) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    std::map<std::string, std::string> kwargs;
    InputSpec data;
    std::vector<double> out;  // 0 here stands for the type's lowest value
    std::vector<double> grad;
  };
  const std::vector<Case> cases = {
      {{{"kernel", "(1,2)"}, {"stride", "(1,2)"}},
       InputSpec::WithValues(TShape{1, 1, 2, 4}, {nan, 1, 2, nan, 5, 7, nan, nan}),
       {1, 2, 7, 0},
       {0, 1, 1, 0, 0, 1, 1, 0}},
      {{{"kernel", "(2,2)"}, {"stride", "(2,2)"}},
       InputSpec::WithValues(TShape{1, 1, 2, 4}, {nan, 1, 2, nan, 5, 7, nan, nan}),
       {7, 2},
       {0, 0, 1, 0, 0, 1, 0, 0}},
      {{{"kernel", "(1,2)"}, {"stride", "(1,3)"}, {"pooling_convention", "full"}},
       InputSpec::WithValues(TShape{1, 1, 1, 6}, {1, 2, 3, 4, 5, 6}),
       {2, 5, 0},
       {0, 1, 0, 0, 1, 0}},
  };
  for (const Case& pc : cases) {
    for (const int dtype : {mshadow::kFloat32, mshadow::kFloat64}) {
      const double lowest = dtype == mshadow::kFloat32 ? std::numeric_limits<float>::lowest()
                                                       : std::numeric_limits<double>::lowest();
      std::vector<double> expected = pc.out;
      for (double& v : expected) v = v == 0 ? lowest : v;
      const OpCase c{"Pooling", pc.kwargs, {pc.data}};
      const auto inputs = testing::MakeInputs(c, dtype);
      EXPECT_EQ(testing::ToValues(testing::Forward(c, inputs)[0].blob()), expected);
      EXPECT_EQ(testing::ToValues(testing::Backward(
                    c, inputs, {std::vector<double>(expected.size(), 1.0)})[0].blob()),
                pc.grad);
    }
  }
}

// Max pooling's hidden second output: each window's first maximum as an int32 offset in its
// plane (-1 for an empty window), which the backward operator follows; offsets a host gives
// that are not in the plane send their gradient nowhere.
TEST(PoolingTest, MaxKeepsItsArgmaxForTheGradient) {
  const NodeAttrs attrs =
      ParseAttrs(Op::Get("Pooling"), {{"kernel", "(1,2)"}, {"stride", "(1,2)"},
                                      {"pooling_convention", "full"}});
  EXPECT_EQ(Op::Get("Pooling")->num_visible_outputs(NodeAttrs()), 1u);
  EXPECT_EQ(Op::Get("Pooling")->num_outputs(attrs), 2u);
  EXPECT_EQ(Op::Get("Pooling")->num_outputs(ParseAttrs(
                Op::Get("Pooling"), {{"kernel", "(2,2)"}, {"pool_type", "avg"}})),
            1u);
  CpuTensor data(TShape{2, 1, 1, 5}, mshadow::kFloat32);
  testing::SetValues(data.blob(), {3, 1, 4, 4, 2, 0, 9, 9, 8, 7});
  const std::vector<CpuTensor> out = RunCpu(attrs, {data.blob()});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].type_flag(), mshadow::kInt32);
  EXPECT_EQ(testing::ToValues(out[1].blob()), (Values{0, 2, 4, 1, 2, 4}));
  // The backward operator reads the offsets given, not the data.
  testing::SetValues(out[1].blob(), {1, 3, -1, 0, 7, -5});
  CpuTensor head(out[0].shape(), mshadow::kFloat32), hidden_head(out[1].shape(), mshadow::kInt32);
  testing::SetValues(head.blob(), {1, 2, 3, 4, 5, 6});
  CpuTensor grad(data.shape(), mshadow::kFloat32);
  const NodeAttrs backward = BackwardAttrs(attrs);
  Invoke<mshadow::cpu>(backward, MakeCpuContext(backward),
                       BackwardInputs(attrs, {head.blob(), hidden_head.blob()}, {data.blob()},
                                      Blobs(out)),
                       {kWriteTo}, {grad.blob()});
  EXPECT_EQ(testing::ToValues(grad.blob()), (Values{0, 1, 0, 2, 0, 4, 0, 0, 0, 0}));
}

// The CPU zeroes the gradient's plane just ahead of the rows the windows reach; an offset a
// host gives beyond them (here output row 0 pointing at input row 3, then output row 1 back
// at row 0) still takes its gradient, with every write mode.
TEST(PoolingTest, MaxGradientFollowsOffsetsPastTheWindowsRows) {
  const NodeAttrs attrs =
      ParseAttrs(Op::Get("Pooling"), {{"kernel", "(2,2)"}, {"stride", "(2,2)"}});
  CpuTensor data(TShape{1, 1, 4, 2}, mshadow::kFloat32);
  testing::SetValues(data.blob(), {1, 2, 3, 4, 5, 6, 7, 8});
  std::vector<CpuTensor> out = RunCpu(attrs, {data.blob()});
  ASSERT_EQ(testing::ToValues(out[1].blob()), (Values{3, 7}));
  testing::SetValues(out[1].blob(), {7, 0});
  CpuTensor head(out[0].shape(), mshadow::kFloat32), hidden_head(out[1].shape(), mshadow::kInt32);
  testing::SetValues(head.blob(), {10, 20});
  const NodeAttrs backward = BackwardAttrs(attrs);
  for (OpReqType req : {kWriteTo, kAddTo}) {
    CpuTensor grad(data.shape(), mshadow::kFloat32);
    testing::SetValues(grad.blob(), {1, 1, 1, 1, 1, 1, 1, 1});
    Invoke<mshadow::cpu>(
        backward, MakeCpuContext(backward),
        BackwardInputs(attrs, {head.blob(), hidden_head.blob()}, {data.blob()}, Blobs(out)), {req},
        {grad.blob()});
    const double base = req == kAddTo ? 1 : 0;
    EXPECT_EQ(testing::ToValues(grad.blob()),
              (Values{base + 20, base, base, base, base, base, base, base + 10}))
        << "req " << req;
  }
}

// The window's elements for MaxPlaneKernelMatchesWindowLoop: ties, NaN (skipped), both
// infinities and the lowest finite value (which nothing exceeds but +inf) are frequent.
template <typename DType>
std::vector<DType> MaxPoolValues(size_t n) {
  const DType specials[] = {
      std::numeric_limits<DType>::quiet_NaN(), -std::numeric_limits<DType>::infinity(),
      std::numeric_limits<DType>::infinity(), std::numeric_limits<DType>::lowest()};
  std::vector<DType> values(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t pick = (i * 7919 + i / 5) % 37;
    values[i] = pick < 4 ? specials[pick] : DType(static_cast<int>(pick % 5) - 2);
  }
  return values;
}

// MaxPoolPlane on plane 0 of `data` against PoolWindow on every window (3-D geometry):
// maxima and first-maximum offsets.
template <typename DType>
void ExpectMaxPlaneMatchesWindowLoop(const ConvGeometry& g, const std::vector<DType>& data,
                                     bool stream) {
  std::vector<DType> value(g.OutSize());
  std::vector<int32_t> offset(g.OutSize(), 12345);
  pooling::MaxPoolPlane(0, g, data.data(), value.data(), offset.data(), stream);
  index_t at = 0;
  for (index_t od = 0; od < g.out[0]; ++od) {
    for (index_t oh = 0; oh < g.out[1]; ++oh) {
      for (index_t ow = 0; ow < g.out[2]; ++ow, ++at) {
        index_t first = 0;
        const DType expected = pooling::PoolWindow<pooling::kMax, true>(
            g, pooling::PoolSpec{}, pooling::WindowAt(g, od, oh, ow), data.data(), &first);
        ASSERT_EQ(value[at], expected) << "output (" << od << "," << oh << "," << ow << ")";
        ASSERT_EQ(offset[at], first) << "output (" << od << "," << oh << "," << ow << ")";
      }
    }
  }
}

// Max pooling's CPU plane kernel (window by window in registers where the arch has it,
// else one axis at a time) against PoolWindow on every window: widths with whole packets of
// both types and tails, kernels, strides, pads and both conventions (windows past the input,
// rows of empty windows), ordinary and streaming stores; maxima and first-maximum offsets.
template <typename DType>
void CheckMaxPlaneKernel() {
  int checked = 0;
  for (const char* convention : {"valid", "full"}) {
    for (int kernel = 1; kernel <= 4; ++kernel) {
      for (int stride = 1; stride <= 3; ++stride) {
        for (int pad = 0; pad < kernel && pad <= 2; ++pad) {
          for (const int width : {1, 5, 17, 34, 40, 67}) {
            const std::string window =
                "(" + std::to_string(kernel) + "," + std::to_string(kernel == 4 ? 2 : kernel) + ")";
            const NodeAttrs attrs = ParseAttrs(
                Op::Get("Pooling"),
                {{"kernel", window},
                 {"stride", "(" + std::to_string(stride) + "," + std::to_string(stride) + ")"},
                 {"pad", "(" + std::to_string(pad) + "," + std::to_string(pad) + ")"},
                 {"pooling_convention", convention}});
            const TShape shape{1, 1, 6, width};
            ConvGeometry g;
            try {
              g = pooling::As3D(pooling::Geometry(GetParam<pooling::PoolingParam>(attrs), shape));
            } catch (const dmlc::Error&) {
              continue;  // a window wider than the padded row
            }
            SCOPED_TRACE(window + " stride " + std::to_string(stride) + " pad " +
                         std::to_string(pad) + " width " + std::to_string(width) + " " +
                         convention);
            const std::vector<DType> data = MaxPoolValues<DType>(shape.Size());
            for (const bool stream : {false, true}) {
              std::vector<DType> value(g.OutSize());
              std::vector<int32_t> offset(g.OutSize(), 12345);
              ExpectMaxPlaneMatchesWindowLoop(g, data, stream);
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 200);
}

TEST(PoolingTest, MaxPlaneKernelMatchesWindowLoop) {
  CheckMaxPlaneKernel<float>();
  CheckMaxPlaneKernel<double>();
}

using Kwargs = std::vector<std::pair<std::string, std::string>>;

// 3-D max pooling (2-D windows a depth slice at a time, then along depth, where the arch has
// the window kernel) and global pooling (the whole plane in one pass, 1-3 axes) against
// PoolWindow, on the same values (ties, NaN, infinities, the lowest value); planes of one
// element, of every value the lowest, and of NaN only included.
template <typename DType>
void CheckMax3DAndGlobalPlanes() {
  int checked = 0;
  auto check = [&](const TShape& shape, const Kwargs& kwargs, const std::vector<DType>& data) {
    const NodeAttrs attrs = ParseAttrs(Op::Get("Pooling"), kwargs);
    const ConvGeometry g =
        pooling::As3D(pooling::Geometry(GetParam<pooling::PoolingParam>(attrs), shape));
    for (const bool stream : {false, true}) {
      SCOPED_TRACE(::testing::Message()
                   << shape << " " << kwargs[0].second << " stream " << stream);
      ExpectMaxPlaneMatchesWindowLoop(g, data, stream);
      ++checked;
    }
  };
  for (const char* convention : {"valid", "full"}) {
    for (const char* kernel : {"(2,2,2)", "(3,2,3)", "(1,3,3)"}) {
      for (const char* stride : {"(1,1,1)", "(2,2,2)", "(2,1,2)"}) {
        for (const int width : {5, 19, 34}) {
          const TShape shape{1, 1, 5, 6, width};
          check(shape,
                {{"kernel", kernel},
                 {"stride", stride},
                 {"pad", "(1,0,1)"},
                 {"pooling_convention", convention}},
                MaxPoolValues<DType>(shape.Size()));
        }
      }
    }
  }
  const DType lowest = std::numeric_limits<DType>::lowest();
  const DType nan = std::numeric_limits<DType>::quiet_NaN();
  for (const TShape& shape :
       {TShape{1, 1, 37}, TShape{1, 1, 1, 1}, TShape{1, 1, 14, 14}, TShape{1, 1, 3, 5, 7}}) {
    const Kwargs global = {{"kernel", shape.ndim() == 3   ? "(1)"
                                      : shape.ndim() == 4 ? "(1,1)"
                                                          : "(1,1,1)"},
                           {"global_pool", "True"}};
    check(shape, global, MaxPoolValues<DType>(shape.Size()));
    check(shape, global, std::vector<DType>(shape.Size(), lowest));
    check(shape, global, std::vector<DType>(shape.Size(), nan));
    std::vector<DType> last_is_max(shape.Size(), DType(-3));
    last_is_max.back() = DType(2);
    check(shape, global, last_is_max);
  }
  EXPECT_GT(checked, 100);
}

TEST(PoolingTest, Max3DAndGlobalPlanesMatchWindowLoop) {
  CheckMax3DAndGlobalPlanes<float>();
  CheckMax3DAndGlobalPlanes<double>();
}

// Where the arch has the window kernel, 2-D and 3-D max pooling of strides 1 and 2 along
// width run through it; global pooling reduces the whole plane.
TEST(PoolingTest, MaxPoolsByWindowsWhereTheArchServes) {
  for (const TShape& shape : {TShape{1, 1, 8, 8}, TShape{1, 1, 4, 8, 8}}) {
    const NodeAttrs attrs = ParseAttrs(
        Op::Get("Pooling"), shape.ndim() == 4
                                ? Kwargs{{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}}
                                : Kwargs{{"kernel", "(2,3,3)"}, {"stride", "(2,2,2)"}});
    const ConvGeometry g =
        pooling::As3D(pooling::Geometry(GetParam<pooling::PoolingParam>(attrs), shape));
    EXPECT_EQ(pooling::MaxPoolsByWindows<float>(g), OPS_MAX_POOL_WINDOW_AVX512 == 1);
    EXPECT_EQ(pooling::MaxPoolsByWindows<double>(g), OPS_MAX_POOL_WINDOW_AVX512 == 1);
    EXPECT_FALSE(pooling::PoolsWholePlane(g));
  }
  const NodeAttrs global =
      ParseAttrs(Op::Get("Pooling"), {{"kernel", "(1,1)"}, {"global_pool", "True"}});
  EXPECT_TRUE(pooling::PoolsWholePlane(pooling::As3D(
      pooling::Geometry(GetParam<pooling::PoolingParam>(global), TShape{2, 3, 14, 14}))));
}

// Max pooling writes outputs larger than the cache through streaming stores: forced on here
// (any output size), the maxima and offsets are those of ordinary stores, on aligned and
// unaligned planes (3x5 outputs) alike.
TEST(PoolingTest, MaxThroughStreamingStoresMatchesOrdinaryStores) {
  for (const TShape& shape : {TShape{2, 3, 16, 64}, TShape{2, 3, 7, 11}}) {
    const NodeAttrs attrs = ParseAttrs(
        Op::Get("Pooling"), {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}});
    CpuTensor data(shape, mshadow::kFloat32);
    std::vector<double> values(shape.Size());
    for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(0.37 * i) * 100;
    testing::SetValues(data.blob(), values);
    mshadow::SetStreamingStoreMinBytes(mshadow::kNoStreamingStores);
    const std::vector<CpuTensor> ordinary = RunCpu(attrs, {data.blob()});
    mshadow::SetStreamingStoreMinBytes(1);
    const std::vector<CpuTensor> streamed = RunCpu(attrs, {data.blob()});
    mshadow::SetStreamingStoreMinBytes(0);
    ASSERT_EQ(streamed.size(), 2u);
    EXPECT_EQ(testing::ToValues(streamed[0].blob()), testing::ToValues(ordinary[0].blob()));
    EXPECT_EQ(testing::ToValues(streamed[1].blob()), testing::ToValues(ordinary[1].blob()));
  }
}

TEST(PoolingTest, BadParametersAndShapes) {
  auto infer = [](std::map<std::string, std::string> kwargs, TShape data) {
    return testing::ErrorOf(
        [&] { testing::InferOutputShapes(OpCase{"Pooling", kwargs, {InputSpec{data}}}); });
  };
  EXPECT_THAT(infer({{"kernel", "(5,5)"}}, TShape{1, 2, 4, 9}),
              HasSubstr("the kernel (5,5) (5 on spatial axis 0) is larger than the padded input "
                        "(4) of data (1,2,4,9)"));
  EXPECT_THAT(infer({}, TShape{1, 2, 4, 4}), HasSubstr("needs a kernel unless global_pool"));
  EXPECT_THAT(infer({{"kernel", "(2,2)"}}, TShape{1, 2, 4}),
              HasSubstr("takes data of rank 4 (batch, channel, height, width) but the data is "
                        "(1,2,4)"));
  EXPECT_THAT(infer({{"kernel", "(2,)"}, {"pool_type", "lp"}, {"p_value", "4"}}, TShape{1, 2, 4}),
              HasSubstr("lp pooling takes p_value 1, 2 or 3, given 4"));
  EXPECT_THAT(infer({{"kernel", "(2,)"}, {"pool_type", "lp"}}, TShape{1, 2, 4}),
              HasSubstr("lp pooling takes p_value 1, 2 or 3, given None"));
  EXPECT_THAT(infer({{"kernel", "(2,)"}, {"pooling_convention", "same"}}, TShape{1, 2, 4}),
              HasSubstr("pooling_convention 'same' is not supported"));
  EXPECT_THAT(infer({{"kernel", "(2,2)"}, {"stride", "(0,1)"}}, TShape{1, 2, 4, 4}),
              HasSubstr("stride (0,1) has entry 0 on axis 0; each must be at least 1"));
  EXPECT_THAT(infer({{"global_pool", "True"}}, TShape{4, 5}),
              HasSubstr("global Pooling takes data of rank 3 to 5"));
  EXPECT_THAT(infer({{"kernel", "(2,2)"}, {"layout", "NHWC"}}, TShape{1, 4, 4, 2}),
              HasSubstr("channel-first layouts NCW, NCHW and NCDHW only"));
}

}  // namespace
}  // namespace ops
