#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using testing::InputSpec;
using testing::OpCase;
using testing::Values;

TEST(SGDUpdateTest, StepWithWeightDecayRescaleAndClipping) {
  const InputSpec weight = InputSpec::WithValues(TShape{4}, {1.0, -2.0, 0.5, 3.0});
  const InputSpec grad = InputSpec::WithValues(TShape{4}, {0.5, -4.0, 10.0, 0.0});
  const OpCase c{"sgd_update",
                 {{"lr", "0.1"}, {"wd", "0.01"}, {"rescale_grad", "0.5"}, {"clip_gradient", "1"}},
                 {weight, grad}};
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    Values out(4);
    for (int i = 0; i < 4; ++i) {
      const double g = std::max(std::min(0.5 * in[1][i], 1.0), -1.0) + 0.01 * in[0][i];
      out[i] = in[0][i] - 0.1 * g;
    }
    return std::vector<Values>{out};
  }, 1e-7, 1e-6);  // the parameters are floats
  testing::CheckWriteModes(c);
}

TEST(SGDMomUpdateTest, UpdatesMomentumInPlaceAndWeight) {
  const OpCase c{"sgd_mom_update",
                 {{"lr", "0.1"}, {"momentum", "0.9"}},
                 {InputSpec{TShape{3}}, InputSpec{TShape{3}}, InputSpec{TShape{3}}}};
  auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
  const Values w = testing::ToValues(inputs[0].blob()), g = testing::ToValues(inputs[1].blob()),
               mom = testing::ToValues(inputs[2].blob());
  const auto out = testing::Forward(c, inputs);
  const Values new_mom = testing::ToValues(inputs[2].blob());
  const Values new_w = testing::ToValues(out[0].blob());
  for (int i = 0; i < 3; ++i) {
    const double expected_mom = 0.9f * mom[i] - 0.1f * g[i];
    EXPECT_NEAR(new_mom[i], expected_mom, 1e-7);
    EXPECT_NEAR(new_w[i], w[i] + expected_mom, 1e-7);
  }
  EXPECT_EQ(*Op::Get("sgd_mom_update")->GetAttr<std::vector<int>>("FMutateInputs"),
            std::vector<int>{2});
}

// Lengths with whole packets and a tail, and one long enough for threads; every parameter on.
TEST(SGDUpdateTest, VectorAndThreadedPathsMatchTheFormula) {
  mshadow::SetNumThreads(2);
  const std::map<std::string, std::string> params = {
      {"lr", "0.1"}, {"wd", "0.01"}, {"rescale_grad", "0.5"}, {"clip_gradient", "1.5"}};
  for (const index_t n : {37, 70001}) {
    SCOPED_TRACE(n);
    const OpCase plain{"sgd_update", params, {InputSpec{TShape{n}}, InputSpec{TShape{n}}}};
    testing::CheckForward(plain, [](const std::vector<Values>& in) {
      Values out(in[0].size());
      for (size_t i = 0; i < out.size(); ++i) {
        const double g = std::max(std::min(0.5 * in[1][i], 1.5), -1.5) + 0.01 * in[0][i];
        out[i] = in[0][i] - 0.1 * g;
      }
      return std::vector<Values>{out};
    }, 1e-7, 1e-6);
    testing::CheckWriteModes(plain);

    auto mom_params = params;
    mom_params["momentum"] = "0.9";
    const OpCase c{"sgd_mom_update", mom_params,
                   {InputSpec{TShape{n}}, InputSpec{TShape{n}}, InputSpec{TShape{n}}}};
    auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
    const Values w = testing::ToValues(inputs[0].blob()), g = testing::ToValues(inputs[1].blob()),
                 mom = testing::ToValues(inputs[2].blob());
    const Values new_w = testing::ToValues(testing::Forward(c, inputs)[0].blob());
    const Values new_mom = testing::ToValues(inputs[2].blob());
    for (index_t i = 0; i < n; ++i) {
      const double step = 0.1f * (std::max(std::min(0.5 * g[i], 1.5), -1.5) + 0.01f * w[i]);
      const double expected_mom = 0.9f * mom[i] - step;
      ASSERT_NEAR(new_mom[i], expected_mom, 1e-7) << i;
      ASSERT_NEAR(new_w[i], w[i] + expected_mom, 1e-7) << i;
    }
  }
  mshadow::SetNumThreads(0);
}

