// The batched adaptive updates. AdamW: each weight of a call gets exactly the single-weight
// operator's step (_adamw_update, _mp_adamw_update) with its own learning rate, weight decay
// and schedule multiplier, moments (and master weights) updated in place; a NaN, infinite or
// 0 rescale_grad skips the whole call; lrs, wds and etas checked against num_weights. LAMB:
// each weight gets lamb_update_phase1, then lamb_update_phase2 with r1 = ||weight|| and
// r2 = ||g|| (mp_ forms on the master weight), with its own learning rate, weight decay and
// step count, on any thread count; the per-weight values checked against num_tensors.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::TensorOf;
using testing::ToValues;
using testing::Values;

CpuTensor Filled(const TShape& shape, int type, std::mt19937_64* rng, double lo = -1,
                 double hi = 1) {
  return TensorOf(shape, type, testing::RandomValues(shape.Size(), lo, hi, rng));
}

CpuTensor Copy(const CpuTensor& t) {
  return TensorOf(t.shape(), t.type_flag(), ToValues(t.blob()));
}

using Kwargs = std::map<std::string, std::string>;

// The weights' arrays (per weight: weight, grad, mean, var[, weight32]) for two weights.
std::vector<CpuTensor> WeightArrays(bool mp, std::mt19937_64* rng) {
  const int weight_type = mp ? mshadow::kFloat16 : mshadow::kFloat64;
  const int state_type = mp ? mshadow::kFloat32 : mshadow::kFloat64;
  std::vector<CpuTensor> in;
  for (const TShape& shape : {TShape{5}, TShape{2, 3}}) {
    in.push_back(Filled(shape, weight_type, rng));
    in.push_back(Filled(shape, weight_type, rng, -3, 3));
    in.push_back(Filled(shape, state_type, rng));
    in.push_back(Filled(shape, state_type, rng, 0, 1));
    if (mp) in.push_back(Filled(shape, mshadow::kFloat32, rng));
  }
  return in;
}

TEST(MultiAdamWTest, EachWeightGetsTheSingleOperatorsStep) {
  const Kwargs shared = {
      {"beta1", "0.8"}, {"beta2", "0.99"}, {"epsilon", "1e-6"}, {"clip_gradient", "2"}};
  const std::vector<Kwargs> per_weight = {{{"lr", "0.1"}, {"wd", "0.01"}, {"eta", "1"}},
                                          {{"lr", "0.25"}, {"wd", "0"}, {"eta", "0.5"}}};
  for (const bool mp : {false, true}) {
    SCOPED_TRACE(mp);
    std::mt19937_64 rng(5);
    std::vector<CpuTensor> in = WeightArrays(mp, &rng);
    const int k = mp ? 5 : 4;
    std::vector<CpuTensor> before;
    for (const CpuTensor& t : in) before.push_back(Copy(t));
    const int rescale_type = mp ? mshadow::kFloat32 : mshadow::kFloat64;
    in.push_back(TensorOf(rescale_type, {0.5}));
    Kwargs kwargs = shared;
    kwargs["num_weights"] = "2";
    kwargs["lrs"] = "(0.1, 0.25)";
    kwargs["wds"] = "(0.01, 0)";
    kwargs["etas"] = "(1, 0.5)";
    const std::string op = mp ? "_multi_mp_adamw_update" : "_multi_adamw_update";
    const std::vector<CpuTensor> out = RunCpu(ParseAttrs(Op::Get(op), kwargs), Blobs(in));
    ASSERT_EQ(out.size(), 2u);
    for (int i = 0; i < 2; ++i) {
      SCOPED_TRACE(i);
      Kwargs single = shared;
      single.insert(per_weight[i].begin(), per_weight[i].end());
      std::vector<CpuTensor> single_in;  // copies: the single operator updates them in place
      for (int j = 0; j < k; ++j) single_in.push_back(Copy(before[i * k + j]));
      single_in.push_back(TensorOf(rescale_type, {0.5}));
      const std::vector<CpuTensor> want = RunCpu(
          ParseAttrs(Op::Get(mp ? "_mp_adamw_update" : "_adamw_update"), single), Blobs(single_in));
      EXPECT_EQ(ToValues(out[i].blob()), ToValues(want[0].blob()));
      // The states (mean, var, weight32) updated in place as the single operator's.
      for (int j = 2; j < k; ++j) {
        EXPECT_EQ(ToValues(in[i * k + j].blob()), ToValues(single_in[j].blob())) << "input " << j;
        EXPECT_NE(ToValues(in[i * k + j].blob()), ToValues(before[i * k + j].blob())) << j;
      }
    }
  }
}

