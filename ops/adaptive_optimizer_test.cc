// adam_update, rmsprop_update, rmspropalex_update, AdamW, ftml_update and ftrl_update against
// their formulas (MXNet 1.9.1's, which the Python suite compares with MXNet itself), states
// updated in place; AdamW's skipped update and its one-element rescale_grad.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using testing::InputSpec;
using testing::OpCase;
using testing::TensorOf;
using testing::Values;

double Clip(double x, double bound) { return bound < 0 ? x : std::max(-bound, std::min(bound, x)); }

// Runs the case in float64 on n elements; returns the weight output and every input after it.
struct UpdateRun {
  Values weight_out;
  std::vector<Values> inputs_before, inputs_after;
};
UpdateRun RunUpdate(const OpCase& c) {
  std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat64);
  UpdateRun run;
  for (const CpuTensor& t : inputs) run.inputs_before.push_back(testing::ToValues(t.blob()));
  run.weight_out = testing::ToValues(testing::Forward(c, inputs)[0].blob());
  for (const CpuTensor& t : inputs) run.inputs_after.push_back(testing::ToValues(t.blob()));
  return run;
}

// weight, grad, then `count - 2` states: positive averages of squares; rmspropalex_update's
// gradient average (its input 3) small enough that n - g_avg^2 stays positive.
std::vector<InputSpec> Inputs(int count, index_t n) {
  std::vector<InputSpec> specs = {InputSpec(TShape{n}), InputSpec(TShape{n}, -3, 3)};
  for (int i = 2; i < count; ++i) {
    const bool gradient_average = count == 5 && i == 3;
    specs.push_back(gradient_average ? InputSpec(TShape{n}, -0.2, 0.2) : InputSpec(TShape{n}, 0.5, 1));
  }
  return specs;
}

// Float parameters, as the operators hold them.
double F(const char* text) { return static_cast<float>(std::stod(text)); }

TEST(AdamUpdateTest, MomentsInPlaceAndStep) {
  for (const char* clip : {"-1", "0.5"}) {
    SCOPED_TRACE(clip);
    const OpCase c{"adam_update",
                   {{"lr", "0.01"}, {"beta1", "0.8"}, {"beta2", "0.9"}, {"epsilon", "1e-6"},
                    {"wd", "0.1"}, {"rescale_grad", "0.5"}, {"clip_gradient", clip}},
                   Inputs(4, 1001)};
    const UpdateRun run = RunUpdate(c);
    for (size_t i = 0; i < run.weight_out.size(); ++i) {
      const double w = run.inputs_before[0][i];
      const double g = Clip(F("0.5") * run.inputs_before[1][i] + F("0.1") * w, F(clip));
      const double m = F("0.8") * run.inputs_before[2][i] + (1 - F("0.8")) * g;
      const double v = F("0.9") * run.inputs_before[3][i] + (1 - F("0.9")) * g * g;
      ASSERT_NEAR(run.inputs_after[2][i], m, 1e-12);
      ASSERT_NEAR(run.inputs_after[3][i], v, 1e-12);
      ASSERT_NEAR(run.weight_out[i], w - F("0.01") * m / (std::sqrt(v) + F("1e-6")), 1e-12);
    }
  }
  EXPECT_EQ(*Op::Get("adam_update")->GetAttr<std::vector<int>>("FMutateInputs"),
            (std::vector<int>{2, 3}));
}

TEST(RMSPropUpdateTest, AverageInPlaceAndClippedStep) {
  const OpCase c{"rmsprop_update",
                 {{"lr", "0.1"}, {"gamma1", "0.9"}, {"epsilon", "1e-4"}, {"wd", "0.01"},
                  {"clip_gradient", "2"}, {"clip_weights", "0.9"}},
                 Inputs(3, 517)};
  const UpdateRun run = RunUpdate(c);
  for (size_t i = 0; i < run.weight_out.size(); ++i) {
    const double w = run.inputs_before[0][i];
    const double g = Clip(run.inputs_before[1][i] + F("0.01") * w, 2);
    const double n = F("0.9") * run.inputs_before[2][i] + (1 - F("0.9")) * g * g;
    ASSERT_NEAR(run.inputs_after[2][i], n, 1e-12);
    ASSERT_NEAR(run.weight_out[i], Clip(w - F("0.1") * g / std::sqrt(n + F("1e-4")), F("0.9")),
                1e-12);
  }
}