TEST(SGDUpdateTest, MissingLearningRate) {
  EXPECT_EQ(testing::ErrorOf([] { ParseAttrs(Op::Get("sgd_update"), {{"wd", "0"}}); }),
            "Invalid parameter of operator sgd_update: Required parameter lr of float is not "
            "presented");
}

TEST(SignSGDUpdateTest, StepsBySignWithDecay) {
  const OpCase c{"signsgd_update", {{"lr", "0.1"}, {"wd", "0.5"}},
                 {InputSpec::WithValues(TShape{4}, {1.0, -2.0, 0.5, 3.0}),
                  InputSpec::WithValues(TShape{4}, {0.5, -4.0, 0.0, -1e-9})}};
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    const double sign[] = {1, -1, 0, -1};
    Values out(4);
    for (int i = 0; i < 4; ++i) out[i] = (1 - 0.1f * 0.5f) * in[0][i] - 0.1f * sign[i];
    return std::vector<Values>{out};
  }, 1e-7, 1e-6);
  testing::CheckWriteModes(c);
}

TEST(SignumUpdateTest, MomentumInPlaceThenSignStep) {
  const OpCase c{"signum_update",
                 {{"lr", "0.1"}, {"momentum", "0.9"}, {"wd", "0.01"}, {"rescale_grad", "2"},
                  {"clip_gradient", "1"}, {"wd_lh", "0.2"}},
                 {InputSpec{TShape{50}}, InputSpec{TShape{50}}, InputSpec{TShape{50}}}};
  auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
  const Values w = testing::ToValues(inputs[0].blob()), g = testing::ToValues(inputs[1].blob()),
               mom = testing::ToValues(inputs[2].blob());
  const Values new_w = testing::ToValues(testing::Forward(c, inputs)[0].blob());
  const Values new_mom = testing::ToValues(inputs[2].blob());
  for (size_t i = 0; i < w.size(); ++i) {
    const double m = 0.9f * mom[i] - (1 - 0.9f) * (0.01f * w[i] + std::max(-1.0, std::min(1.0, 2 * g[i])));
    EXPECT_NEAR(new_mom[i], m, 1e-12);
    EXPECT_NEAR(new_w[i], (1 - double(0.1f) * double(0.2f)) * w[i] + 0.1f * (m > 0 ? 1 : -1), 1e-12);
  }
  testing::CheckWriteModes(c);
}

// The update rules in double with float parameters, as the kernels see them.
struct Expected {
  double weight, mom;
};
double Step(double g, double w) {
  return 0.1f * (std::max(std::min(0.5 * g, 1.5), -1.5) + 0.01f * w);
}
Expected SGDMom(double w, double g, double mom) {
  const double m = 0.9f * mom - Step(g, w);
  return {w + m, m};
}
Expected NAGMom(double w, double g, double mom) {  // fitted to MXNet 1.9.1's outputs
  const double m = 0.9f * mom - Step(g, w);
  return {w + 0.9f * m - Step(g, w), m};
}

const std::map<std::string, std::string> kMomParams = {
    {"lr", "0.1"}, {"momentum", "0.9"}, {"wd", "0.01"}, {"rescale_grad", "0.5"},
    {"clip_gradient", "1.5"}};

TEST(NAGMomUpdateTest, UpdatesMomentumInPlaceAndWeight) {
  const OpCase c{"nag_mom_update", kMomParams,
                 {InputSpec{TShape{37}, -4, 4}, InputSpec{TShape{37}, -4, 4},
                  InputSpec{TShape{37}}}};
  auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
  const Values w = testing::ToValues(inputs[0].blob()), g = testing::ToValues(inputs[1].blob()),
               mom = testing::ToValues(inputs[2].blob());
  const Values new_w = testing::ToValues(testing::Forward(c, inputs)[0].blob());
  const Values new_mom = testing::ToValues(inputs[2].blob());
  for (size_t i = 0; i < w.size(); ++i) {
    const Expected e = NAGMom(w[i], g[i], mom[i]);
    EXPECT_NEAR(new_mom[i], e.mom, 1e-12) << i;
    EXPECT_NEAR(new_w[i], e.weight, 1e-12) << i;
  }
  testing::CheckWriteModes(c);
  EXPECT_NE(testing::ErrorOf([] {
              ParseAttrs(Op::Get("nag_mom_update"), {{"lr", "0.1"}, {"lazy_update", "1"}});
            }).find("lazy_update"),
            std::string::npos);
}

