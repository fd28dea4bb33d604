// SoftmaxActivation: per instance and per channel, against softmax written out; gradients.
#include <cmath>
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

// Softmax of x viewed as (outer, n, inner) along the middle axis.
Values SoftmaxAlong(const Values& x, size_t outer, size_t n, size_t inner) {
  Values y(x.size());
  for (size_t o = 0; o < outer; ++o) {
    for (size_t k = 0; k < inner; ++k) {
      double sum = 0;
      for (size_t j = 0; j < n; ++j) sum += std::exp(x[(o * n + j) * inner + k]);
      for (size_t j = 0; j < n; ++j) y[(o * n + j) * inner + k] = std::exp(x[(o * n + j) * inner + k]) / sum;
    }
  }
  return y;
}

TEST(SoftmaxActivationTest, InstanceAndChannelModes) {
  const OpCase instance{"SoftmaxActivation", {}, {InputSpec(TShape{2, 3, 4})}};
  testing::CheckForward(instance, [](const std::vector<Values>& in) {
    return std::vector<Values>{SoftmaxAlong(in[0], 6, 4, 1)};  // the last axis, as MXNet
  });
  const OpCase channel{"SoftmaxActivation", {{"mode", "channel"}}, {InputSpec(TShape{2, 3, 2, 2})}};
  testing::CheckForward(channel, [](const std::vector<Values>& in) {
    return std::vector<Values>{SoftmaxAlong(in[0], 2, 3, 4)};
  });
  for (const OpCase& c : {instance, channel}) {
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
}

TEST(SoftmaxActivationTest, RankBelowTheModesMinimumIsAnError) {
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"SoftmaxActivation", {{"mode", "channel"}}, {InputSpec(TShape{2, 3})}});
              }),
              HasSubstr("SoftmaxActivation with mode=channel takes data of rank 3 or more; the "
                        "data is (2,3)"));
  EXPECT_EQ(testing::InferOutputShapes({"SoftmaxActivation", {}, {InputSpec(TShape{5})}})[0],
            TShape{5});
}

}  // namespace
}  // namespace ops
