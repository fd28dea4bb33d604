// SoftmaxOutput: the softmax forward, the cross-entropy gradient against a float64 reference
// for every normalization, ignored labels, label smoothing, multi_output and preserve_shape
// (the scalings MXNet 1.9.1 gives), the backward write modes, and bad labels and shapes.
#include <cmath>
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

struct Layout {
  int outer, classes, inner;
};

// Softmax over the classes of (outer, classes, inner).
Values Softmax(const Values& x, const Layout& l) {
  Values p(x.size());
  for (int o = 0; o < l.outer; ++o) {
    for (int i = 0; i < l.inner; ++i) {
      double sum = 0;
      for (int k = 0; k < l.classes; ++k) sum += std::exp(x[(o * l.classes + k) * l.inner + i]);
      for (int k = 0; k < l.classes; ++k) {
        const int at = (o * l.classes + k) * l.inner + i;
        p[at] = std::exp(x[at]) / sum;
      }
    }
  }
  return p;
}

struct GradCase {
  std::string name;
  std::map<std::string, std::string> kwargs;
  TShape data;
  Layout layout;
  // What MXNet 1.9.1 divides the gradient by (before grad_scale), given the labels.
  std::function<double(const Values& labels)> divisor;
};

class SoftmaxOutputGradTest : public ::testing::TestWithParam<GradCase> {};

TEST_P(SoftmaxOutputGradTest, MatchesReference) {
  const GradCase& gc = GetParam();
  const Layout l = gc.layout;
  OpCase c{"SoftmaxOutput", gc.kwargs, {InputSpec{gc.data, -2, 2}, InputSpec{TShape()}}};
  {  // labels: whole numbers in [0, classes), shaped as inference says
    std::vector<TShape> in = {gc.data, TShape()}, out;
    InferShapes(ParseAttrs(Op::Get("SoftmaxOutput"), gc.kwargs), &in, &out);
    c.inputs[1] = InputSpec{in[1], 0, static_cast<double>(l.classes)};
    c.inputs[1].integer = true;
    c.inputs[1].differentiable = false;
  }
  const NodeAttrs attrs = ParseAttrs(Op::Get("SoftmaxOutput"), c.kwargs);
  const auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
  const Values x = testing::ToValues(inputs[0].blob());
  Values labels = testing::ToValues(inputs[1].blob());
  const auto outputs = RunCpu(attrs, Blobs(inputs), true);
  const Values p = Softmax(x, l);
  const Values y = testing::ToValues(outputs[0].blob());
  for (size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(y[i], p[i], 1e-12);

  const double grad_scale = gc.kwargs.count("grad_scale") ? std::stod(gc.kwargs.at("grad_scale")) : 1;
  // smooth_alpha is a float parameter: the reference takes its float value.
  const double alpha =
      gc.kwargs.count("smooth_alpha") ? std::stof(gc.kwargs.at("smooth_alpha")) : 0.0f;
  const bool use_ignore = gc.kwargs.count("use_ignore") != 0;
  const double ignore = use_ignore ? std::stod(gc.kwargs.at("ignore_label")) : -1;
  const double scale = grad_scale / gc.divisor(labels);
  Values expected(x.size());
  for (int o = 0; o < l.outer; ++o) {
    for (int k = 0; k < l.classes; ++k) {
      for (int i = 0; i < l.inner; ++i) {
        const int at = (o * l.classes + k) * l.inner + i;
        const double label = labels[o * l.inner + i];
        const double target = k == label ? 1 - alpha : alpha / (l.classes - 1);
        expected[at] = use_ignore && label == ignore ? 0 : (p[at] - target) * scale;
      }
    }
  }
  // The output gradient: ignored, as in MXNet, unless out_grad multiplies by it.
  const bool out_grad = gc.kwargs.count("out_grad") != 0;
  Values head_values(x.size(), 7.0);
  for (size_t i = 0; i < x.size() && out_grad; ++i) {
    head_values[i] = 0.5 + 0.25 * static_cast<double>(i % 7);
    expected[i] *= head_values[i];
  }
  CpuTensor head(outputs[0].blob().shape_, mshadow::kFloat64);
  testing::SetValues(head.blob(), head_values);
  for (OpReqType req : {kWriteTo, kAddTo}) {
    std::vector<CpuTensor> grads;
    for (const auto& t : inputs) {
      grads.emplace_back(t.blob().shape_, mshadow::kFloat64);
      testing::SetValues(grads.back().blob(), Values(t.blob().Size(), 0.5));
    }
    const NodeAttrs backward = BackwardAttrs(attrs);
    Invoke<mshadow::cpu>(backward, MakeCpuContext(backward, true),
                         BackwardInputs(attrs, {head.blob()}, Blobs(inputs), Blobs(outputs)),
                         {req, req}, Blobs(grads));
    const Values g = testing::ToValues(grads[0].blob());
    const double base = req == kAddTo ? 0.5 : 0.0;
    for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], base + expected[i], 1e-12) << i;
    EXPECT_EQ(testing::ToValues(grads[1].blob()), Values(labels.size(), base));
  }
}

