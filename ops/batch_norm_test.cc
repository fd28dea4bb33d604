// BatchNorm against a float64 reference in training and inference, its optional outputs, its
// write modes and numerical gradients, the moving statistics' update in the backward
// operator, and its errors; _contrib_SyncBatchNorm and _contrib_BatchNormWithReLU against it.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/backward.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

// (outer, channels, inner) of `shape` around `axis`.
struct View {
  int outer = 1, channels = 1, inner = 1;
  int At(int o, int c, int i) const { return (o * channels + c) * inner + i; }
};

View ViewOf(const TShape& shape, int axis) {
  const int nd = static_cast<int>(shape.ndim());
  axis = (axis + nd) % nd;
  View v;
  for (int a = 0; a < nd; ++a) {
    if (a < axis) v.outer *= shape[a];
    if (a == axis) v.channels = shape[a];
    if (a > axis) v.inner *= shape[a];
  }
  return v;
}

// out, mean used, 1 / sqrt(var + eps).
std::vector<Values> ReferenceBatchNorm(const TShape& shape, const std::vector<Values>& in,
                                       int axis, bool fix_gamma, bool batch_stats, double eps) {
  const View v = ViewOf(shape, axis);
  Values out(in[0].size()), mean(v.channels), invstd(v.channels);
  const double m = static_cast<double>(v.outer) * v.inner;
  for (int c = 0; c < v.channels; ++c) {
    double mu = in[3][c], var = in[4][c];
    if (batch_stats) {
      mu = var = 0;
      for (int o = 0; o < v.outer; ++o) {
        for (int i = 0; i < v.inner; ++i) mu += in[0][v.At(o, c, i)] / m;
      }
      for (int o = 0; o < v.outer; ++o) {
        for (int i = 0; i < v.inner; ++i) var += std::pow(in[0][v.At(o, c, i)] - mu, 2) / m;
      }
    }
    mean[c] = mu;
    invstd[c] = 1 / std::sqrt(var + eps);
    const double gamma = fix_gamma ? 1.0 : in[1][c];
    for (int o = 0; o < v.outer; ++o) {
      for (int i = 0; i < v.inner; ++i) {
        out[v.At(o, c, i)] = (in[0][v.At(o, c, i)] - mu) * invstd[c] * gamma + in[2][c];
      }
    }
  }
  return {out, mean, invstd};
}

OpCase BatchNormCase(const TShape& data, int axis, std::map<std::string, std::string> kwargs) {
  const int channels = ViewOf(data, axis).channels;
  kwargs["axis"] = std::to_string(axis);
  InputSpec moving_mean{TShape{channels}}, moving_var{TShape{channels}, 0.5, 2};
  moving_mean.differentiable = moving_var.differentiable = false;  // auxiliary states
  return OpCase{"BatchNorm",
                kwargs,
                {InputSpec{data}, InputSpec{TShape{channels}, 0.5, 2}, InputSpec{TShape{channels}},
                 moving_mean, moving_var}};
}

// The output gradients a backward call is given, made from the forward's outputs.
using OutGrads = std::function<std::vector<CpuTensor>(const std::vector<CpuTensor>& outputs)>;

// The outputs and input gradients of `c`, the moving statistics after its backward operator,
// in training or inference; the output gradients are the outputs unless `out_grads` is given.
std::vector<Values> ForwardBackward(const OpCase& c, bool is_train,
                                    const OutGrads& out_grads = nullptr) {
  const NodeAttrs attrs = ParseAttrs(Op::Get(c.op), c.kwargs);
  auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
  const auto outputs = RunCpu(attrs, Blobs(inputs), is_train);
  std::vector<CpuTensor> grads;
  for (const auto& t : inputs) grads.emplace_back(t.blob().shape_, mshadow::kFloat64);
  const NodeAttrs backward = BackwardAttrs(attrs);
  const std::vector<CpuTensor> given = out_grads ? out_grads(outputs) : outputs;
  Invoke<mshadow::cpu>(backward, MakeCpuContext(backward, is_train),
                       BackwardInputs(attrs, Blobs(given), Blobs(inputs), Blobs(outputs)),
                       std::vector<OpReqType>(5, kWriteTo), Blobs(grads));
  std::vector<Values> all;
  for (const auto& t : outputs) all.push_back(testing::ToValues(t.blob()));
  for (const auto& t : grads) all.push_back(testing::ToValues(t.blob()));
  for (int i : {3, 4}) all.push_back(testing::ToValues(inputs[i].blob()));
  return all;
}

