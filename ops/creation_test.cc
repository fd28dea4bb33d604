// _zeros, _ones, _full, _arange, _eye, _linspace: MXNet 1.9.1's values (its float32 rounding
// included), every type, write modes, the ranges and shapes they refuse.
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::OpCase;
using testing::Values;

CpuTensor Make(const std::string& op, const std::map<std::string, std::string>& kwargs) {
  return RunCpu(ParseAttrs(Op::Get(op), kwargs), {})[0];
}

Values ValuesOf(const std::string& op, const std::map<std::string, std::string>& kwargs) {
  return testing::ToValues(Make(op, kwargs).blob());
}

TEST(CreationTest, ConstantsInEveryType) {
  for (const std::string dtype :
       {"float32", "float64", "float16", "bfloat16", "uint8", "int8", "int32", "int64", "bool"}) {
    SCOPED_TRACE(dtype);
    const CpuTensor zeros = Make("_zeros", {{"shape", "(2,3)"}, {"dtype", dtype}});
    EXPECT_EQ(zeros.shape(), (TShape{2, 3}));
    EXPECT_EQ(mshadow::TypeFlagName(zeros.type_flag()), dtype);
    EXPECT_EQ(testing::ToValues(zeros.blob()), Values(6, 0.0));
    EXPECT_EQ(ValuesOf("_ones", {{"shape", "(4,)"}, {"dtype", dtype}}), Values(4, 1.0));
  }
  EXPECT_EQ(ValuesOf("_full", {{"shape", "(2,)"}, {"value", "2.5"}, {"dtype", "float64"}}),
            (Values{2.5, 2.5}));
  EXPECT_EQ(ValuesOf("_full", {{"shape", "(1,2)"}, {"value", "-3.7"}, {"dtype", "int32"}}),
            (Values{-3, -3}));
  EXPECT_EQ(Make("_zeros", {{"shape", "(3,)"}, {"ctx", "cpu(0)"}}).type_flag(), mshadow::kFloat32);
}

TEST(CreationTest, ArangeAsMxnet) {
  EXPECT_EQ(ValuesOf("_arange", {{"start", "1"}, {"stop", "7"}, {"step", "2"}, {"repeat", "2"}}),
            (Values{1, 1, 3, 3, 5, 5}));
  EXPECT_EQ(ValuesOf("_arange", {{"start", "5"}}), (Values{0, 1, 2, 3, 4}));
  // float32 arithmetic, as MXNet: 0.3f * 3 is 0.90000004.
  const float step = 0.3f;
  EXPECT_EQ(ValuesOf("_arange", {{"start", "0"}, {"stop", "1"}, {"step", "0.3"}}),
            (Values{0, step, step * 2, step * 3}));
  EXPECT_EQ(ValuesOf("_arange", {{"start", "0"}, {"stop", "-3"}, {"step", "-1"}}),
            (Values{0, -1, -2}));
  EXPECT_EQ(ValuesOf("_arange", {{"start", "2.5"}, {"stop", "5"}, {"dtype", "int32"}}),
            (Values{2, 3, 4}));
  EXPECT_EQ(
      ValuesOf("_arange", {{"start", "0.5"}, {"stop", "2"}, {"step", "0.5"}, {"dtype", "float64"}}),
      (Values{0.5, 1.0, 1.5}));
  const auto error_of = [](const std::map<std::string, std::string>& kwargs) {
    return testing::ErrorOf([&] { Make("_arange", kwargs); });
  };
  EXPECT_THAT(error_of({{"start", "5"}, {"stop", "1"}}),
              HasSubstr("(start, stop, step) = (5, 1, 1) is empty"));
  EXPECT_THAT(error_of({{"start", "0"}, {"stop", "1"}, {"step", "0"}}),
              HasSubstr("step must be nonzero"));
  EXPECT_THAT(error_of({{"start", "0"}, {"stop", "1e300"}, {"step", "1e-10"}}),
              HasSubstr("more elements than index_t counts"));
  EXPECT_THAT(error_of({{"start", "1"}, {"repeat", "0"}}), HasSubstr("repeat"));
}

TEST(CreationTest, EyeAndLinspaceAsMxnet) {
  EXPECT_EQ(ValuesOf("_eye", {{"N", "3"}, {"M", "4"}, {"k", "1"}}),
            (Values{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
  const CpuTensor lower = Make("_eye", {{"N", "2"}, {"k", "-1"}, {"dtype", "int64"}});
  EXPECT_EQ(lower.shape(), (TShape{2, 2}));
  EXPECT_EQ(lower.type_flag(), mshadow::kInt64);
  EXPECT_EQ(testing::ToValues(lower.blob()), (Values{0, 0, 1, 0}));
  EXPECT_EQ(ValuesOf("_eye", {{"N", "2"}, {"k", "5"}}), Values(4, 0.0));
  EXPECT_EQ(ValuesOf("_linspace", {{"start", "0"}, {"stop", "1"}, {"num", "5"}}),
            (Values{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(
      ValuesOf("_linspace", {{"start", "0"}, {"stop", "1"}, {"num", "4"}, {"endpoint", "False"}}),
      (Values{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(ValuesOf("_linspace", {{"start", "3"}, {"stop", "1"}, {"num", "1"}}), (Values{3}));
  EXPECT_THAT(testing::ErrorOf([] {
                Make("_linspace", {{"start", "0"}, {"stop", "1"}, {"num", "0"}});
              }),
              HasSubstr("num"));
  EXPECT_THAT(testing::ErrorOf([] { Make("_eye", {{"N", "0"}}); }), HasSubstr("N"));
  EXPECT_THAT(testing::ErrorOf([] { Make("_zeros", {}); }),
              HasSubstr("shape must be given, e.g. shape=(2,3)"));
}

// Write modes (in float64, whose sums the check compares exactly) and no gradient.
TEST(CreationTest, WriteModesAndNoGradient) {
  for (const OpCase& c :
       {OpCase{"_zeros", {{"shape", "(3,4)"}, {"dtype", "float64"}}, {}},
        OpCase{"_full", {{"shape", "(5,)"}, {"value", "7"}, {"dtype", "float64"}}, {}},
        OpCase{"_arange", {{"start", "3"}, {"stop", "9"}, {"dtype", "float64"}}, {}},
        OpCase{"_eye", {{"N", "3"}, {"dtype", "float64"}}, {}},
        OpCase{"_linspace",
               {{"start", "-1"}, {"stop", "2"}, {"num", "7"}, {"dtype", "float64"}},
               {}}}) {
    SCOPED_TRACE(c.op);
    testing::CheckWriteModes(c);
    EXPECT_EQ(Op::Get(c.op)->GetAttr<FGradient>("FGradient"), nullptr);
  }
}

}  // namespace
}  // namespace ops
