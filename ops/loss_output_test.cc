// The loss layers against MXNet 1.9.1's formulas (which the Python suite also checks against
// MXNet itself): outputs, the gradients that ignore the output gradient, label shapes.
#include <cmath>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/loss_output-inl.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

struct RegressionCase {
  std::string op;
  double (*forward)(double);
  double (*grad)(double y, double label);
};

TEST(RegressionOutputTest, OutputsAndGradientsIgnoreTheOutputGradient) {
  const std::vector<RegressionCase> cases = {
      {"LinearRegressionOutput", [](double x) { return x; }, [](double y, double l) { return y - l; }},
      {"LogisticRegressionOutput", [](double x) { return 1 / (1 + std::exp(-x)); },
       [](double y, double l) { return y - l; }},
      {"MAERegressionOutput", [](double x) { return x; },
       [](double y, double l) { return y > l ? 1.0 : (y < l ? -1.0 : 0.0); }}};
  for (const RegressionCase& rc : cases) {
    SCOPED_TRACE(rc.op);
    const OpCase c{rc.op, {{"grad_scale", "2"}}, {InputSpec(TShape{4, 3}), InputSpec(TShape{4, 3})}};
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      Values out(in[0].size());
      for (size_t i = 0; i < out.size(); ++i) out[i] = rc.forward(in[0][i]);
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(c);
    const std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat64);
    const Values x = testing::ToValues(inputs[0].blob()), label = testing::ToValues(inputs[1].blob());
    const std::vector<CpuTensor> grads = testing::Backward(c, inputs, {Values(12, 5.0)});
    const Values dx = testing::ToValues(grads[0].blob());
    for (size_t i = 0; i < dx.size(); ++i) {
      EXPECT_NEAR(dx[i], 2.0 / 3 * rc.grad(rc.forward(x[i]), label[i]), 1e-12);  // m = 3
    }
    EXPECT_EQ(testing::ToValues(grads[1].blob()), Values(12, 0.0));
  }
}

TEST(RegressionOutputTest, LabelShapesFollowMxnet) {
  EXPECT_EQ(testing::InferOutputShapes({"LinearRegressionOutput", {}, {InputSpec(TShape{4, 1}), InputSpec(TShape{4})}})[0],
            (TShape{4, 1}));
  EXPECT_EQ(testing::InferOutputShapes({"LinearRegressionOutput", {}, {InputSpec(TShape{4, 3}), InputSpec(TShape{4, 3, 1})}})[0],
            (TShape{4, 3}));
  const NodeAttrs attrs = ParseAttrs(Op::Get("LogisticRegressionOutput"), {});
  std::vector<TShape> in = {TShape{4, 1}, TShape()}, out;
  InferShapes(attrs, &in, &out);
  EXPECT_EQ(in[1], TShape{4});
  in = {TShape{2, 5}, TShape()};
  out.clear();
  InferShapes(attrs, &in, &out);
  EXPECT_EQ(in[1], (TShape{2, 5}));
  in = {TShape{4, 3}, TShape{12}};
  out.clear();
  EXPECT_THAT(testing::ErrorOf([&] { InferShapes(attrs, &in, &out); }),
              HasSubstr("the label (12,) must have the data's batch size and element count; the "
                        "data is (4,3)"));
}

TEST(MakeLossTest, GradientIsTheScaleDividedAsNormalizationSays) {
  // mx.nd.MakeLoss on [[-2, -0.5, 0.3, 1.5], [1, 2, -3, 0.1]] with grad_scale=3 and
  // valid_thresh=0.2: null 3, batch 1.5, valid 0.75 (4 elements above 0.2).
  const std::vector<double> data = {-2, -0.5, 0.3, 1.5, 1, 2, -3, 0.1};
  for (const auto& [normalization, expected] :
       std::vector<std::pair<std::string, double>>{{"null", 3}, {"batch", 1.5}, {"valid", 0.75}}) {
    SCOPED_TRACE(normalization);
    const OpCase c{"MakeLoss",
                   {{"grad_scale", "3"}, {"normalization", normalization}, {"valid_thresh", "0.2"}},
                   {InputSpec::WithValues(TShape{2, 4}, data)}};
    testing::CheckForward(c, testing::ElementwiseReference([](double x) { return x; }));
    for (int type : {mshadow::kFloat32, mshadow::kFloat64}) {
      const std::vector<CpuTensor> grads =
          testing::Backward(c, testing::MakeInputs(c, type), {Values(8, 7.0)});
      EXPECT_EQ(testing::ToValues(grads[0].blob()), Values(8, expected));
    }
  }
  EXPECT_THAT(testing::ErrorOf([] { ParseAttrs(Op::Get("MakeLoss"), {{"normalization", "all"}}); }),
              HasSubstr("all"));
}

