// _contrib_index_copy against MXNet 1.9.1's printed values and a loop, write modes, gradients
// (MXNet's printed ones among them), and the indices and shapes it refuses.
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

OpCase Copy(const TShape& old_shape, const Values& index, const TShape& new_shape,
            const Values& old_values = {}, const Values& new_values = {}) {
  InputSpec o =
      old_values.empty() ? InputSpec{old_shape} : InputSpec::WithValues(old_shape, old_values);
  InputSpec n =
      new_values.empty() ? InputSpec{new_shape} : InputSpec::WithValues(new_shape, new_values);
  InputSpec i = InputSpec::WithValues(TShape{static_cast<index_t>(index.size())}, index);
  i.differentiable = false;
  return {"_contrib_index_copy", {}, {o, i, n}};
}

TEST(IndexCopyTest, MxnetsValuesAndGradients) {
  // MXNet: index_copy(zeros((4, 3)), [2, 0], ones((2, 3))), and its gradients for an output
  // gradient 0..11.
  const OpCase c = Copy(TShape{4, 3}, {2, 0}, TShape{2, 3}, Values(12, 0.0), Values(6, 1.0));
  const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat32);
  EXPECT_EQ(testing::ToValues(testing::Forward(c, in)[0].blob()),
            (Values{1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0}));
  Values out_grad(12);
  for (int i = 0; i < 12; ++i) out_grad[i] = i;
  const std::vector<CpuTensor> grads = testing::Backward(c, in, {out_grad});
  EXPECT_EQ(testing::ToValues(grads[0].blob()), (Values{0, 0, 0, 3, 4, 5, 0, 0, 0, 9, 10, 11}));
  EXPECT_EQ(testing::ToValues(grads[1].blob()), (Values{0, 0}));
  EXPECT_EQ(testing::ToValues(grads[2].blob()), (Values{6, 7, 8, 0, 1, 2}));
}

TEST(IndexCopyTest, AgainstALoopWithWriteModesAndGradients) {
  const Values index = {4, 0, 5};
  const OpCase c = Copy(TShape{7, 2, 3}, index, TShape{3, 2, 3});
  testing::CheckForward(c, [&](const std::vector<Values>& in) {
    Values out = in[0];
    for (size_t j = 0; j < index.size(); ++j) {
      for (int e = 0; e < 6; ++e) out[static_cast<size_t>(index[j]) * 6 + e] = in[2][j * 6 + e];
    }
    return std::vector<Values>{out};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

TEST(IndexCopyTest, BadIndicesAndShapesAreNamed) {
  const auto forward_error = [](const Values& index) {
    const OpCase c = Copy(TShape{4, 3}, index, TShape{static_cast<index_t>(index.size()), 3});
    return testing::ErrorOf(
        [&] { testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32)); });
  };
  EXPECT_EQ(forward_error({1, 4}),
            "_contrib_index_copy: index 4 at position 1 is outside old_tensor's 4 rows (valid: 0 "
            "to 3)");
  EXPECT_THAT(forward_error({-1}), HasSubstr("index -1 at position 0 is outside"));
  EXPECT_EQ(forward_error({2, 0, 2}),
            "_contrib_index_copy: row 2 is named twice (positions 0 and 2); valid: distinct rows");
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    {"_contrib_index_copy",
                     {},
                     {InputSpec{TShape{4, 3}}, InputSpec{TShape{2}}, InputSpec{TShape{2, 4}}}});
              }),
              HasSubstr("new_tensor (2,4) must be (M, ...) with old_tensor (4,3)'s trailing axes"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    {"_contrib_index_copy",
                     {},
                     {InputSpec{TShape{4, 3}}, InputSpec{TShape{2, 1}}, InputSpec{TShape{2, 3}}}});
              }),
              HasSubstr("index_vector must be a vector (M,), got (2,1)"));
}

}  // namespace
}  // namespace ops
