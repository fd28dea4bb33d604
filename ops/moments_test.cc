// moments: MXNet 1.9.1's values, mean and population variance over every axis pattern against
// loops, keepdims, write modes of both outputs, the gradient against central differences, the
// axes it refuses.
#include <map>
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

// Mean and variance over the axes `reduced` marks of a (3, 4, 5) input, row-major over the
// kept axes.
std::vector<Values> MomentsReference(const Values& x, const std::vector<bool>& reduced) {
  const int dims[3] = {3, 4, 5};
  std::map<int, std::vector<double>> groups;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k) {
        const int at[3] = {i, j, k};
        int key = 0;
        for (int a = 0; a < 3; ++a) key = key * dims[a] + (reduced[a] ? 0 : at[a]);
        groups[key].push_back(x[(i * 4 + j) * 5 + k]);
      }
  Values mean, var;
  for (const auto& [key, v] : groups) {
    double m = 0, s = 0;
    for (double e : v) m += e;
    m /= v.size();
    for (double e : v) s += (e - m) * (e - m);
    mean.push_back(m);
    var.push_back(s / v.size());
  }
  return {mean, var};
}

TEST(MomentsTest, MxnetsValues) {
  const OpCase c{
      "moments", {{"axes", "(1,)"}}, {InputSpec::WithValues(TShape{2, 3}, {0, 1, 2, 3, 4, 5})}};
  const std::vector<CpuTensor> out = testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32));
  EXPECT_EQ(testing::ToValues(out[0].blob()), (Values{1, 4}));
  EXPECT_NEAR(testing::ToValues(out[1].blob())[0], 0.6666667, 1e-7);
  EXPECT_NEAR(testing::ToValues(out[1].blob())[1], 0.6666667, 1e-7);
}

TEST(MomentsTest, EveryAxisPatternKeepdimsWriteModesAndGradient) {
  const std::vector<std::pair<std::string, std::vector<bool>>> patterns = {
      {"(0,)", {true, false, false}},
      {"(1,)", {false, true, false}},
      {"(-1,)", {false, false, true}},
      {"(0,2)", {true, false, true}},
      {"(2,1,0)", {true, true, true}}};
  for (const auto& [axes, reduced] : patterns) {
    for (const std::string keepdims : {"False", "True"}) {
      SCOPED_TRACE("axes " + axes + " keepdims " + keepdims);
      const OpCase c{
          "moments", {{"axes", axes}, {"keepdims", keepdims}}, {InputSpec{TShape{3, 4, 5}, -2, 3}}};
      testing::CheckForward(
          c, [&](const std::vector<Values>& in) { return MomentsReference(in[0], reduced); });
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
  EXPECT_EQ(
      testing::InferOutputShapes({"moments", {{"axes", "(0,2)"}}, {InputSpec{TShape{3, 4, 5}}}})[1],
      (TShape{4}));
  EXPECT_EQ(
      testing::InferOutputShapes(
          {"moments", {{"axes", "(0,2)"}, {"keepdims", "True"}}, {InputSpec{TShape{3, 4, 5}}}})[0],
      (TShape{1, 4, 1}));
}

TEST(MomentsTest, AxesItRefuses) {
  const auto error_of = [](const std::string& axes) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes({"moments", {{"axes", axes}}, {InputSpec{TShape{3, 4}}}});
    });
  };
  EXPECT_THAT(error_of("()"), HasSubstr("moments needs axes (MXNet 1.9.1 has no empty axes)"));
  EXPECT_THAT(error_of("(0,-2)"), HasSubstr("moments: axes (0,-2) name axis 0 twice"));
  EXPECT_THAT(error_of("(2,)"), HasSubstr("axes 2 is out of range for a 2-d input"));
}

}  // namespace
}  // namespace ops
