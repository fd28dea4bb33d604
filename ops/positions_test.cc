// _contrib_arange_like and _contrib_index_array against their definitions (MXNet 1.9.1's
// printed values among them), write modes, zero gradients, and the axes they refuse.
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

Values FirstOutput(const OpCase& c, int type = mshadow::kFloat64) {
  return testing::ToValues(testing::Forward(c, testing::MakeInputs(c, type))[0].blob());
}

TEST(PositionsTest, ArangeLike) {
  // MXNet: arange_like of a (2, 3) array, start 1, step 0.5, repeat 2.
  EXPECT_EQ(FirstOutput({"_contrib_arange_like",
                         {{"start", "1"}, {"step", "0.5"}, {"repeat", "2"}},
                         {InputSpec{TShape{2, 3}}}}),
            (Values{1, 1, 1.5, 1.5, 2, 2}));
  const OpCase along{
      "_contrib_arange_like", {{"axis", "1"}, {"start", "2"}}, {InputSpec{TShape{2, 3}}}};
  EXPECT_EQ(testing::InferOutputShapes(along)[0], (TShape{3}));
  EXPECT_EQ(FirstOutput(along), (Values{2, 3, 4}));
  // In float32, as MXNet: 0.1 * 3 is float32's.
  const Values f = FirstOutput({"_contrib_arange_like", {{"step", "0.1"}}, {InputSpec{TShape{4}}}},
                               mshadow::kFloat32);
  EXPECT_EQ(f[3], static_cast<double>(0.1f * 3.0f));
  const OpCase c{
      "_contrib_arange_like", {{"start", "-3"}, {"step", "0.25"}}, {InputSpec{TShape{3, 7}}}};
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);  // zero
}

TEST(PositionsTest, IndexArray) {
  const OpCase all{"_contrib_index_array", {}, {InputSpec{TShape{2, 3}}}};
  EXPECT_EQ(testing::InferOutputShapes(all)[0], (TShape{2, 3, 2}));
  EXPECT_EQ(FirstOutput(all), (Values{0, 0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2}));
  // MXNet: axes (-1, 0) of a (2, 3) array.
  const OpCase picked{"_contrib_index_array", {{"axes", "(-1,0)"}}, {InputSpec{TShape{2, 3}}}};
  EXPECT_EQ(FirstOutput(picked), (Values{0, 0, 1, 0, 2, 0, 0, 1, 1, 1, 2, 1}));
  const OpCase deep{"_contrib_index_array", {{"axes", "(2,)"}}, {InputSpec{TShape{2, 3, 4, 5}}}};
  const Values third = FirstOutput(deep);
  ASSERT_EQ(third.size(), 120u);
  for (int i = 0; i < 120; ++i) EXPECT_EQ(third[i], (i / 5) % 4) << i;
  // (The write-mode check fills outputs with reals, which int64 cannot hold.)
  testing::CheckGradient(all);  // zero
}

TEST(PositionsTest, BadAxesAreNamed) {
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    {"_contrib_index_array", {{"axes", "(0,2)"}}, {InputSpec{TShape{2, 3}}}});
              }),
              HasSubstr("axes 2 is out of range"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    {"_contrib_arange_like", {{"axis", "-3"}}, {InputSpec{TShape{2, 3}}}});
              }),
              HasSubstr("axis -3 is out of range"));
}

}  // namespace
}  // namespace ops