TEST(RMSPropAlexUpdateTest, ThreeStatesInPlace) {
  const OpCase c{"rmspropalex_update",
                 {{"lr", "0.05"}, {"gamma1", "0.9"}, {"gamma2", "0.8"}, {"epsilon", "1e-3"}},
                 Inputs(5, 300)};
  const UpdateRun run = RunUpdate(c);
  for (size_t i = 0; i < run.weight_out.size(); ++i) {
    const double g = run.inputs_before[1][i];
    const double n = F("0.9") * run.inputs_before[2][i] + (1 - F("0.9")) * g * g;
    const double avg = F("0.9") * run.inputs_before[3][i] + (1 - F("0.9")) * g;
    const double delta =
        F("0.8") * run.inputs_before[4][i] - F("0.05") * g / std::sqrt(n - avg * avg + F("1e-3"));
    ASSERT_NEAR(run.inputs_after[2][i], n, 1e-12);
    ASSERT_NEAR(run.inputs_after[3][i], avg, 1e-12);
    ASSERT_NEAR(run.inputs_after[4][i], delta, 1e-12);
    ASSERT_NEAR(run.weight_out[i], run.inputs_before[0][i] + delta, 1e-12);
  }
}

// ftml_update's inputs: weight, grad, d (positive), v (positive), z.
std::vector<InputSpec> FTMLInputs(index_t n) {
  return {InputSpec(TShape{n}), InputSpec(TShape{n}, -3, 3), InputSpec(TShape{n}, 0.5, 2),
          InputSpec(TShape{n}, 0.1, 1), InputSpec(TShape{n})};
}

TEST(FTMLUpdateTest, StatesInPlaceAndStep) {
  for (const char* clip : {"-1", "0.5"}) {
    SCOPED_TRACE(clip);
    const OpCase c{"ftml_update",
                   {{"lr", "0.1"},
                    {"beta1", "0.6"},
                    {"beta2", "0.99"},
                    {"epsilon", "1e-6"},
                    {"t", "3"},
                    {"wd", "0.01"},
                    {"rescale_grad", "0.5"},
                    {"clip_grad", clip}},
                   FTMLInputs(1001)};
    const UpdateRun run = RunUpdate(c);
    for (size_t i = 0; i < run.weight_out.size(); ++i) {
      const double w = run.inputs_before[0][i];
      const double g = Clip(F("0.5") * run.inputs_before[1][i] + F("0.01") * w, F(clip));
      const double v = F("0.99") * run.inputs_before[3][i] + (1 - F("0.99")) * g * g;
      const double d = (1 - std::pow(F("0.6"), 3)) / F("0.1") *
                       (std::sqrt(v / (1 - std::pow(F("0.99"), 3))) + 1e-6);
      const double z = F("0.6") * run.inputs_before[4][i] + (1 - F("0.6")) * g -
                       (d - F("0.6") * run.inputs_before[2][i]) * w;
      ASSERT_NEAR(run.inputs_after[2][i], d, 1e-12 * d);
      ASSERT_NEAR(run.inputs_after[3][i], v, 1e-12);
      ASSERT_NEAR(run.inputs_after[4][i], z, 1e-12 * (1 + std::fabs(z)));
      ASSERT_NEAR(run.weight_out[i], -z / d, 1e-12 * (1 + std::fabs(z / d)));
    }
  }
}

TEST(FtrlUpdateTest, StatesInPlaceAndTheL1Threshold) {
  for (const char* clip : {"-1", "0.5"}) {
    SCOPED_TRACE(clip);
    const OpCase c{"ftrl_update",
                   {{"lr", "0.1"},
                    {"lamda1", "0.5"},
                    {"beta", "2"},
                    {"wd", "0.1"},
                    {"rescale_grad", "0.5"},
                    {"clip_gradient", clip}},
                   {InputSpec(TShape{1001}), InputSpec(TShape{1001}, -3, 3),
                    InputSpec(TShape{1001}, -1.5, 1.5), InputSpec(TShape{1001}, 0, 1)}};
    const UpdateRun run = RunUpdate(c);
    int zeros = 0;
    for (size_t i = 0; i < run.weight_out.size(); ++i) {
      const double w = run.inputs_before[0][i], n = run.inputs_before[3][i];
      const double g = Clip(F("0.5") * run.inputs_before[1][i], F(clip));
      const double z =
          run.inputs_before[2][i] + g - (std::sqrt(n + g * g) - std::sqrt(n)) * w / F("0.1");
      const double l1 = F("0.5");
      const double expected =
          std::fabs(z) > l1
              ? ((z > 0 ? l1 : -l1) - z) / ((2 + std::sqrt(n + g * g)) / F("0.1") + F("0.1"))
              : 0.0;
      zeros += expected == 0.0;
      ASSERT_NEAR(run.inputs_after[2][i], z, 1e-12 * (1 + std::fabs(z)));
      ASSERT_NEAR(run.inputs_after[3][i], n + g * g, 1e-12);
      ASSERT_NEAR(run.weight_out[i], expected, 1e-12) << "z = " << z;
      if (expected == 0.0) {
        ASSERT_EQ(run.weight_out[i], 0.0) << "z = " << z;
      }
    }
    EXPECT_GT(zeros, 100);  // the threshold was crossed both ways
    EXPECT_LT(zeros, 900);
  }
}

