// ravel_multi_index and unravel_index against MXNet 1.9.1's printed values (in range, out of
// range, fractions), every numeric type, round trips, zero gradients, and the shapes refused.
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/backward.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

Values Convert(const std::string& op, const TShape& shape, const Values& values, int type,
               const std::string& target = "(7,6)") {
  const std::vector<CpuTensor> out = RunCpu(ParseAttrs(Op::Get(op), {{"shape", target}}),
                                            {testing::TensorOf(shape, type, values).blob()});
  EXPECT_EQ(out[0].type_flag(), type);
  return testing::ToValues(out[0].blob());
}

TEST(RavelTest, MXNetValuesInEveryType) {
  for (const int type : {mshadow::kFloat32, mshadow::kFloat64, mshadow::kFloat16, mshadow::kInt32,
                         mshadow::kInt64, mshadow::kUint8, mshadow::kInt8}) {
    SCOPED_TRACE(type);
    EXPECT_EQ(Convert("ravel_multi_index", TShape{2, 3}, {3, 6, 6, 4, 5, 1}, type),
              (Values{22, 41, 37}));
    EXPECT_EQ(Convert("unravel_index", TShape{3}, {22, 41, 37}, type), (Values{3, 6, 6, 4, 5, 1}));
  }
  // Out of range, as MXNet: 8 * 6 + 1 = 49, -1 * 6 + 1 = -5; 50 -> (8, 2), -1 -> (0, -1).
  EXPECT_EQ(Convert("ravel_multi_index", TShape{2, 2}, {8, -1, 1, 1}, mshadow::kFloat32),
            (Values{49, -5}));
  EXPECT_EQ(Convert("unravel_index", TShape{2}, {50, -1}, mshadow::kFloat32),
            (Values{8, 0, 2, -1}));
  // Fractions truncate: (1.7, 2.9) -> (1, 2) -> 8.
  EXPECT_EQ(Convert("ravel_multi_index", TShape{2, 1}, {1.7, 2.9}, mshadow::kFloat64), (Values{8}));
  // Not a number counts as 0.
  EXPECT_EQ(Convert("ravel_multi_index", TShape{2, 1},
                    {std::numeric_limits<double>::quiet_NaN(), 2}, mshadow::kFloat64),
            (Values{2}));
}

TEST(RavelTest, RoundTripsInThreeAxes) {
  Values flat(4 * 5 * 6);
  for (size_t i = 0; i < flat.size(); ++i) flat[i] = static_cast<double>(i);
  const Values multi =
      Convert("unravel_index", TShape{4, 30}, flat, mshadow::kInt64, "(4,5,6)");  // (3, 4, 30)
  ASSERT_EQ(multi.size(), 3 * flat.size());
  EXPECT_EQ(multi[2 * 120 + 7], 1.0);  // 7 = (0, 1, 1)
  EXPECT_EQ(Convert("ravel_multi_index", TShape{3, 120}, multi, mshadow::kInt64, "(4,5,6)"), flat);
}

TEST(RavelTest, ZeroGradientsAndWriteModes) {
  const OpCase ravel{"_ravel_multi_index", {{"shape", "(7,6)"}}, {InputSpec(TShape{2, 5}, 0, 6)}};
  const OpCase unravel{"_unravel_index", {{"shape", "(7,6)"}}, {InputSpec(TShape{5}, 0, 41)}};
  for (const OpCase& c : {ravel, unravel}) {
    SCOPED_TRACE(c.op);
    testing::CheckWriteModes(c);
    const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
    const std::vector<CpuTensor> out = testing::Forward(c, in);
    const NodeAttrs attrs = ParseAttrs(Op::Get(c.op), c.kwargs);
    const NodeAttrs backward = BackwardAttrs(attrs);
    const CpuTensor og =
        testing::TensorOf(out[0].shape(), mshadow::kFloat64, Values(out[0].shape().Size(), 1.0));
    CpuTensor grad =
        testing::TensorOf(in[0].shape(), mshadow::kFloat64, Values(in[0].shape().Size(), 5.0));
    Invoke<mshadow::cpu>(backward, OpContext(),
                         BackwardInputs(attrs, {og.blob()}, Blobs(in), Blobs(out)), {kWriteTo},
                         {grad.blob()});
    EXPECT_EQ(testing::ToValues(grad.blob()), Values(in[0].shape().Size(), 0.0));
  }
}

TEST(RavelTest, BadShapesAreNamed) {
  for (const char* shape : {"(7,-1)", "(0,3)", "()"}) {
    EXPECT_THAT(testing::ErrorOf([&] {
                  ParseAttrs(Op::Get("ravel_multi_index"), {{"shape", shape}});
                }),
                HasSubstr("shape"))
        << shape;
  }
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    OpCase{"ravel_multi_index", {{"shape", "(7,6)"}}, {InputSpec(TShape{3, 2})}});
              }),
              HasSubstr("(3,2)"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(OpCase{
                    "ravel_multi_index", {{"shape", "(7,6)"}}, {InputSpec(TShape{2, 1, 2})}});
              }),
              HasSubstr("(2,1,2)"));
  EXPECT_EQ(testing::InferOutputShapes(
                OpCase{"unravel_index", {{"shape", "(7,6)"}}, {InputSpec(TShape{2, 2})}})[0],
            (TShape{2, 2, 2}));
}

}  // namespace
}  // namespace ops
