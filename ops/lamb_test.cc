// The LAMB phases against their formulas (MXNet 1.9.1's, which the Python suite compares with
// MXNet itself): moments in place, bias correction, the trust ratio and its bounds, the
// master weight of the multi-precision phases, shapes and types.
#include <cmath>
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
double F(const char* text) { return static_cast<float>(std::stod(text)); }  // as the op holds it

TEST(LambTest, PhaseOneMomentsInPlaceAndBiasCorrectedDirection) {
  for (const std::string correct : {"True", "False"}) {
    for (const char* clip : {"-1", "0.4"}) {
      SCOPED_TRACE(correct + " clip " + clip);
      const OpCase c{"lamb_update_phase1",
                     {{"beta1", "0.8"},
                      {"beta2", "0.9"},
                      {"epsilon", "1e-4"},
                      {"t", "3"},
                      {"bias_correction", correct},
                      {"wd", "0.05"},
                      {"rescale_grad", "0.5"},
                      {"clip_gradient", clip}},
                     {InputSpec(TShape{257}), InputSpec(TShape{257}, -3, 3), InputSpec(TShape{257}),
                      InputSpec(TShape{257}, 0.5, 1)}};
      std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
      std::vector<Values> before;
      for (const CpuTensor& t : in) before.push_back(testing::ToValues(t.blob()));
      const Values g = testing::ToValues(testing::Forward(c, in)[0].blob());
      const Values mean = testing::ToValues(in[2].blob()), var = testing::ToValues(in[3].blob());
      const double mc = correct == "True" ? 1 / (1 - std::pow(F("0.8"), 3)) : 1;
      const double vc = correct == "True" ? 1 / (1 - std::pow(F("0.9"), 3)) : 1;
      for (size_t i = 0; i < g.size(); ++i) {
        const double gi = Clip(0.5 * before[1][i], F(clip));
        const double m = F("0.8") * before[2][i] + (1 - F("0.8")) * gi;
        const double v = F("0.9") * before[3][i] + (1 - F("0.9")) * gi * gi;
        ASSERT_NEAR(mean[i], m, 1e-12);
        ASSERT_NEAR(var[i], v, 1e-12);
        ASSERT_NEAR(g[i], m * mc / (std::sqrt(v * vc) + F("1e-4")) + F("0.05") * before[0][i],
                    1e-9);
      }
    }
  }
}

// weight - lr * ratio * g, ratio = bounded r1 / r2, or 1 when either norm is 0.
TEST(LambTest, PhaseTwoTrustRatioAndItsBounds) {
  struct Case {
    double r1, r2;
    std::string lower, upper;
    double ratio;
  };
  for (const Case& k :
       {Case{2, 4, "-1", "-1", 0.5}, Case{0, 4, "-1", "-1", 1}, Case{2, 0, "-1", "-1", 1},
        Case{2, 4, "3", "-1", 0.75}, Case{2, 4, "-1", "1", 0.25}, Case{0, 4, "0.5", "-1", 0.125}}) {
    SCOPED_TRACE(std::to_string(k.r1) + " " + std::to_string(k.r2) + " " + k.lower + " " + k.upper);
    const OpCase c{
        "lamb_update_phase2",
        {{"lr", "0.1"}, {"lower_bound", k.lower}, {"upper_bound", k.upper}},
        {InputSpec(TShape{9}), InputSpec(TShape{9}), InputSpec::WithValues(TShape{1}, {k.r1}),
         InputSpec::WithValues(TShape{1}, {k.r2})}};
    std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
    const Values w = testing::ToValues(in[0].blob()), g = testing::ToValues(in[1].blob());
    const Values out = testing::ToValues(testing::Forward(c, in)[0].blob());
    for (size_t i = 0; i < out.size(); ++i)
      ASSERT_NEAR(out[i], w[i] - F("0.1") * k.ratio * g[i], 1e-12);
  }
}

