// The batched AdamW updates: each weight of a call gets exactly the single-weight operator's
// step (_adamw_update, _mp_adamw_update) with its own learning rate, weight decay and schedule
// multiplier, moments (and master weights) updated in place; a NaN, infinite or 0
// rescale_grad skips the whole call; lrs, wds and etas checked against num_weights.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::TensorOf;
using testing::ToValues;
using testing::Values;

CpuTensor Filled(const TShape& shape, int type, std::mt19937* rng, double lo = -1, double hi = 1) {
  std::uniform_real_distribution<double> dist(lo, hi);
  Values v(shape.Size());
  for (double& x : v) x = dist(*rng);
  return TensorOf(shape, type, v);
}

CpuTensor Copy(const CpuTensor& t) {
  return TensorOf(t.shape(), t.type_flag(), ToValues(t.blob()));
}

using Kwargs = std::map<std::string, std::string>;

// The weights' arrays (per weight: weight, grad, mean, var[, weight32]) for two weights.
std::vector<CpuTensor> WeightArrays(bool mp, std::mt19937* rng) {
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
    std::mt19937 rng(5);
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
    std::mt19937 rng(7);
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

}  // namespace
}  // namespace ops
