// stack, split (SliceChannel).
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

TEST(StackSplitTest, ValuesShapesAndGradients) {
  // stack of two (2,3) on axis 1: element (i, k, j) is input k's (i, j).
  const OpCase stack{"stack",
                     {{"num_args", "2"}, {"axis", "1"}},
                     {InputSpec(TShape{2, 3}), InputSpec(TShape{2, 3})}};
  EXPECT_EQ(testing::InferOutputShapes(stack)[0], (TShape{2, 2, 3}));
  testing::CheckForward(stack, [](const std::vector<Values>& in) {
    Values out;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 3; ++j) out.push_back(in[k][i * 3 + j]);
    return std::vector<Values>{out};
  });
  // split (2,6) into 3 along axis 1: part k holds columns 2k and 2k + 1.
  const OpCase split{"split", {{"num_outputs", "3"}, {"axis", "1"}}, {InputSpec(TShape{2, 6})}};
  testing::CheckForward(split, [](const std::vector<Values>& in) {
    std::vector<Values> parts(3);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 6; ++j) parts[j / 2].push_back(in[0][i * 6 + j]);
    return parts;
  });
  const OpCase squeezed{"SliceChannel",
                        {{"num_outputs", "3"}, {"axis", "-1"}, {"squeeze_axis", "True"}},
                        {InputSpec(TShape{2, 3})}};
  EXPECT_EQ(testing::InferOutputShapes(squeezed), (std::vector<TShape>(3, TShape{2})));
  const OpCase stack_last{"stack",
                          {{"num_args", "3"}, {"axis", "-1"}},
                          {InputSpec(TShape{4}), InputSpec(TShape{4}), InputSpec(TShape{4})}};
  for (const OpCase& c : {stack, split, squeezed, stack_last}) {
    SCOPED_TRACE(c.op);
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  EXPECT_THAT(
      testing::ErrorOf([] {
        testing::InferOutputShapes({"split", {{"num_outputs", "4"}}, {InputSpec(TShape{2, 6})}});
      }),
      HasSubstr("cannot split axis 1 of (2,6) (extent 6) into 4 equal parts"));
  EXPECT_THAT(
      testing::ErrorOf([] {
        testing::InferOutputShapes(
            {"split", {{"num_outputs", "2"}, {"squeeze_axis", "1"}}, {InputSpec(TShape{2, 6})}});
      }),
      HasSubstr("squeeze_axis needs parts of extent 1 on the axis"));
  EXPECT_THAT(
      testing::ErrorOf([] {
        testing::InferOutputShapes(
            {"stack", {{"num_args", "2"}}, {InputSpec(TShape{2, 3}), InputSpec(TShape{3, 2})}});
      }),
      HasSubstr("(3,2)"));
}

}  // namespace
}  // namespace ops
