// cumsum: values as MXNet 1.9.1 gives them, lines along every kind of axis (runs of 256 lines
// and their remainders on the CPU), the flattened array, dtype, gradients, bad input.
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

// Running sums of a (outer, n, inner) array along its middle axis.
Values RunningSums(const Values& x, int outer, int n, int inner) {
  Values sums(x.size());
  for (int o = 0; o < outer; ++o) {
    for (int i = 0; i < inner; ++i) {
      double sum = 0;
      for (int j = 0; j < n; ++j) {
        const int at = (o * n + j) * inner + i;
        sum += x[at];
        sums[at] = sum;
      }
    }
  }
  return sums;
}

TEST(CumsumTest, ValuesAsMXNet) {
  EXPECT_EQ(Op::Get("cumsum"), Op::Get("_np_cumsum"));
  Values arange(12);
  for (int i = 0; i < 12; ++i) arange[i] = i;
  const InputSpec a = InputSpec::WithValues(TShape{3, 4}, arange);
  testing::CheckForward({"cumsum", {{"axis", "1"}}, {a}}, [](const std::vector<Values>&) {
    return std::vector<Values>{{0, 1, 3, 6, 4, 9, 15, 22, 8, 17, 27, 38}};
  });
  const OpCase flat{"cumsum", {}, {a}};
  EXPECT_EQ(testing::InferOutputShapes(flat)[0], TShape{12});
  testing::CheckForward(flat, [](const std::vector<Values>&) {
    return std::vector<Values>{{0, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66}};
  });
}

TEST(CumsumTest, EveryAxisWritesAndGradients) {
  // (2, 5, 300): inner 300 is a run of 256 lines and a remainder of 44; inner 1 (last axis)
  // and the flattened array are one line a slice.
  const TShape shape{2, 5, 300};
  const std::vector<std::vector<int>> views = {{1, 2, 5 * 300}, {2, 5, 300}, {10, 300, 1}};
  for (int axis = 0; axis < 3; ++axis) {
    SCOPED_TRACE(axis);
    const OpCase c{"cumsum", {{"axis", std::to_string(axis - 3)}}, {InputSpec(shape)}};
    const std::vector<int> view = views[axis];
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      return std::vector<Values>{RunningSums(in[0], view[0], view[1], view[2])};
    });
    testing::CheckWriteModes(c);
    testing::CheckSameOnThreadCounts(c);
    testing::CheckGradient(c);
  }
  const OpCase flat{"cumsum", {}, {InputSpec(TShape{4, 5})}};
  testing::CheckForward(flat, [](const std::vector<Values>& in) {
    return std::vector<Values>{RunningSums(in[0], 1, 20, 1)};
  });
  testing::CheckGradient(flat);
}

TEST(CumsumTest, DtypeIsTheOutputsAndTheSumsType) {
  // 2^24 + 1 + 1 in float32 stays 2^24; in float64 the sums are exact.
  const OpCase c{"cumsum",
                 {{"axis", "0"}, {"dtype", "float64"}},
                 {InputSpec::WithValues(TShape{3}, {16777216, 1, 1})}};
  const std::vector<CpuTensor> out = testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32));
  EXPECT_EQ(out[0].type_flag(), mshadow::kFloat64);
  EXPECT_EQ(testing::ToValues(out[0].blob()), (Values{16777216, 16777217, 16777218}));
  testing::CheckGradient(
      {"cumsum", {{"axis", "1"}, {"dtype", "float64"}}, {InputSpec(TShape{2, 5})}});
}

TEST(CumsumTest, BadInputIsAnError) {
  const InputSpec a(TShape{2, 3});
  EXPECT_THAT(testing::ErrorOf([&] {
                testing::InferOutputShapes({"cumsum", {{"axis", "2"}}, {a}});
              }),
              HasSubstr("axis 2"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("cumsum"), {{"dtype", "int32"}});
              }),
              HasSubstr("'int32' for dtype, valid values are: {'None', 'float32', 'float64'}"));
}

}  // namespace
}  // namespace ops