// mx.nd.SVMOutput's gradients (autograd, the output gradient ignored) on MXNet's own printout,
// then the hinge formulas on random scores of a 3-d batch.
TEST(SVMOutputTest, GradientsAreTheHingeLossesAsMxnet) {
  const InputSpec scores = InputSpec::WithValues(TShape{2, 3}, {0.5, -0.3, 2.0, 1.5, 0.2, -1.0});
  const auto grad_of = [&](const std::map<std::string, std::string>& kw, const Values& labels) {
    const OpCase c{"SVMOutput", kw, {scores, InputSpec::WithValues(TShape{2}, labels)}};
    return testing::ToValues(
        testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat64), {Values(6, 5.0)})[0]
            .blob());
  };
  const auto expect_near = [](const Values& actual, const Values& expected) {
    testing::ExpectClose(expected, actual, 1e-12, 1e-12, "");
  };
  expect_near(grad_of({}, {0, 2}), {-1.0, 1.4, 6.0, 5.0, 2.4, -4.0});
  expect_near(grad_of({{"use_linear", "true"}}, {0, 2}), {-1, 1, 1, 1, 1, -1});
  expect_near(grad_of({{"margin", "0.5"}, {"regularization_coefficient", "2"}}, {0, 2}),
              {0.0, 0.8, 10.0, 8.0, 2.8, -6.0});
  expect_near(grad_of({}, {0, 7}), {-1.0, 1.4, 6.0, 5.0, 2.4, 0.0});  // 7 names no class

  InputSpec labels(TShape{2, 3}, 0, 4);
  labels.integer = true;
  const OpCase c{"SVMOutput",
                 {{"margin", "0.75"}, {"regularization_coefficient", "1.5"}},
                 {InputSpec(TShape{2, 3, 4}), labels}};
  testing::CheckForward(c,
                        [](const std::vector<Values>& in) { return std::vector<Values>{in[0]}; });
  testing::CheckWriteModes(c);
  const std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat64);
  const Values x = testing::ToValues(inputs[0].blob()), label = testing::ToValues(inputs[1].blob());
  const std::vector<CpuTensor> grads = testing::Backward(c, inputs, {Values(24, 3.0)});
  const Values dx = testing::ToValues(grads[0].blob());
  for (int i = 0; i < 24; ++i) {
    const bool is_label = label[i / 4] == i % 4;
    const double distance = is_label ? 0.75 - x[i] : 0.75 + x[i];
    const double hinge = distance > 0 ? 2 * distance : 0;
    EXPECT_NEAR(dx[i], (is_label ? -1.5 : 1.5) * hinge, 1e-12) << i;
  }
  EXPECT_EQ(testing::ToValues(grads[1].blob()), Values(6, 0.0));
}

// The GPU's gradient item (a score a thread) runs here on the CPU through Kernel<OP, cpu>,
// against the CPU's row items; labels in and out of range.
TEST(SVMOutputTest, TheGpuItemAgreesWithTheCpuPath) {
  const Values labels = {0, 3, 7, -1, 2.5, 1};
  for (const bool linear : {false, true}) {
    const OpCase c{"SVMOutput",
                   {{"use_linear", linear ? "1" : "0"}, {"margin", "0.75"}},
                   {InputSpec(TShape{6, 4}), InputSpec::WithValues(TShape{6}, labels)}};
    const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
    const Values dx =
        testing::ToValues(testing::Backward(c, in, {Values(24, 1.0)})[0].blob());
    Values gpu_dx(24);
    const auto run = [&](auto kind) {
      Kernel<loss_output::svm_grad<decltype(kind)::value, kWriteTo>, cpu>::Launch(
          nullptr, 24, gpu_dx.data(), in[0].data<double>(), in[1].data<double>(), index_t{4},
          0.75, 1.0);
    };
    if (linear) {
      run(std::true_type());
    } else {
      run(std::false_type());
    }
    testing::ExpectClose(dx, gpu_dx, 1e-14, 1e-14, linear ? "L1" : "L2");
  }
}

TEST(SVMOutputTest, LabelShapeIsTheRowsOfScores) {
  const NodeAttrs attrs = ParseAttrs(Op::Get("SVMOutput"), {});
  std::vector<TShape> in = {TShape{4, 3, 5}, TShape()}, out;
  InferShapes(attrs, &in, &out);
  EXPECT_EQ(in[1], (TShape{4, 3}));
  in = {TShape{4, 3}, TShape{3}};
  out.clear();
  EXPECT_THAT(testing::ErrorOf([&] { InferShapes(attrs, &in, &out); }), HasSubstr("(3,)"));
  in = {TShape{4}, TShape()};
  out.clear();
  EXPECT_THAT(testing::ErrorOf([&] { InferShapes(attrs, &in, &out); }),
              HasSubstr("data must be scores (examples..., classes) of 2 or more axes, got (4,)"));
}

}  // namespace
}  // namespace ops
