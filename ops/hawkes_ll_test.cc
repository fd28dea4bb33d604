// _contrib_hawkesll against MXNet 1.9.1's printed log likelihoods, states and gradients (in
// lda, alpha and beta: MXNet's; it computes them in float even for float64 data), its whole
// gradient (the states output's and the starting states' too) against central differences,
// write modes, a sample without events, marks past a sample's valid events left unread, and the
// events and shapes it refuses.
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

// MXNet's probe: 3 samples, 2 marks, 4 steps; sample 1 starts from nonzero states and has 3
// valid events, sample 2 two (its marks past them, 5 and 7, are not marks of the process).
OpCase ProbeCase(const Values& marks = {0, 1, 0, 0, 1, 1, 0, 1, 0, 1, 5, 7},
                 const Values& valid_length = {4, 3, 2}) {
  const auto fixed = [](const TShape& shape, const Values& v) {
    InputSpec s = InputSpec::WithValues(shape, v);
    s.differentiable = false;
    return s;
  };
  InputSpec mark_spec = fixed(TShape{3, 4}, marks);
  mark_spec.type_flag = mshadow::kInt32;
  return {
      "_contrib_hawkesll",
      {},
      {InputSpec::WithValues(TShape{3, 2}, {0.5, 0.3, 0.2, 0.6, 0.4, 0.4}),
       InputSpec::WithValues(TShape{2}, {0.6, 0.3}), InputSpec::WithValues(TShape{2}, {1.5, 0.8}),
       InputSpec::WithValues(TShape{3, 2}, {0, 0, 0.5, 1.2, 0.3, 0}),
       fixed(TShape{3, 4}, {0.3, 0.7, 0.2, 1.1, 0.5, 0.25, 0.9, 0.4, 0.6, 0.6, 0.6, 0.6}),
       mark_spec, fixed(TShape{3}, valid_length), fixed(TShape{3}, {3, 2.5, 1.5})}};
}

TEST(HawkesLLTest, AsMxnet) {
  const OpCase c = ProbeCase();
  const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
  const std::vector<CpuTensor> out = testing::Forward(c, in);
  testing::ExpectClose(Values{-6.7177585876, -5.2164124618, -3.4595745209},
                       testing::ToValues(out[0].blob()), 1e-6, 1e-7, "log likelihood");
  testing::ExpectClose(
      Values{0.4345656623, 0.2018965185, 0.2911898598, 0.6108958598, 0.2908600047, 0.7866278887},
      testing::ToValues(out[1].blob()), 1e-6, 1e-7, "states");
  const std::vector<CpuTensor> grads =
      testing::Backward(c, in, {Values{0.7, -1.3, 0.4}, Values(6, 0.0)});
  testing::ExpectClose(
      Values{1.229969104, 0.2333333333, -2.2150931336, 0.2488697788, 0.1846617336, 0.4},
      testing::ToValues(grads[0].blob()), 1e-6, 1e-7, "lda gradient");
  testing::ExpectClose(Values{-0.1043912167, 0.0574078765}, testing::ToValues(grads[1].blob()),
                       1e-6, 1e-7, "alpha gradient");
  testing::ExpectClose(Values{-0.0066574621, -0.2415695123}, testing::ToValues(grads[2].blob()),
                       1e-6, 1e-7, "beta gradient");
  for (int i = 4; i < 8; ++i) {
    EXPECT_EQ(testing::ToValues(grads[i].blob()), Values(grads[i].blob().Size(), 0.0)) << i;
  }
}

// Both outputs' gradients in lda, alpha, beta and the starting states; the events' times
// stay off each other, where the likelihood is smooth.
TEST(HawkesLLTest, GradientsAndWriteModes) {
  const OpCase c = ProbeCase();
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

// Without events the log likelihood is minus the compensators: sum over k of
// lda_k T + alpha_k s_k (1 - exp(-beta_k T)); the states decay by exp(-beta_k T).
TEST(HawkesLLTest, ASampleWithoutEvents) {
  const OpCase c = ProbeCase({0, 1, 0, 0, 1, 1, 0, 1, 0, 1, 5, 7}, {4, 0, 2});
  const std::vector<CpuTensor> out = testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat64));
  const double e0 = std::exp(-1.5 * 2.5), e1 = std::exp(-0.8 * 2.5);
  EXPECT_NEAR(testing::ToValues(out[0].blob())[1],
              -(0.2 * 2.5 + 0.6 * 0.5 * (1 - e0) + 0.6 * 2.5 + 0.3 * 1.2 * (1 - e1)), 1e-12);
  const Values states = testing::ToValues(out[1].blob());
  EXPECT_NEAR(states[2], 0.5 * e0, 1e-12);
  EXPECT_NEAR(states[3], 1.2 * e1, 1e-12);
}

TEST(HawkesLLTest, BadEventsAndShapesAreNamed) {
  const auto error_of = [](const OpCase& c) {
    return testing::ErrorOf(
        [&] { testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32)); });
  };
  EXPECT_THAT(error_of(ProbeCase({0, 1, 0, 0, 1, 2, 0, 1, 0, 1, 5, 7})),
              HasSubstr("mark 2 of event 1 of sample 1; valid: 0 to 1"));
  EXPECT_THAT(error_of(ProbeCase({0, 1, 0, -1, 1, 1, 0, 1, 0, 1, 5, 7})),
              HasSubstr("mark -1 of event 3 of sample 0"));
  EXPECT_THAT(error_of(ProbeCase({0, 1, 0, 0, 1, 1, 0, 1, 0, 1, 5, 7}, {4, 5, 2})),
              HasSubstr("valid_length 5 of sample 1; valid: whole numbers 0 to 4"));
  EXPECT_THAT(error_of(ProbeCase({0, 1, 0, 0, 1, 1, 0, 1, 0, 1, 5, 7}, {4, 2.5, 2})),
              HasSubstr("valid_length 2.5 of sample 1"));
  OpCase c = ProbeCase();
  c.inputs[4] = InputSpec{TShape{2, 4}};
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(c); }),
              HasSubstr("lda (3,2) and lags (2,4) must be (samples, marks)"));
  c = ProbeCase();
  c.inputs[1] = InputSpec{TShape{3}};
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(c); }), HasSubstr("alpha"));
}

}  // namespace
}  // namespace ops
