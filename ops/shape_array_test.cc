// shape_array and size_array: values and types as MXNet 1.9.1 gives them (int64, whatever the
// data's type), every write mode, a rank past one kernel chunk, zero gradients.
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using testing::InputSpec;
using testing::OpCase;
using testing::Values;

// The operator's output on data of `shape` and `type`, written over `before` as `req` says.
Values RunOver(const char* op, const TShape& shape, int type, OpReqType req, int64_t before) {
  const NodeAttrs attrs = ParseAttrs(Op::Get(op), {});
  const CpuTensor data(shape, type);
  const std::vector<TShape> out_shapes = testing::InferOutputShapes({op, {}, {InputSpec{shape}}});
  CpuTensor out(out_shapes[0], mshadow::kInt64);
  for (index_t i = 0; i < out.shape().Size(); ++i) out.data<int64_t>()[i] = before;
  Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs), {data.blob()}, {req}, {out.blob()});
  return testing::ToValues(out.blob());
}

TEST(ShapeArrayTest, ShapeAndSizeInEveryWriteMode) {
  for (const int type : {mshadow::kFloat32, mshadow::kFloat16, mshadow::kInt32, mshadow::kUint8}) {
    EXPECT_EQ(RunOver("shape_array", TShape{2, 3, 4}, type, kWriteTo, 7), (Values{2, 3, 4}));
    EXPECT_EQ(RunOver("size_array", TShape{2, 3, 4}, type, kWriteTo, 7), (Values{24}));
  }
  EXPECT_EQ(RunOver("shape_array", TShape{2, 3, 4}, mshadow::kFloat32, kAddTo, 10),
            (Values{12, 13, 14}));
  EXPECT_EQ(RunOver("size_array", TShape{5}, mshadow::kFloat64, kAddTo, -1), (Values{4}));
  EXPECT_EQ(RunOver("shape_array", TShape{2, 3}, mshadow::kFloat32, kNullOp, 9), (Values{9, 9}));
  // 20 axes: two of the kernel's chunks of 16 values.
  std::vector<index_t> dims(20, 1);
  for (int a = 0; a < 20; a += 3) dims[a] = a + 2;
  Values expected(dims.begin(), dims.end());
  EXPECT_EQ(
      RunOver("shape_array", TShape(dims.begin(), dims.end()), mshadow::kFloat32, kWriteTo, 0),
      expected);
}

TEST(ShapeArrayTest, TypesShapesAndZeroGradients) {
  for (const char* op : {"shape_array", "size_array"}) {
    const OpCase c{op, {}, {InputSpec{TShape{3, 4}}}};
    const std::vector<CpuTensor> out =
        testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32));
    EXPECT_EQ(out[0].type_flag(), mshadow::kInt64) << op;
    const index_t count = op[1] == 'h' ? 2 : 1;  // shape_array's (the rank) or size_array's
    EXPECT_EQ(out[0].shape(), TShape{count}) << op;
    // The values are piecewise constant in the data: its gradient is zero.
    const std::vector<CpuTensor> grads =
        testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat32), {Values(count, 1.0)});
    EXPECT_EQ(testing::ToValues(grads[0].blob()), Values(12, 0.0)) << op;
  }
}

}  // namespace
}  // namespace ops
