// GroupNorm and InstanceNorm against a float64 reference (groups of several channels, one
// channel, one group; spatial or not), GroupNorm's mean and std outputs, write modes and
// numerical gradients (data, gamma, beta), and their errors.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/group_norm-inl.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

// out, mean, std of data viewed as `lines` contiguous lines; line l takes gamma and beta of
// group l % groups.
std::vector<Values> ReferenceGroupNorm(const std::vector<Values>& in, int lines, int groups,
                                       double eps) {
  const int length = static_cast<int>(in[0].size()) / lines;
  Values out(in[0].size()), mean(lines), std_dev(lines);
  for (int l = 0; l < lines; ++l) {
    const double* x = in[0].data() + l * length;
    double m = 0, v = 0;
    for (int j = 0; j < length; ++j) m += x[j] / length;
    for (int j = 0; j < length; ++j) v += std::pow(x[j] - m, 2) / length;
    mean[l] = m;
    std_dev[l] = std::sqrt(v + eps);
    for (int j = 0; j < length; ++j) {
      out[l * length + j] = (x[j] - m) / std_dev[l] * in[1][l % groups] + in[2][l % groups];
    }
  }
  return {out, mean, std_dev};
}

struct NormCase {
  std::string name;
  std::string op;
  TShape data;
  int groups;  // GroupNorm's num_groups; for InstanceNorm, the channels
};

class GroupNormTest : public ::testing::TestWithParam<NormCase> {};

TEST_P(GroupNormTest, MatchesReferenceWithGradients) {
  const NormCase& nc = GetParam();
  const bool instance = nc.op == "InstanceNorm";
  for (const bool with_moments :
       instance ? std::vector<bool>{false} : std::vector<bool>{false, true}) {
    SCOPED_TRACE(with_moments ? "output_mean_var" : "one output");
    OpCase c{nc.op,
             {{"eps", "0.001"}},
             {InputSpec{nc.data, -2, 2}, InputSpec{TShape{nc.groups}, 0.5, 1.5},
              InputSpec{TShape{nc.groups}}}};
    if (!instance) {
      c.kwargs["num_groups"] = std::to_string(nc.groups);
      c.kwargs["output_mean_var"] = with_moments ? "True" : "False";
    }
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      std::vector<Values> all = ReferenceGroupNorm(in, static_cast<int>(nc.data[0]) * nc.groups,
                                                   nc.groups, static_cast<double>(0.001f));
      if (!with_moments) all.resize(1);
      return all;
    });
    testing::CheckWriteModes(c);
    if (!with_moments) testing::CheckGradient(c);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GroupNormTest,
    ::testing::Values(NormCase{"groups_of_two_channels", "GroupNorm", TShape{2, 6, 3, 5}, 3},
                      NormCase{"one_group", "GroupNorm", TShape{3, 4, 7}, 1},
                      NormCase{"a_group_per_channel", "GroupNorm", TShape{2, 4, 9}, 4},
                      NormCase{"long_lines", "GroupNorm", TShape{2, 4, 11, 13}, 2},
                      NormCase{"instance_2d", "InstanceNorm", TShape{2, 3, 4, 5}, 3},
                      NormCase{"instance_1d", "InstanceNorm", TShape{4, 5, 37}, 5},
                      NormCase{"instance_3d", "InstanceNorm", TShape{1, 2, 3, 4, 5}, 2}),
    [](const ::testing::TestParamInfo<NormCase>& info) { return info.param.name; });

TEST(GroupNormTest, ShapesAsMxnet) {
  std::vector<TShape> in = {TShape{2, 6, 3, 4}, TShape(), TShape()}, out;
  InferShapes(ParseAttrs(Op::Get("GroupNorm"), {{"num_groups", "3"}, {"output_mean_var", "True"}}),
              &in, &out);
  EXPECT_EQ(in[1], (TShape{3}));
  EXPECT_EQ(out[0], (TShape{2, 6, 3, 4}));
  EXPECT_EQ(out[1], (TShape{2, 3}));
  EXPECT_EQ(out[2], (TShape{2, 3}));
  in = {TShape{2, 6}, TShape(), TShape()};
  out.clear();
  InferShapes(ParseAttrs(Op::Get("InstanceNorm"), {}), &in, &out);
  EXPECT_EQ(in[2], (TShape{6}));
  EXPECT_EQ(out[0], (TShape{2, 6}));
  EXPECT_FLOAT_EQ(
      GetParam<group_norm::InstanceNormParam>(ParseAttrs(Op::Get("InstanceNorm"), {})).eps, 1e-3f);
}

TEST(GroupNormTest, ErrorsNameTheBadValue) {
  auto infer = [](const std::string& op, std::map<std::string, std::string> kwargs, TShape data,
                  TShape gamma) {
    testing::InferOutputShapes(
        OpCase{op, kwargs, {InputSpec{data}, InputSpec{gamma}, InputSpec{TShape()}}});
  };
  EXPECT_THAT(testing::ErrorOf([&] {
                infer("GroupNorm", {{"num_groups", "4"}}, TShape{2, 6, 3}, TShape());
              }),
              HasSubstr("num_groups 4 must divide the 6 channels of data (2,6,3)"));
  EXPECT_THAT(testing::ErrorOf([&] {
                infer("GroupNorm", {}, TShape{2, 6}, TShape());
              }),
              HasSubstr("data (2,6) must have at least 3 axes"));
  EXPECT_THAT(testing::ErrorOf([&] {
                infer("GroupNorm", {{"num_groups", "2"}}, TShape{2, 6, 3}, TShape{6});
              }),
              HasSubstr("(2,)"));
  EXPECT_THAT(testing::ErrorOf([&] { infer("InstanceNorm", {}, TShape{6}, TShape()); }),
              HasSubstr("data (6,) must have at least 2 axes"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("GroupNorm"), {{"num_groups", "0"}});
              }),
              HasSubstr("num_groups"));
}

}  // namespace
}  // namespace ops
