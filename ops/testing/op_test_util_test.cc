// The checks in op_test_util must catch broken operators: each test registers one with a
// known defect and expects the check to report it.
#include "ops/testing/op_test_util.h"

#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"
#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace ops {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

// The messages of the failures `check` reports (intercepted: they do not fail this test).
std::vector<std::string> FailuresOf(const std::function<void()>& check) {
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    check();
  }
  std::vector<std::string> messages;
  for (int i = 0; i < results.size(); ++i) messages.push_back(results.GetTestPartResult(i).message());
  return messages;
}

// y = 3x, correct forward; its backward is off by a factor of 2, and it ignores kAddTo.
void TripleCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    for (index_t i = 0; i < out[0].Size(); ++i) {
      if (req[0] == kAddTo) {
        y[i] += 3 * x[i];
      } else if (req[0] != kNullOp) {
        y[i] = 3 * x[i];
      }
    }
  });
}
void WrongTripleBackward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  for (index_t i = 0; i < out[0].Size(); ++i) out[0].dptr<double>()[i] = 6 * in[0].dptr<double>()[i];
}
// Forward that ignores req: always overwrites.
void OverwritingCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  for (index_t i = 0; i < out[0].Size(); ++i) out[0].dptr<double>()[i] = in[0].dptr<double>()[i];
}

const bool kRegistered = [] {
  RegisterOp("_test_wrong_gradient")
      .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
      .set_attr<FInferType>("FInferType", ElemwiseType<1, 1>)
      .set_attr<FCompute>("FCompute<cpu>", TripleCompute)
      .set_attr<FGradient>("FGradient", FGradient{"_test_wrong_gradient_backward", false, false});
  RegisterOp("_test_wrong_gradient_backward")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .set_attr<bool>("TIsBackward", true)
      .set_attr<FCompute>("FCompute<cpu>", WrongTripleBackward);
  RegisterOp("_test_ignores_req")
      .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
      .set_attr<FInferType>("FInferType", ElemwiseType<1, 1>)
      .set_attr<FCompute>("FCompute<cpu>", OverwritingCompute);
  return true;
}();

const testing::OpCase kWrongGradient{"_test_wrong_gradient", {}, {testing::InputSpec{TShape{3}}}};

TEST(OpTestUtilTest, CatchesAWrongGradientAndAnIgnoredReq) {
  const auto gradient_failures = FailuresOf([] { testing::CheckGradient(kWrongGradient); });
  EXPECT_THAT(gradient_failures, Contains(HasSubstr("gradient of input 0")));
  EXPECT_THAT(gradient_failures, Contains(HasSubstr("backward kAddTo")));
  EXPECT_THAT(gradient_failures, Contains(HasSubstr("backward kNullOp")));
  EXPECT_THAT(FailuresOf([] {
                testing::CheckWriteModes(
                    testing::OpCase{"_test_ignores_req", {}, {testing::InputSpec{TShape{3}}}});
              }),
              Contains(HasSubstr("req 3")));  // kAddTo
  EXPECT_TRUE(FailuresOf([] {
                testing::CheckWriteModes(testing::OpCase{"relu", {}, {testing::InputSpec{TShape{3}}}});
              }).empty())
      << "a correct operator passes";
}

TEST(OpTestUtilTest, CatchesAWrongForward) {
  EXPECT_THAT(FailuresOf([] {
                testing::CheckForward(kWrongGradient, [](const std::vector<testing::Values>& in) {
                  testing::Values out = in[0];
                  for (double& v : out) v *= 2;  // the operator computes 3x
                  return std::vector<testing::Values>{out};
                });
              }),
              Contains(HasSubstr("float64 output 0")));
}

// A million wrong elements make one failure of bounded length that counts them and names the
// first; infinities equal to the expected ones and NaN where NaN is expected pass.
TEST(OpTestUtilTest, ExpectCloseReportsOnceHoweverManyElementsDiffer) {
  const testing::Values expected(1000000, 1.0);
  const testing::Values actual(1000000, 2.0);
  const std::vector<std::string> failures =
      FailuresOf([&] { testing::ExpectClose(expected, actual, 1e-6, 0, "big output"); });
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_THAT(failures[0], HasSubstr("big output: 1000000 of 1000000 elements differ"));
  EXPECT_THAT(failures[0], HasSubstr("element 0: expected 1, actual 2"));
  EXPECT_THAT(failures[0], HasSubstr("element 7:"));
  EXPECT_THAT(failures[0], ::testing::Not(HasSubstr("element 8:")));
  EXPECT_LT(failures[0].size(), 2000u);

  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(FailuresOf([&] {
                testing::ExpectClose({inf, -inf, nan, 1.0}, {inf, -inf, nan, 1.0 + 1e-9}, 1e-6, 0,
                                     "specials");
              }),
              ::testing::IsEmpty());
  EXPECT_THAT(FailuresOf([&] {
                testing::ExpectClose({1.0, 2.0, nan}, {1.0, nan, 3.0}, 1e-6, 0, "specials");
              }),
              ::testing::ElementsAre(HasSubstr("specials: 2 of 3 elements differ:")));
}

}  // namespace
}  // namespace ops
