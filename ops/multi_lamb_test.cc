// The batched LAMB updates: each weight of a call gets exactly lamb_update_phase1, then
// lamb_update_phase2 with r1 = ||weight|| and r2 = ||g|| (mp_ forms on the master weight),
// with its own learning rate, weight decay and step count, moments (and master weights)
// updated in place; the same result on any thread count; the per-weight values checked
// against num_tensors.
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

using Kwargs = std::map<std::string, std::string>;

CpuTensor Filled(const TShape& shape, int type, std::mt19937* rng, double lo = -1, double hi = 1) {
  std::uniform_real_distribution<double> dist(lo, hi);
  Values v(shape.Size());
  for (double& x : v) x = dist(*rng);
  return TensorOf(shape, type, v);
}

CpuTensor Copy(const CpuTensor& t) {
  return TensorOf(t.shape(), t.type_flag(), ToValues(t.blob()));
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

TEST(MultiLambTest, EachWeightGetsTheTwoPhasesOfTheSingleOperators) {
  const std::vector<TShape> shapes = {TShape{5}, TShape{300, 70}};  // the second: several parts
  for (const bool mp : {false, true}) {
    for (const int threads : {1, 2}) {
      SCOPED_TRACE(std::string(mp ? "mp" : "") + " threads " + std::to_string(threads));
      mshadow::SetNumThreads(threads);
      std::mt19937 rng(11);
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

TEST(MultiLambTest, NamesAndErrors) {
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
