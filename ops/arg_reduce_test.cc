// argmax and argmin against MXNet 1.9.1's outputs on these inputs: first extreme on ties,
// axes, keepdims, the flattened data.
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

Values ArgOf(const OpCase& c, int type) {
  return testing::ToValues(testing::Forward(c, testing::MakeInputs(c, type))[0].blob());
}

TEST(ArgReduceTest, FirstExtremeAlongAxes) {
  // a = [[1, 5, 5], [7, 2, 7]]: argmax () 3, axis 1 [1, 0]; argmin axis 1 [0, 1].
  const InputSpec a = InputSpec::WithValues(TShape{2, 3}, {1, 5, 5, 7, 2, 7});
  for (int type : {mshadow::kFloat32, mshadow::kFloat64}) {
    EXPECT_EQ(ArgOf({"argmax", {}, {a}}, type), Values{3});
    EXPECT_EQ(ArgOf({"argmax", {{"axis", "1"}}, {a}}, type), (Values{1, 0}));
    EXPECT_EQ(ArgOf({"argmax", {{"axis", "0"}}, {a}}, type), (Values{1, 0, 1}));
    EXPECT_EQ(ArgOf({"argmin", {{"axis", "-1"}}, {a}}, type), (Values{0, 1}));
  }
  EXPECT_EQ(testing::InferOutputShapes({"argmax", {{"axis", "0"}, {"keepdims", "True"}}, {a}})[0], (TShape{1, 3}));
  EXPECT_EQ(testing::InferOutputShapes({"argmin", {}, {a}})[0], TShape{1});
  const OpCase random{"argmax", {{"axis", "1"}}, {InputSpec(TShape{4, 7, 3})}};
  testing::CheckWriteModes(random);
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes({"argmax", {{"axis", "2"}}, {a}}); }),
              HasSubstr("axis 2"));
}

}  // namespace
}  // namespace ops
