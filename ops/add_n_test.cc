// add_n / ElementWiseSum: sums of one to nine arrays (the first pass over memory takes four,
// each further one three), write modes, gradients, shapes.
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

TEST(AddNTest, SumsWriteModesAndGradients) {
  EXPECT_EQ(Op::Get("ElementWiseSum"), Op::Get("add_n"));
  for (int n = 1; n <= 9; ++n) {
    SCOPED_TRACE(n);
    // 69 elements: whole packets and a tail on every arch.
    const OpCase c{"add_n",
                   {{"num_args", std::to_string(n)}},
                   std::vector<InputSpec>(n, InputSpec(TShape{3, 23}))};
    testing::CheckForward(c, [n](const std::vector<Values>& in) {
      Values out(in[0].size(), 0.0);
      for (int k = 0; k < n; ++k)
        for (size_t i = 0; i < out.size(); ++i) out[i] += in[k][i];
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"add_n", {{"num_args", "2"}}, {InputSpec(TShape{3}), InputSpec(TShape{4})}});
              }),
              HasSubstr("(4,)"));
}

}  // namespace
}  // namespace ops