// Multi-precision updates: the float32 master weight (and momentum) carry the state, the
// float16 (or float32) weight gets the master rounded to its type; the weight input is not
// read. Every rule, in both weight types, with kWriteTo and kNullOp (which still updates the
// state).
TEST(MultiPrecisionUpdateTest, MasterWeightsCarryTheState) {
  const index_t n = 45;
  for (const std::string op : {"mp_sgd_update", "mp_sgd_mom_update", "mp_nag_mom_update"}) {
    for (const int weight_type : {mshadow::kFloat16, mshadow::kFloat32}) {
      for (const OpReqType req : {kWriteTo, kNullOp}) {
        SCOPED_TRACE(op + " " + mshadow::TypeFlagName(weight_type) + " req " +
                     std::to_string(req));
        const bool momentum = op != "mp_sgd_update";
        auto params = kMomParams;
        if (!momentum) params.erase("momentum");
        OpCase c{op, params, {InputSpec{TShape{n}}, InputSpec{TShape{n}, -4, 4}}};
        if (momentum) c.inputs.push_back(InputSpec{TShape{n}});
        c.inputs.push_back(InputSpec{TShape{n}});
        for (size_t i = 2; i < c.inputs.size(); ++i) c.inputs[i].type_flag = mshadow::kFloat32;
        std::vector<CpuTensor> inputs = testing::MakeInputs(c, weight_type);
        const Values g = testing::ToValues(inputs[1].blob());
        const Values mom = momentum ? testing::ToValues(inputs[2].blob()) : Values(n, 0.0);
        const Values w32 = testing::ToValues(inputs.back().blob());
        const NodeAttrs attrs = ParseAttrs(Op::Get(op), params);
        CpuTensor out(TShape{n}, weight_type);
        testing::SetValues(out.blob(), Values(n, 7.0));
        Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs), Blobs(inputs), {req}, {out.blob()});
        const Values new_w32 = testing::ToValues(inputs.back().blob());
        const Values new_mom = momentum ? testing::ToValues(inputs[2].blob()) : Values(n, 0.0);
        const Values new_w = testing::ToValues(out.blob());
        for (index_t i = 0; i < n; ++i) {
          const Expected e = op == "mp_sgd_update" ? Expected{w32[i] - Step(g[i], w32[i]), 0}
                             : op == "mp_sgd_mom_update" ? SGDMom(w32[i], g[i], mom[i])
                                                         : NAGMom(w32[i], g[i], mom[i]);
          ASSERT_NEAR(new_w32[i], e.weight, 2e-6) << i;
          ASSERT_NEAR(new_mom[i], e.mom, 2e-6) << i;
          const double rounded =
              weight_type == mshadow::kFloat16
                  ? static_cast<float>(mshadow::half::half_t(static_cast<float>(new_w32[i])))
                  : new_w32[i];
          ASSERT_EQ(new_w[i], req == kNullOp ? 7.0 : rounded) << i;
        }
      }
    }
  }
}

TEST(MultiPrecisionUpdateTest, StateTypesAreChecked) {
  const NodeAttrs attrs = ParseAttrs(Op::Get("mp_sgd_mom_update"), kMomParams);
  std::vector<int> types = {mshadow::kFloat16, -1, -1, -1};
  std::vector<int> out_types;
  InferTypes(attrs, &types, &out_types);
  EXPECT_EQ(types, (std::vector<int>{mshadow::kFloat16, mshadow::kFloat16, mshadow::kFloat32,
                                     mshadow::kFloat32}));
  EXPECT_EQ(out_types, std::vector<int>{mshadow::kFloat16});
  EXPECT_EQ(testing::ErrorOf([&] {
              std::vector<int> in = {mshadow::kFloat16, mshadow::kFloat16, mshadow::kFloat32,
                                     mshadow::kFloat16};
              std::vector<int> out;
              InferTypes(attrs, &in, &out);
            }),
            "mp_sgd_mom_update: type of input 'weight32' is float16 but float32 is required "
            "(inputs: weight=float16, grad=float16, mom=float32, weight32=float16)");
  EXPECT_EQ(testing::ErrorOf([&] {
              std::vector<int> in = {mshadow::kInt32, -1, -1, -1};
              std::vector<int> out;
              InferTypes(attrs, &in, &out);
            }),
            "mp_sgd_mom_update: weight type int32 is not supported; valid: float16, float32, "
            "float64");
}

}  // namespace
}  // namespace ops