struct BatchNormCaseSpec {
  std::string name;
  TShape data;
  int axis;
  bool fix_gamma;
  bool use_global_stats;
};

class BatchNormTest : public ::testing::TestWithParam<BatchNormCaseSpec> {};

TEST_P(BatchNormTest, TrainingForwardAndGradients) {
  const BatchNormCaseSpec& s = GetParam();
  const OpCase c = BatchNormCase(
      s.data, s.axis,
      {{"fix_gamma", s.fix_gamma ? "True" : "False"},
       {"use_global_stats", s.use_global_stats ? "True" : "False"},
       {"eps", "0.001"}});
  testing::CheckForward(c, [&](const std::vector<Values>& in) {
    return std::vector<Values>{
        ReferenceBatchNorm(s.data, in, s.axis, s.fix_gamma, !s.use_global_stats, 1e-3)[0]};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, BatchNormTest,
    ::testing::Values(BatchNormCaseSpec{"nchw", TShape{3, 4, 2, 3}, 1, false, false},
                      BatchNormCaseSpec{"nchw_fix_gamma", TShape{2, 3, 3, 2}, 1, true, false},
                      BatchNormCaseSpec{"nc", TShape{6, 5}, 1, false, false},
                      BatchNormCaseSpec{"channels_last", TShape{2, 3, 4}, -1, false, false},
                      BatchNormCaseSpec{"axis0", TShape{3, 4, 2}, 0, false, false},
                      BatchNormCaseSpec{"global_stats", TShape{2, 3, 2, 2}, 1, false, true}),
    [](const ::testing::TestParamInfo<BatchNormCaseSpec>& info) { return info.param.name; });

TEST(BatchNormTest, InferenceUsesTheMovingStatistics) {
  const TShape shape{2, 3, 2, 2};
  const OpCase c = BatchNormCase(shape, 1, {{"fix_gamma", "False"}, {"output_mean_var", "True"}});
  const auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
  std::vector<Values> in;
  for (const auto& t : inputs) in.push_back(testing::ToValues(t.blob()));
  const NodeAttrs attrs = ParseAttrs(Op::Get("BatchNorm"), c.kwargs);
  for (bool is_train : {false, true}) {
    SCOPED_TRACE(is_train ? "training" : "inference");
    const auto outputs = RunCpu(attrs, Blobs(inputs), is_train);
    ASSERT_EQ(outputs.size(), 3u);
    const auto expected = ReferenceBatchNorm(shape, in, 1, false, is_train, 1e-3);
    for (int i = 0; i < 3; ++i) {
      const Values actual = testing::ToValues(outputs[i].blob());
      for (size_t j = 0; j < actual.size(); ++j) EXPECT_NEAR(actual[j], expected[i][j], 1e-12);
    }
  }
}

TEST(BatchNormTest, BackwardUpdatesTheMovingStatisticsInTrainingOnly) {
  const TShape shape{4, 3, 5};
  const OpCase c = BatchNormCase(shape, 1, {{"momentum", "0.75"}});
  const NodeAttrs attrs = ParseAttrs(Op::Get("BatchNorm"), c.kwargs);
  for (bool is_train : {true, false}) {
    SCOPED_TRACE(is_train ? "training" : "inference");
    auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
    std::vector<Values> before;
    for (const auto& t : inputs) before.push_back(testing::ToValues(t.blob()));
    const auto outputs = RunCpu(attrs, Blobs(inputs), is_train);
    std::vector<CpuTensor> grads;
    for (const auto& t : inputs) grads.emplace_back(t.blob().shape_, mshadow::kFloat64);
    const NodeAttrs backward = BackwardAttrs(attrs);
    OpContext ctx = MakeCpuContext(backward, is_train);
    Invoke<mshadow::cpu>(backward, ctx,
                         BackwardInputs(attrs, Blobs(outputs), Blobs(inputs), Blobs(outputs)),
                         std::vector<OpReqType>(5, kWriteTo), Blobs(grads));
    const auto batch = ReferenceBatchNorm(shape, before, 1, true, true, 1e-3);
    const Values moving_mean = testing::ToValues(inputs[3].blob());
    const Values moving_var = testing::ToValues(inputs[4].blob());
    for (int ch = 0; ch < 3; ++ch) {
      const double var = 1 / std::pow(batch[2][ch], 2) - 1e-3;  // biased batch variance
      EXPECT_NEAR(moving_mean[ch],
                  is_train ? 0.75 * before[3][ch] + 0.25 * batch[1][ch] : before[3][ch], 1e-12);
      EXPECT_NEAR(moving_var[ch], is_train ? 0.75 * before[4][ch] + 0.25 * var : before[4][ch],
                  1e-12);
    }
    EXPECT_EQ(testing::ToValues(grads[3].blob()), Values(3, 0.0));
  }
}

TEST(BatchNormTest, FixGammaGivesGammaNoGradient) {
  // The third result is gamma's gradient (after the output and data's gradient).
  EXPECT_EQ(ForwardBackward(BatchNormCase(TShape{4, 2, 3}, 1, {}), true)[2], Values(2, 0.0));
}

TEST(BatchNormTest, Errors) {
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(BatchNormCase(TShape{2, 3}, 2, {}));
              }),
              HasSubstr("axis"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("BatchNorm"), {{"eps", "-1"}});
              }),
              HasSubstr("eps"));
  OpCase wrong_gamma = BatchNormCase(TShape{2, 3, 4}, 1, {});
  wrong_gamma.inputs[1] = InputSpec{TShape{4}};
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(wrong_gamma); }),
              HasSubstr("(4,)"));
}