TEST(FtrlUpdateTest, BadParametersAreNamed) {
  EXPECT_NE(testing::ErrorOf([] {
              ParseAttrs(Op::Get("ftrl_update"), {{"lr", "0.1"}, {"lamda1", "-0.5"}});
            }).find("lamda1"),
            std::string::npos);
  const std::string error = testing::ErrorOf([] {
    ParseAttrs(Op::Get("ftml_update"), {{"lr", "0.1"}, {"t", "0"}});
  });
  EXPECT_NE(error.find("t"), std::string::npos) << error;
  EXPECT_NE(error.find("0"), std::string::npos) << error;
  EXPECT_NE(testing::ErrorOf([] {
              ParseAttrs(Op::Get("ftml_update"), {{"lr", "0.1"}});
            }).find("Required parameter t"),
            std::string::npos);
}

// The states move even when the weight is not written; kAddTo adds the new weight.
TEST(AdaptiveOptimizerTest, WriteModesAndStatesUnderNullOp) {
  const std::map<std::string, std::string> lr = {{"lr", "0.1"}};
  for (const OpCase& c :
       {OpCase{"adam_update", lr, Inputs(4, 40)}, OpCase{"rmsprop_update", lr, Inputs(3, 40)},
        OpCase{"rmspropalex_update", lr, Inputs(5, 40)},
        OpCase{"ftml_update", {{"lr", "0.1"}, {"t", "2"}}, FTMLInputs(40)},
        OpCase{"ftrl_update", lr, Inputs(4, 40)}}) {
    const std::string& op = c.op;
    SCOPED_TRACE(op);
    testing::CheckWriteModes(c);
    std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat32);
    const Values state = testing::ToValues(inputs[2].blob());
    CpuTensor out(TShape{40}, mshadow::kFloat32);
    const NodeAttrs attrs = ParseAttrs(Op::Get(op), c.kwargs);
    Invoke<mshadow::cpu>(attrs, OpContext(), Blobs(inputs), {kNullOp}, {out.blob()});
    EXPECT_NE(testing::ToValues(inputs[2].blob()), state);
    EXPECT_EQ(testing::ToValues(out.blob()), Values(40, 0.0));
  }
}

// AdamW's inputs: weight, grad, mean, var (n elements), then rescale_grad's one value.
std::vector<InputSpec> AdamWInputs(index_t n, double rescale) {
  std::vector<InputSpec> specs = Inputs(4, n);
  specs.push_back(InputSpec::WithValues(TShape{1}, {rescale}));
  return specs;
}

TEST(AdamWUpdateTest, MomentsInPlaceAndDecoupledDecay) {
  for (const char* clip : {"-1", "0.5", "0"}) {
    SCOPED_TRACE(clip);
    const OpCase c{"_adamw_update",
                   {{"lr", "0.01"},
                    {"eta", "0.7"},
                    {"beta1", "0.8"},
                    {"beta2", "0.9"},
                    {"epsilon", "1e-6"},
                    {"wd", "0.1"},
                    {"clip_gradient", clip}},
                   AdamWInputs(1001, 0.5)};
    const UpdateRun run = RunUpdate(c);
    for (size_t i = 0; i < run.weight_out.size(); ++i) {
      const double w = run.inputs_before[0][i];
      const double g = Clip(0.5 * run.inputs_before[1][i], F(clip));  // no decay inside
      const double m = F("0.8") * run.inputs_before[2][i] + (1 - F("0.8")) * g;
      const double v = F("0.9") * run.inputs_before[3][i] + (1 - F("0.9")) * g * g;
      ASSERT_NEAR(run.inputs_after[2][i], m, 1e-12);
      ASSERT_NEAR(run.inputs_after[3][i], v, 1e-12);
      ASSERT_NEAR(run.weight_out[i],
                  w - F("0.7") * (F("0.01") * m / (std::sqrt(v) + F("1e-6")) + F("0.1") * w),
                  1e-12);
      ASSERT_EQ(run.inputs_after[1][i], run.inputs_before[1][i]);  // grad left alone
    }
  }
}