TEST(MultiAdamWTest, AnUnusableRescaleSkipsTheCall) {
  for (const double rescale : {double{NAN}, double{INFINITY}, 0.0}) {
    SCOPED_TRACE(rescale);
    std::mt19937_64 rng(7);
    std::vector<CpuTensor> in = WeightArrays(false, &rng);
    std::vector<CpuTensor> before;
    for (const CpuTensor& t : in) before.push_back(Copy(t));
    in.push_back(TensorOf(mshadow::kFloat64, {rescale}));
    const NodeAttrs attrs = ParseAttrs(
        Op::Get("_multi_adamw_update"),
        {{"num_weights", "2"}, {"lrs", "(0.1,0.1)"}, {"wds", "(0,0)"}, {"etas", "(1,1)"}});
    std::vector<CpuTensor> out = {CpuTensor(TShape{5}, mshadow::kFloat64),
                                  CpuTensor(TShape{2, 3}, mshadow::kFloat64)};
    for (CpuTensor& o : out) std::fill_n(o.data<double>(), o.blob().Size(), 7.0);
    Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs), Blobs(in), {kWriteTo, kWriteTo}, Blobs(out));
    for (const CpuTensor& o : out) EXPECT_EQ(ToValues(o.blob()), Values(o.blob().Size(), 7.0));
    for (size_t j = 0; j < before.size(); ++j) {
      EXPECT_EQ(ToValues(in[j].blob()), ToValues(before[j].blob())) << j;
    }
  }
}

TEST(MultiAdamWTest, NamesShapesTypesAndErrors) {
  const Op* op = Op::Get("_multi_mp_adamw_update");
  const NodeAttrs attrs =
      ParseAttrs(op, {{"num_weights", "1"}, {"lrs", "(0.1,)"}, {"wds", "(0,)"}, {"etas", "(1,)"}});
  EXPECT_EQ(op->ListInputNames(attrs),
            (std::vector<std::string>{"weight_0", "grad_0", "mean_0", "var_0", "weight32_0",
                                      "rescale_grad"}));
  for (const std::string name : {"lrs", "wds", "etas"}) {
    Kwargs kwargs = {
        {"num_weights", "2"}, {"lrs", "(0.1,0.2)"}, {"wds", "(0,0)"}, {"etas", "(1,1)"}};
    kwargs[name] = "(0.5,)";
    const testing::OpCase c{"_multi_adamw_update",
                            kwargs,
                            {{TShape{3}},
                             {TShape{3}},
                             {TShape{3}},
                             {TShape{3}},
                             {TShape{2}},
                             {TShape{2}},
                             {TShape{2}},
                             {TShape{2}},
                             {TShape{1}}}};
    EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(c); }),
                HasSubstr(name + " (0.5,) has 1 values; num_weights is 2: give one per weight"));
  }
  // rescale_grad holds one element; the arrays of a weight share its shape.
  const testing::OpCase two{
      "_multi_adamw_update",
      {{"num_weights", "1"}, {"lrs", "(0.1,)"}, {"wds", "(0,)"}, {"etas", "(1,)"}},
      {{TShape{3}}, {TShape{3}}, {TShape{3}}, {TShape{3}}, {TShape{2}}}};
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(two); }), HasSubstr("(2,)"));
  const testing::OpCase mismatch{
      "_multi_adamw_update",
      {{"num_weights", "1"}, {"lrs", "(0.1,)"}, {"wds", "(0,)"}, {"etas", "(1,)"}},
      {{TShape{3}}, {TShape{4}}, {TShape{3}}, {TShape{3}}, {TShape{1}}}};
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(mismatch); }), HasSubstr("(4,)"));
}

// The norm of a tensor's values, as the host computes it for phase two.
CpuTensor NormOf(const CpuTensor& t, int type) {
  double sum = 0;
  for (double v : ToValues(t.blob())) sum += v * v;
  return TensorOf(type, {std::sqrt(sum)});
}

// Weight i of a call (its arrays `group`) through the single-weight operators.
CpuTensor SingleWeightStep(bool mp, std::vector<CpuTensor> group, const Kwargs& one,
                           const Kwargs& two) {
  const int state = mp ? mshadow::kFloat32 : group[0].type_flag();
  const std::vector<CpuTensor> g = RunCpu(
      ParseAttrs(Op::Get(mp ? "mp_lamb_update_phase1" : "lamb_update_phase1"), one), Blobs(group));
  const CpuTensor& weight = mp ? group[4] : group[0];
  std::vector<CpuTensor> in = {group[0], g[0], NormOf(weight, state), NormOf(g[0], state)};
  if (mp) in.push_back(group[4]);
  return RunCpu(ParseAttrs(Op::Get(mp ? "mp_lamb_update_phase2" : "lamb_update_phase2"), two),
                Blobs(in))[0];
}