double CountValid(const Values& labels, double ignore) {
  double n = 0;
  for (double l : labels) n += l != ignore;
  return n;
}

INSTANTIATE_TEST_SUITE_P(
    Normalizations, SoftmaxOutputGradTest,
    ::testing::Values(
        GradCase{"plain", {}, TShape{4, 5}, {4, 5, 1}, [](const Values&) { return 1.0; }},
        GradCase{"batch",
                 {{"normalization", "batch"}, {"grad_scale", "0.5"}},
                 TShape{4, 5},
                 {4, 5, 1},
                 [](const Values&) { return 4.0; }},
        GradCase{"valid_ignore",
                 {{"normalization", "valid"}, {"use_ignore", "True"}, {"ignore_label", "2"}},
                 TShape{6, 4},
                 {6, 4, 1},
                 [](const Values& l) { return CountValid(l, 2); }},
        GradCase{"ignore",
                 {{"use_ignore", "True"}, {"ignore_label", "1"}},
                 TShape{6, 3},
                 {6, 3, 1},
                 [](const Values&) { return 1.0; }},
        GradCase{"smoothing",
                 {{"smooth_alpha", "0.2"}},
                 TShape{3, 5},
                 {3, 5, 1},
                 [](const Values&) { return 1.0; }},
        GradCase{"out_grad",
                 {{"out_grad", "True"}},
                 TShape{3, 5},
                 {3, 5, 1},
                 [](const Values&) { return 1.0; }},
        GradCase{"multi_output_out_grad",
                 {{"multi_output", "True"}, {"out_grad", "True"}},
                 TShape{2, 3, 4},
                 {2, 3, 4},
                 [](const Values&) { return 4.0; }},
        GradCase{"multi_output",
                 {{"multi_output", "True"}},
                 TShape{2, 3, 4},
                 {2, 3, 4},
                 [](const Values&) { return 4.0; }},
        GradCase{"multi_output_batch",
                 {{"multi_output", "True"}, {"normalization", "batch"}},
                 TShape{2, 3, 2, 2},
                 {2, 3, 4},
                 [](const Values&) { return 8.0; }},
        GradCase{"multi_output_valid",
                 {{"multi_output", "True"},
                  {"normalization", "valid"},
                  {"use_ignore", "True"},
                  {"ignore_label", "0"}},
                 TShape{2, 3, 4},
                 {2, 3, 4},
                 [](const Values& l) { return CountValid(l, 0); }},
        GradCase{"preserve_shape",
                 {{"preserve_shape", "True"}},
                 TShape{2, 3, 4},
                 {6, 4, 1},
                 [](const Values&) { return 1.0; }}),
    [](const ::testing::TestParamInfo<GradCase>& info) { return info.param.name; });

TEST(SoftmaxOutputTest, LabelShapes) {
  auto label_shape = [](std::map<std::string, std::string> kwargs, TShape data) {
    std::vector<TShape> in = {data, TShape()}, out;
    InferShapes(ParseAttrs(Op::Get("SoftmaxOutput"), kwargs), &in, &out);
    return in[1];
  };
  EXPECT_EQ(label_shape({}, TShape{4, 5}), (TShape{4}));
  EXPECT_EQ(label_shape({{"multi_output", "True"}}, TShape{2, 3, 4, 5}), (TShape{2, 4, 5}));
  EXPECT_EQ(label_shape({{"preserve_shape", "True"}}, TShape{2, 3, 4}), (TShape{2, 3}));
}

TEST(SoftmaxOutputTest, BadLabelsAndShapes) {
  const OpCase c{"SoftmaxOutput",
                 {},
                 {InputSpec{TShape{3, 4}}, InputSpec::WithValues(TShape{3}, {0, 4, 1})}};
  const NodeAttrs attrs = ParseAttrs(Op::Get("SoftmaxOutput"), c.kwargs);
  const auto inputs = testing::MakeInputs(c, mshadow::kFloat32);
  const auto outputs = RunCpu(attrs, Blobs(inputs), true);
  std::vector<CpuTensor> grads;
  for (const auto& t : inputs) grads.emplace_back(t.blob().shape_, mshadow::kFloat32);
  const NodeAttrs backward = BackwardAttrs(attrs);
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke<mshadow::cpu>(
                    backward, MakeCpuContext(backward, true),
                    BackwardInputs(attrs, Blobs(outputs), Blobs(inputs), Blobs(outputs)),
                    {kWriteTo, kWriteTo}, Blobs(grads));
              }),
              HasSubstr("label 4 at position 1 is not a class index in [0, 4)"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(OpCase{
                    "SoftmaxOutput", {}, {InputSpec{TShape{2, 3, 4}}, InputSpec{TShape()}}});
              }),
              HasSubstr("needs multi_output (classes on axis 1) or preserve_shape"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    OpCase{"SoftmaxOutput", {}, {InputSpec{TShape{5}}, InputSpec{TShape()}}});
              }),
              HasSubstr("rank at least 2 but the data is (5,)"));
}

}  // namespace
}  // namespace ops