// The multi-precision update steps the float32 master weight as _adamw_update steps a
// float32 weight, and rounds it into the float16 output.
TEST(AdamWUpdateTest, MultiPrecisionStepsTheMasterWeight) {
  const std::map<std::string, std::string> kwargs = {{"lr", "0.1"}, {"eta", "0.5"}, {"wd", "0.01"}};
  const index_t n = 64;
  std::vector<CpuTensor> in =
      testing::MakeInputs(OpCase{"_adamw_update", kwargs, AdamWInputs(n, 2)}, mshadow::kFloat32);
  // Both see the gradient rounded to float16.
  const Values grad16 =
      testing::ToValues(TensorOf(mshadow::kFloat16, testing::ToValues(in[1].blob())).blob());
  testing::SetValues(in[1].blob(), grad16);
  std::vector<CpuTensor> mp_in;
  mp_in.push_back(TensorOf(mshadow::kFloat16, Values(n, 0.0)));  // the weight: not read
  mp_in.push_back(TensorOf(mshadow::kFloat16, grad16));
  for (const int i : {2, 3, 0, 4}) {  // mean, var, weight32 (the float32 weight), rescale_grad
    mp_in.push_back(TensorOf(mshadow::kFloat32, testing::ToValues(in[i].blob())));
  }
  const Values expected =
      testing::ToValues(RunCpu(ParseAttrs(Op::Get("_adamw_update"), kwargs), Blobs(in))[0].blob());
  const std::vector<CpuTensor> out =
      RunCpu(ParseAttrs(Op::Get("_mp_adamw_update"), kwargs), Blobs(mp_in));
  ASSERT_EQ(out[0].type_flag(), mshadow::kFloat16);
  const Values master = testing::ToValues(mp_in[4].blob()),
               mean = testing::ToValues(mp_in[2].blob());
  const Values rounded = testing::ToValues(out[0].blob()),
               plain_mean = testing::ToValues(in[2].blob());
  for (index_t i = 0; i < n; ++i) {
    ASSERT_NEAR(master[i], expected[i], 1e-6 * std::fabs(expected[i])) << i;  // in place
    ASSERT_NEAR(mean[i], plain_mean[i], 1e-6 * std::fabs(plain_mean[i]) + 1e-9) << i;
    ASSERT_NEAR(rounded[i], expected[i], 1e-3 * std::fabs(expected[i]) + 1e-6) << i;
  }
}

// A rescale_grad of NaN, infinity or 0 skips the update (MXNet's loss-scaling overflow rule):
// the output keeps what it held and the states do not move.
TEST(AdamWUpdateTest, NonFiniteOrZeroRescaleSkipsTheUpdate) {
  const double inf = std::numeric_limits<double>::infinity();
  for (const double rescale : {std::nan(""), inf, -inf, 0.0}) {
    SCOPED_TRACE(rescale);
    const OpCase c{"_adamw_update", {{"lr", "0.1"}, {"eta", "1"}}, AdamWInputs(33, rescale)};
    std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat32);
    std::vector<Values> before;
    for (const CpuTensor& t : inputs) before.push_back(testing::ToValues(t.blob()));
    CpuTensor out = TensorOf(mshadow::kFloat32, Values(33, 7.0));
    const NodeAttrs attrs = ParseAttrs(Op::Get("_adamw_update"), c.kwargs);
    Invoke<mshadow::cpu>(attrs, OpContext(), Blobs(inputs), {kWriteTo}, {out.blob()});
    EXPECT_EQ(testing::ToValues(out.blob()), Values(33, 7.0));
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(testing::ToValues(inputs[i].blob()), before[i]) << i;
  }
}

TEST(AdamWUpdateTest, RescaleGradHoldsOneElement) {
  const OpCase c{"_adamw_update",
                 {{"lr", "0.1"}, {"eta", "1"}},
                 {InputSpec(TShape{4}), InputSpec(TShape{4}), InputSpec(TShape{4}),
                  InputSpec(TShape{4}), InputSpec(TShape{2})}};
  const std::string error = testing::ErrorOf([&] { testing::InferOutputShapes(c); });
  EXPECT_NE(error.find("(2,)"), std::string::npos) << error;
  EXPECT_NE(error.find("(1,)"), std::string::npos) << error;
  EXPECT_NE(testing::ErrorOf([] {
              ParseAttrs(Op::Get("_adamw_update"), {{"lr", "0.1"}});
            }).find("Required parameter eta"),
            std::string::npos);
}

TEST(AdaptiveOptimizerTest, BadParametersAreNamed) {
  EXPECT_NE(testing::ErrorOf([] { ParseAttrs(Op::Get("adam_update"), {}); })
                .find("Required parameter lr"),
            std::string::npos);
  EXPECT_NE(testing::ErrorOf([] {
              ParseAttrs(Op::Get("rmsprop_update"), {{"lr", "0.1"}, {"gamma1", "fast"}});
            }).find("value='fast'"),
            std::string::npos);
}

}  // namespace
}  // namespace ops