// The multi-precision phases step the float32 master weight as the plain phases step a float32
// weight; phase two writes it back in place and rounds it into the float16 output.
TEST(LambTest, MultiPrecisionPhasesStepTheMasterWeight) {
  const std::map<std::string, std::string> one = {{"t", "2"}, {"wd", "0.01"}};
  const std::map<std::string, std::string> two = {{"lr", "0.05"}};
  const index_t n = 50;
  std::vector<CpuTensor> plain =
      testing::MakeInputs(OpCase{"lamb_update_phase1",
                                 one,
                                 {InputSpec(TShape{n}), InputSpec(TShape{n}), InputSpec(TShape{n}),
                                  InputSpec(TShape{n}, 0.5, 1)}},
                          mshadow::kFloat32);
  const Values grad16 =
      testing::ToValues(TensorOf(mshadow::kFloat16, testing::ToValues(plain[1].blob())).blob());
  testing::SetValues(plain[1].blob(), grad16);  // both see the float16 gradient
  std::vector<CpuTensor> mp = {TensorOf(mshadow::kFloat16, Values(n, 0.0)),  // not read
                               TensorOf(mshadow::kFloat16, grad16),
                               TensorOf(mshadow::kFloat32, testing::ToValues(plain[2].blob())),
                               TensorOf(mshadow::kFloat32, testing::ToValues(plain[3].blob())),
                               TensorOf(mshadow::kFloat32, testing::ToValues(plain[0].blob()))};
  const CpuTensor g = RunCpu(ParseAttrs(Op::Get("lamb_update_phase1"), one), Blobs(plain))[0];
  const CpuTensor mp_g = RunCpu(ParseAttrs(Op::Get("mp_lamb_update_phase1"), one), Blobs(mp))[0];
  ASSERT_EQ(mp_g.type_flag(), mshadow::kFloat32);
  const Values gv = testing::ToValues(g.blob()), mp_gv = testing::ToValues(mp_g.blob());
  for (index_t i = 0; i < n; ++i) ASSERT_NEAR(mp_gv[i], gv[i], 1e-6 * std::fabs(gv[i]) + 1e-7) << i;

  const CpuTensor r1 = TensorOf(mshadow::kFloat32, {1.5}), r2 = TensorOf(mshadow::kFloat32, {3.0});
  const Values w32 = testing::ToValues(mp[4].blob());
  std::vector<CpuTensor> mp2 = {TensorOf(mshadow::kFloat16, Values(n, 0.0)), mp_g, r1, r2, mp[4]};
  const CpuTensor out = RunCpu(ParseAttrs(Op::Get("mp_lamb_update_phase2"), two), Blobs(mp2))[0];
  ASSERT_EQ(out.type_flag(), mshadow::kFloat16);
  const Values master = testing::ToValues(mp2[4].blob()), rounded = testing::ToValues(out.blob());
  for (index_t i = 0; i < n; ++i) {
    const double expected = w32[i] - F("0.05") * 0.5 * mp_gv[i];
    ASSERT_NEAR(master[i], expected, 1e-6 * std::fabs(expected) + 1e-7) << i;  // in place
    ASSERT_NEAR(rounded[i], expected, 1e-3 * std::fabs(expected) + 1e-6) << i;
  }
}

TEST(LambTest, ShapesTypesAndBadParameters) {
  const OpCase bad_norm{
      "lamb_update_phase2",
      {{"lr", "0.1"}},
      {InputSpec(TShape{4}), InputSpec(TShape{4}), InputSpec(TShape{3}), InputSpec(TShape{1})}};
  const std::string error = testing::ErrorOf([&] { testing::InferOutputShapes(bad_norm); });
  EXPECT_NE(error.find("(3,)"), std::string::npos) << error;
  std::vector<int> in = {mshadow::kFloat16, -1, -1, -1, -1}, out = {-1};
  InferTypes(ParseAttrs(Op::Get("mp_lamb_update_phase1"), {{"t", "1"}, {"wd", "0"}}), &in, &out);
  EXPECT_EQ(in, (std::vector<int>{mshadow::kFloat16, mshadow::kFloat16, mshadow::kFloat32,
                                  mshadow::kFloat32, mshadow::kFloat32}));
  EXPECT_EQ(out, (std::vector<int>{mshadow::kFloat32}));
  EXPECT_NE(testing::ErrorOf([] {
              ParseAttrs(Op::Get("lamb_update_phase1"), {{"t", "0"}, {"wd", "0"}});
            }).find("value 0 for Parameter t should be greater equal to 1"),
            std::string::npos);
  EXPECT_NE(testing::ErrorOf([] {
              ParseAttrs(Op::Get("lamb_update_phase1"), {{"t", "1"}});
            }).find("Required parameter wd"),
            std::string::npos);
}

}  // namespace
}  // namespace ops