// MXNet 1.9.1's _contrib_SyncBatchNorm on one device is BatchNorm over axis 1 (checked there:
// the same outputs, gradients and moving statistics). Its eps is a float: 2^-9 reads the same
// in both.
TEST(SyncBatchNormTest, IsBatchNormOnOneDevice) {
  const std::map<std::string, std::string> common{{"fix_gamma", "False"},
                                                  {"output_mean_var", "True"},
                                                  {"momentum", "0.8"},
                                                  {"eps", "0.001953125"}};
  const OpCase batch_norm = BatchNormCase(TShape{4, 3, 2, 5}, 1, common);
  OpCase sync = batch_norm;
  sync.op = "_contrib_SyncBatchNorm";
  sync.kwargs = common;
  sync.kwargs["key"] = "bn0";
  for (bool is_train : {true, false}) {
    SCOPED_TRACE(is_train ? "training" : "inference");
    const std::vector<Values> expected = ForwardBackward(batch_norm, is_train);
    const std::vector<Values> actual = ForwardBackward(sync, is_train);
    ASSERT_EQ(actual.size(), 10u);
    for (size_t i = 0; i < actual.size(); ++i) EXPECT_EQ(actual[i], expected[i]) << "result " << i;
  }
  // The mean and var outputs take no gradient (as BatchNorm's): the numerical check is of
  // the normalized output alone.
  sync.kwargs.erase("output_mean_var");
  testing::CheckWriteModes(sync);
  testing::CheckGradient(sync);
}