TEST(MultiLAMBTest, EachWeightGetsTheTwoPhasesOfTheSingleOperators) {
  const std::vector<TShape> shapes = {TShape{5}, TShape{300, 70}};  // the second: several parts
  for (const bool mp : {false, true}) {
    for (const int threads : {1, 2}) {
      SCOPED_TRACE(std::string(mp ? "mp" : "") + " threads " + std::to_string(threads));
      mshadow::SetNumThreads(threads);
      std::mt19937_64 rng(11);
      const int weight_type = mp ? mshadow::kFloat16 : mshadow::kFloat64;
      const int state_type = mp ? mshadow::kFloat32 : mshadow::kFloat64;
      std::vector<CpuTensor> in;
      for (const TShape& shape : shapes) {
        in.push_back(Filled(shape, weight_type, &rng));
        in.push_back(Filled(shape, weight_type, &rng, -3, 3));
        in.push_back(Filled(shape, state_type, &rng));
        in.push_back(Filled(shape, state_type, &rng, 0, 1));
        if (mp) in.push_back(Filled(shape, mshadow::kFloat32, &rng));
      }
      const int k = mp ? 5 : 4;
      std::vector<CpuTensor> before;
      for (const CpuTensor& t : in) before.push_back(Copy(t));
      const Kwargs kwargs = {{"num_tensors", "2"},    {"learning_rates", "(0.1, 0.05)"},
                             {"wds", "(0.01, 0)"},    {"step_count", "(3, 1)"},
                             {"rescale_grad", "0.5"}, {"clip_gradient", "2"},
                             {"lower_bound", "0.1"},  {"upper_bound", "50"},
                             {"beta1", "0.8"}};
      const std::string op = mp ? "_multi_mp_lamb_update" : "_multi_lamb_update";
      const std::vector<CpuTensor> out = RunCpu(ParseAttrs(Op::Get(op), kwargs), Blobs(in));
      ASSERT_EQ(out.size(), 2u);
      const std::vector<Kwargs> one = {{{"t", "3"},
                                        {"wd", "0.01"},
                                        {"rescale_grad", "0.5"},
                                        {"clip_gradient", "2"},
                                        {"beta1", "0.8"}},
                                       {{"t", "1"},
                                        {"wd", "0"},
                                        {"rescale_grad", "0.5"},
                                        {"clip_gradient", "2"},
                                        {"beta1", "0.8"}}};
      const std::vector<Kwargs> two = {
          {{"lr", "0.1"}, {"lower_bound", "0.1"}, {"upper_bound", "50"}},
          {{"lr", "0.05"}, {"lower_bound", "0.1"}, {"upper_bound", "50"}}};
      for (int i = 0; i < 2; ++i) {
        SCOPED_TRACE(i);
        std::vector<CpuTensor> group;
        for (int j = 0; j < k; ++j) group.push_back(Copy(before[i * k + j]));
        const CpuTensor want = SingleWeightStep(mp, group, one[i], two[i]);
        // The norms are summed in other orders: equal to the last bits of the type.
        testing::ExpectClose(ToValues(want.blob()), ToValues(out[i].blob()), mp ? 1e-3 : 1e-12,
                             mp ? 1e-3 : 1e-12, "weight");
        for (int j = 2; j < k; ++j) {
          testing::ExpectClose(ToValues(group[j].blob()), ToValues(in[i * k + j].blob()), 1e-6,
                               1e-6, "state " + std::to_string(j));
        }
      }
    }
  }
  mshadow::SetNumThreads(1);
}

TEST(MultiLAMBTest, NamesAndErrors) {
  const Op* op = Op::Get("_multi_lamb_update");
  const Kwargs good = {{"num_tensors", "2"},
                       {"learning_rates", "(0.1,0.2)"},
                       {"wds", "(0,0)"},
                       {"step_count", "(1,2)"}};
  EXPECT_EQ(op->ListInputNames(ParseAttrs(op, good)),
            (std::vector<std::string>{"weight_0", "grad_0", "mean_0", "var_0", "weight_1", "grad_1",
                                      "mean_1", "var_1"}));
  const std::vector<testing::InputSpec> inputs(8, testing::InputSpec(TShape{3}));
  for (const auto& [name, value, message] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"learning_rates", "(0.1,)", "learning_rates has 1 values; num_tensors is 2"},
           {"wds", "(0,0,0)", "wds has 3 values; num_tensors is 2"},
           {"step_count", "(1,)", "step_count has 1 values; num_tensors is 2"},
           {"step_count", "(1,0)", "step_count 0 of weight 1; valid: 1 or more"}}) {
    Kwargs kwargs = good;
    kwargs[name] = value;
    const testing::OpCase c{"_multi_lamb_update", kwargs, inputs};
    EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(c); }), HasSubstr(message));
  }
}

}  // namespace
}  // namespace ops
