// argmax, argmin and argmax_channel against MXNet 1.9.1's outputs on these inputs: first extreme on
// ties, axes, keepdims, the flattened data.
#include <cmath>
#include <cstdint>
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

// Lines across wide inner extents (the CPU's blocks of 256 positions, the last partial), along
// the last axis and over the flattened data (the CPU's lanes, the last chunk partial): small
// integers (many ties) and NaN, against the first extreme found by a walk along each line; a
// NaN first in line stays the answer.
TEST(ArgReduceTest, FirstExtremeOnTiesAndNaNAcrossWideRows) {
  const TShape shape{3, 20, 300};
  Values x;
  for (int i = 0; i < static_cast<int>(shape.Size()); ++i) {
    x.push_back(i % 97 == 0 ? NAN : static_cast<double>((i * 7919) % 13));
  }
  for (const std::string op : {"argmax", "argmin"}) {
    for (const int axis : {0, 1, 2, -1}) {  // -1: no axis, the flattened data
      SCOPED_TRACE(op + " axis " + std::to_string(axis));
      const bool flat = axis < 0;
      const int64_t n = flat ? shape.Size() : shape[axis];
      const int64_t inner = flat ? 1 : shape.ProdShape(axis + 1, 3);
      const int64_t outer = flat ? 1 : shape.ProdShape(0, axis);
      Values expected;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t j = 0; j < inner; ++j) {
          auto at = [&](int64_t k) { return x[(o * n + k) * inner + j]; };
          int64_t best = 0;
          for (int64_t k = 1; k < n; ++k) {
            if (op == "argmax" ? at(k) > at(best) : at(k) < at(best)) best = k;
          }
          expected.push_back(static_cast<double>(best));
        }
      }
      for (int type : {mshadow::kFloat32, mshadow::kFloat64}) {
        const std::string axis_value = flat ? "None" : std::to_string(axis);
        EXPECT_EQ(ArgOf({op, {{"axis", axis_value}}, {InputSpec::WithValues(shape, x)}}, type),
                  expected);
      }
    }
  }
}

// An output position whose line is empty has no answer: an error (a search there would read
// outside the data), unless the output is empty too.
TEST(ArgReduceTest, AnEmptyLineIsAnErrorUnlessTheOutputIsEmpty) {
  auto error = [](const OpCase& c) {
    return testing::ErrorOf([&] { testing::InferOutputShapes(c); });
  };
  EXPECT_THAT(error({"argmax", {{"axis", "1"}}, {InputSpec(TShape{2, 0})}}),
              HasSubstr("argmax: data (2,0) has no element to compare along the axis, but the "
                        "output (2,) is not empty"));
  EXPECT_THAT(error({"argmin", {}, {InputSpec(TShape{0, 3})}}),
              HasSubstr("argmin: data (0,3) has no element"));
  EXPECT_THAT(error({"argmax_channel", {}, {InputSpec(TShape{2, 0, 4})}}),
              HasSubstr("argmax_channel: data (2,0,4) has no element"));
  EXPECT_EQ(testing::InferOutputShapes({"argmax", {{"axis", "1"}}, {InputSpec(TShape{0, 3})}})[0],
            TShape{0});
}

// argmax_channel is argmax along axis 1 (MXNet 1.9.1: [[1, 3, 2], [5, 0, 5]] -> [1, 0]; a
// (2, 3, 4) ramp -> 2 at every position of shape (2, 4)) and takes no parameters.
TEST(ArgReduceTest, ArgmaxChannelIsAxisOne) {
  EXPECT_EQ(ArgOf({"argmax_channel", {}, {InputSpec::WithValues(TShape{2, 3}, {1, 3, 2, 5, 0, 5})}},
                  mshadow::kFloat32),
            (Values{1, 0}));
  Values ramp(24);
  for (int i = 0; i < 24; ++i) ramp[i] = i;
  const OpCase cube{"argmax_channel", {}, {InputSpec::WithValues(TShape{2, 3, 4}, ramp)}};
  EXPECT_EQ(testing::InferOutputShapes(cube)[0], (TShape{2, 4}));
  EXPECT_EQ(ArgOf(cube, mshadow::kFloat64), Values(8, 2.0));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("argmax_channel"), {{"axis", "0"}});
              }),
              HasSubstr("argmax_channel takes no parameters, got axis"));
}

}  // namespace
}  // namespace ops