// Training on the batch's statistics would need the other devices' sums: refused, with the
// values that would work; inference reads the moving statistics and runs for any ndev.
TEST(SyncBatchNormTest, SeveralDevicesOnlyInInference) {
  OpCase c = BatchNormCase(TShape{2, 3, 4}, 1, {});
  c.op = "_contrib_SyncBatchNorm";
  c.kwargs = {{"ndev", "4"}, {"key", "bn0"}};
  const NodeAttrs attrs = ParseAttrs(Op::Get(c.op), c.kwargs);
  const auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
  EXPECT_THAT(testing::ErrorOf([&] { RunCpu(attrs, Blobs(inputs), true); }),
              HasSubstr("_contrib_SyncBatchNorm: ndev 4 asks for batch statistics gathered over "
                        "4 devices, which this library does not do; train with ndev=1"));
  EXPECT_EQ(RunCpu(attrs, Blobs(inputs), false).size(), 1u);
  c.kwargs["use_global_stats"] = "True";
  EXPECT_EQ(RunCpu(ParseAttrs(Op::Get(c.op), c.kwargs), Blobs(inputs), true).size(), 1u);
}

TEST(SyncBatchNormTest, ParameterErrors) {
  const Op* op = Op::Get("_contrib_SyncBatchNorm");
  EXPECT_THAT(testing::ErrorOf([&] { ParseAttrs(op, {}); }),
              HasSubstr("Required parameter key of string is not presented"));
  EXPECT_THAT(testing::ErrorOf([&] {
                ParseAttrs(op, {{"key", "k"}, {"axis", "1"}});
              }),
              HasSubstr("axis"));
  EXPECT_THAT(testing::ErrorOf([&] {
                ParseAttrs(op, {{"key", "k"}, {"ndev", "0"}});
              }),
              HasSubstr("ndev"));
}

// relu(BatchNorm): BatchNorm's outputs with relu on the first; its gradients BatchNorm's for
// the output gradient where that output is positive, zero elsewhere; the same moving
// statistics.
TEST(BatchNormWithReluTest, IsReluOfBatchNorm) {
  const std::map<std::string, std::string> common{
      {"fix_gamma", "False"}, {"output_mean_var", "True"}, {"momentum", "0.8"}};
  const OpCase batch_norm = BatchNormCase(TShape{4, 3, 2, 5}, 1, common);
  OpCase with_relu = batch_norm;
  with_relu.op = "_contrib_BatchNormWithReLU";
  // The same random output gradient for both; BatchNorm's masked by its output's sign.
  const auto random_grads = [](const std::vector<CpuTensor>& outputs) {
    std::vector<CpuTensor> grads;
    for (const CpuTensor& o : outputs) {
      grads.push_back(
          testing::MakeInputs(OpCase{"", {}, {InputSpec(o.shape())}}, mshadow::kFloat64, 7)[0]);
    }
    return grads;
  };
  const auto masked_grads = [&](const std::vector<CpuTensor>& outputs) {
    std::vector<CpuTensor> grads = random_grads(outputs);
    for (size_t k = 0; k < outputs[0].shape().Size(); ++k) {
      if (!(outputs[0].data<double>()[k] > 0)) grads[0].data<double>()[k] = 0;
    }
    return grads;
  };
  for (bool is_train : {true, false}) {
    SCOPED_TRACE(is_train ? "training" : "inference");
    std::vector<Values> expected = ForwardBackward(batch_norm, is_train, masked_grads);
    for (double& y : expected[0]) y = std::max(y, 0.0);
    const std::vector<Values> actual = ForwardBackward(with_relu, is_train, random_grads);
    ASSERT_EQ(actual.size(), 10u);
    for (size_t i = 0; i < actual.size(); ++i) EXPECT_EQ(actual[i], expected[i]) << "result " << i;
    EXPECT_GT(std::count(actual[0].begin(), actual[0].end(), 0.0), 10);  // relu cut some
  }
  with_relu.kwargs.erase("output_mean_var");
  testing::CheckWriteModes(with_relu);
  testing::CheckGradient(with_relu);
}

}  // namespace
}  // namespace ops
