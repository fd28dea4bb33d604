// reverse / flip: values as MXNet 1.9.1 gives them on these inputs, several axes, gradients.
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

TEST(FlipTest, ReversesTheGivenAxes) {
  EXPECT_EQ(Op::Get("flip"), Op::Get("reverse"));
  const InputSpec a = InputSpec::WithValues(TShape{2, 3}, {1, 5, 5, 7, 2, 7});
  const OpCase columns{"flip", {{"axis", "(1,)"}}, {a}};
  testing::CheckForward(columns, [](const std::vector<Values>&) {
    return std::vector<Values>{{5, 5, 1, 7, 2, 7}};
  });
  const OpCase both{"reverse", {{"axis", "(0,-1)"}}, {a}};
  testing::CheckForward(both, [](const std::vector<Values>&) {
    return std::vector<Values>{{7, 2, 7, 5, 5, 1}};
  });
  const OpCase middle{"reverse", {{"axis", "(1,)"}}, {InputSpec(TShape{3, 4, 5})}};
  testing::CheckForward(middle, [](const std::vector<Values>& in) {
    Values out;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 5; ++k) out.push_back(in[0][(i * 4 + (3 - j)) * 5 + k]);
    return std::vector<Values>{out};
  });
  for (const OpCase& c : {columns, both, middle}) {
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes({"flip", {{"axis", "(2,)"}}, {a}}); }),
              HasSubstr("axis 2"));
}

}  // namespace
}  // namespace ops
