// Pad / pad: the three modes against MXNet 1.9.1's values, padding on every axis and rank,
// write modes and numerical gradients, and the errors for a pad_width that does not fit.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

// 0..n-1 in an array of the given shape.
InputSpec Iota(const TShape& shape) {
  Values v(shape.Size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return InputSpec::WithValues(shape, v);
}

OpCase PadCase(const std::string& mode, const std::string& pad_width, InputSpec data,
               const std::string& constant = "0") {
  return {"Pad", {{"mode", mode}, {"pad_width", pad_width}, {"constant_value", constant}},
          {std::move(data)}};
}

// The first plane of a (2, 1, 2, 3) iota, as MXNet 1.9.1 pads it.
TEST(PadTest, ModesMatchMXNet) {
  EXPECT_EQ(Op::Get("pad"), Op::Get("Pad"));
  const InputSpec data = Iota(TShape{1, 1, 2, 3});
  testing::CheckForward(PadCase("reflect", "(0,0,0,0,1,1,2,2)", data),
                        [](const std::vector<Values>&) {
                          return std::vector<Values>{{5, 4, 3, 4, 5, 4, 3,  //
                                                      2, 1, 0, 1, 2, 1, 0,  //
                                                      5, 4, 3, 4, 5, 4, 3,  //
                                                      2, 1, 0, 1, 2, 1, 0}};
                        });
  testing::CheckForward(PadCase("edge", "(0,0,0,0,1,0,0,2)", data),
                        [](const std::vector<Values>&) {
                          return std::vector<Values>{{0, 1, 2, 2, 2,  //
                                                      0, 1, 2, 2, 2,  //
                                                      3, 4, 5, 5, 5}};
                        });
  testing::CheckForward(PadCase("constant", "(0,0,0,0,1,0,0,2)", data, "-1"),
                        [](const std::vector<Values>&) {
                          return std::vector<Values>{{-1, -1, -1, -1, -1,  //
                                                      0, 1, 2, -1, -1,     //
                                                      3, 4, 5, -1, -1}};
                        });
}

// MXNet 1.9.1's gradients for all-ones output gradients: each element counts its readers.
TEST(PadTest, GradientCountsReadersAsMXNet) {
  const InputSpec data = Iota(TShape{1, 1, 2, 3});
  const std::vector<std::pair<std::string, Values>> expected = {
      {"reflect", {4, 6, 4, 4, 6, 4}},
      {"edge", {6, 2, 6, 6, 2, 6}},
      {"constant", {1, 1, 1, 1, 1, 1}},
  };
  for (const auto& [mode, grad] : expected) {
    const OpCase c = PadCase(mode, "(0,0,0,0,1,1,2,2)", data);
    const auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
    EXPECT_EQ(testing::ToValues(testing::Backward(c, inputs, {Values(4 * 7, 1.0)})[0].blob()),
              grad)
        << mode;
  }
}

// Every mode on ranks 1 to 5, padding on any axis (beyond MXNet's last two or three), wide
// enough that every reflected run and edge run meets others.
TEST(PadTest, AnyRankAndAxisWithGradients) {
  const std::vector<std::pair<TShape, std::string>> shapes = {
      {TShape{5}, "(2,3)"},
      {TShape{3, 4}, "(1,2,3,0)"},
      {TShape{2, 3, 4}, "(1,1,0,2,3,1)"},
      {TShape{2, 2, 3, 4}, "(0,0,0,0,2,1,1,3)"},
      {TShape{1, 2, 3, 3, 4}, "(0,0,1,0,2,2,1,1,0,3)"},
  };
  for (const std::string mode : {"constant", "edge", "reflect"}) {
    for (const auto& [shape, pad_width] : shapes) {
      SCOPED_TRACE(mode + " " + pad_width);
      const OpCase c = PadCase(mode, pad_width, InputSpec(shape), "0.5");
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
}

// Constant mode's gradient, element by element: input element i's is the output gradient at the
// one position Pad(e_i) puts it, on every rank (the CPU copies a plane's rows at a time).
TEST(PadTest, ConstantGradientIsTheOutputGradientAtEachElementsPosition) {
  for (const auto& [shape, pad_width] : std::vector<std::pair<TShape, std::string>>{
           {TShape{5}, "(2,3)"},
           {TShape{3, 19}, "(1,2,3,1)"},
           {TShape{2, 3, 4}, "(1,1,0,2,3,1)"},
           {TShape{2, 2, 3, 20}, "(0,0,1,0,2,1,1,3)"},
           {TShape{1, 2, 3, 3, 4}, "(0,0,1,0,2,2,1,1,0,3)"}}) {
    SCOPED_TRACE(pad_width);
    const OpCase c = PadCase("constant", pad_width, InputSpec(shape));
    const std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat64);
    const TShape out_shape = testing::Forward(c, inputs)[0].shape();
    Values out_grad(out_shape.Size());
    for (size_t j = 0; j < out_grad.size(); ++j) out_grad[j] = 0.25 * static_cast<double>(j) + 1;
    const Values in_grad = testing::ToValues(testing::Backward(c, inputs, {out_grad})[0].blob());
    for (mshadow::index_t i = 0; i < shape.Size(); ++i) {
      Values unit(shape.Size(), 0.0);
      unit[i] = 1;
      const OpCase one = PadCase("constant", pad_width, InputSpec::WithValues(shape, unit));
      const Values padded = testing::ToValues(
          testing::Forward(one, testing::MakeInputs(one, mshadow::kFloat64))[0].blob());
      double expected = 0;
      for (size_t j = 0; j < padded.size(); ++j) expected += padded[j] * out_grad[j];
      ASSERT_EQ(in_grad[i], expected) << "element " << i;
    }
  }
}

// Constant mode's forward and gradient of a large output go by streaming stores (here the
// threshold lowered to one byte), a plane per item: the same values as cached writes on one and
// two threads, planes whose rows start on and off a cache line, padded leading axes; the
// gradient's kAddTo still adds.
TEST(PadTest, ConstantModeThroughStreamingStoresMatchesCachedWrites) {
  for (const auto& [shape, pad_width] : std::vector<std::pair<TShape, std::string>>{
           {TShape{2, 3, 9, 7}, "(0,0,0,0,1,2,3,1)"},
           {TShape{3, 5, 16, 16}, "(0,0,0,0,1,2,3,1)"},
           {TShape{2, 2, 3, 20}, "(1,0,0,2,1,1,1,3)"},
           {TShape{4, 37}, "(0,0,2,1)"},
           {TShape{300}, "(5,2)"}}) {
    const OpCase c = PadCase("constant", pad_width, Iota(shape), "-1.5");
    testing::CheckStreamedForward(c);
    const std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat32);
    const TShape out_shape = testing::Forward(c, inputs)[0].shape();
    Values out_grad(out_shape.Size());
    for (size_t j = 0; j < out_grad.size(); ++j) out_grad[j] = 0.5 * static_cast<double>(j % 977);
    const Values cached = testing::ToValues(testing::Backward(c, inputs, {out_grad})[0].blob());
    mshadow::SetStreamingStoreMinBytes(1);
    for (const int threads : {1, 2}) {
      mshadow::SetNumThreads(threads);
      EXPECT_EQ(testing::ToValues(testing::Backward(c, inputs, {out_grad})[0].blob()), cached)
          << shape << ", " << threads << " threads";
    }
    mshadow::SetNumThreads(0);
    CpuTensor grad(out_shape, mshadow::kFloat32), sum(shape, mshadow::kFloat32);
    testing::SetValues(grad.blob(), out_grad);
    testing::SetValues(sum.blob(), Values(shape.Size(), 1.0));
    Invoke<mshadow::cpu>(
        ParseAttrs(Op::Get("_backward_Pad"), {{"mode", "constant"}, {"pad_width", pad_width}}),
        OpContext(), {grad.blob()}, {kAddTo}, {sum.blob()});
    mshadow::SetStreamingStoreMinBytes(0);
    Values expected = cached;
    for (double& v : expected) v += 1;
    EXPECT_EQ(testing::ToValues(sum.blob()), expected) << shape << ", kAddTo";
  }
}

TEST(PadTest, BadPadWidthsAreErrorsNamingThem) {
  auto error = [](const std::string& mode, const std::string& pad_width, const TShape& shape) {
    return testing::ErrorOf(
        [&] { testing::InferOutputShapes(PadCase(mode, pad_width, InputSpec(shape))); });
  };
  EXPECT_THAT(error("constant", "(0,0,1,1)", TShape{1, 1, 2, 3}),
              HasSubstr("pad_width (0,0,1,1) has 4 entries; data (1,1,2,3) needs 8"));
  EXPECT_THAT(error("constant", "(0,0,1,-1)", TShape{2, 3}),
              HasSubstr("has -1 for axis 1; valid: 0 to"));
  EXPECT_THAT(error("reflect", "(0,0,2,2)", TShape{1, 2}),
              HasSubstr("reflect padding of 2 on axis 1 of data (1,2) must be smaller than the "
                        "axis (2)"));
  EXPECT_THAT(error("edge", "(0,0,1,0)", TShape{2, 0}), HasSubstr("which is empty"));
  EXPECT_THAT(error("constant", "(0,0,0,0,0,0,0,0,0,0,0,0)", TShape{1, 1, 1, 1, 1, 1}),
              HasSubstr("rank 1 to 5"));
  EXPECT_THAT(error("constant", "(0,9223372036854775807)", TShape{2}),
              HasSubstr("valid: 0 to"));
  EXPECT_THAT(error("wrap", "(0,1)", TShape{2}), HasSubstr("wrap"));
  // Padding an empty axis with a constant is fine.
  EXPECT_EQ(testing::InferOutputShapes(PadCase("constant", "(0,0,1,2)", InputSpec(TShape{2, 0})))[0],
            (TShape{2, 3}));
}

}  // namespace
}  // namespace ops
