// The registry: lookup, suggestions, aliases, listing, attributes, parsing errors, arity and
// device checks, thread safety.
#include "ops/op.h"

#include <atomic>
#include <cmath>
#include <thread>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/backward.h"
#include "ops/imperative.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;

TEST(OpRegistryTest, FindsOperatorsAndSuggestsForTypos) {
  const Op* fc = Op::Get("FullyConnected");
  EXPECT_EQ(fc->name, "FullyConnected");
  EXPECT_EQ(Op::Find("NoSuchOp"), nullptr);
  EXPECT_THAT(testing::ErrorOf([] { Op::Get("FullyConnect"); }),
              HasSubstr("operator 'FullyConnect' is not registered. Did you mean "
                        "'FullyConnected'?"));
  EXPECT_THAT(testing::ErrorOf([] { Op::Get("softmx"); }), HasSubstr("'softmax'"));
}

TEST(OpRegistryTest, ListsEveryOperatorTheIssueNames) {
  const std::vector<std::string> names = Op::ListAllNames();
  for (const char* name :
       {"elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div", "_plus_scalar",
        "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar", "_rdiv_scalar",
        "broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div", "relu", "sigmoid",
        "tanh", "exp", "log", "sqrt", "square", "abs", "negative", "clip", "Activation",
        "LeakyReLU", "FullyConnected", "softmax", "log_softmax", "softmax_cross_entropy", "dot",
        "batch_dot", "sum", "mean", "max", "min", "Reshape", "Flatten", "transpose", "Concat",
        "slice_axis", "Cast", "sgd_update", "sgd_mom_update"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

// MXNet's older names, which its symbol files still carry (python/tests checks every one
// against MXNet 1.9.1's registry).
TEST(OpRegistryTest, MxnetsOlderNamesFindTheSameOperators) {
  const std::pair<const char*, const char*> aliases[] = {
      {"cast", "Cast"},
      {"concat", "Concat"},
      {"reshape", "Reshape"},
      {"flatten", "Flatten"},
      {"identity", "_copy"},
      {"Softmax", "SoftmaxOutput"},
      {"choose_element_0index", "pick"},
      {"sum_axis", "sum"},
      {"max_axis", "max"},
      {"broadcast_plus", "broadcast_add"},
      {"broadcast_minus", "broadcast_sub"},
      {"_Plus", "elemwise_add"},
      {"_minus", "elemwise_sub"},
      {"_Greater_Equal", "_greater_equal"},
      {"_RMinusScalar", "_rminus_scalar"},
      {"_LogicalXorScalar", "_logical_xor_scalar"},
  };
  for (const auto& [alias, name] : aliases) {
    EXPECT_EQ(Op::Get(alias), Op::Get(name)) << alias;
  }
}

TEST(OpRegistryTest, EveryDifferentiableOperatorHasARegisteredBackward) {
  for (const std::string& name : Op::ListAllNames()) {
    const Op* op = Op::Get(name);
    if (const auto* gradient = op->GetAttr<FGradient>("FGradient")) {
      const Op* backward = Op::Find(gradient->backward_op);
      ASSERT_NE(backward, nullptr) << name << " names " << gradient->backward_op;
      EXPECT_TRUE(backward->HasAttr("FCompute<cpu>")) << gradient->backward_op;
      EXPECT_NE(backward->GetAttr<bool>("TIsBackward"), nullptr) << gradient->backward_op;
    }
    EXPECT_TRUE(op->HasAttr("FCompute<cpu>")) << name;
  }
}

// Operators whose outputs are positions or codes have MXNet 1.9.1's zero gradient
// (SetZeroGradient): zeros of the inputs' shapes and types whatever the output gradient.
TEST(OpRegistryTest, PositionsAndCodesHaveZeroGradients) {
  const testing::InputSpec data{TShape{3, 4}};
  const testing::InputSpec indices = testing::InputSpec::WithValues(TShape{3}, {0, 5, 2});
  const std::vector<testing::OpCase> cases = {{"argmax", {{"axis", "1"}}, {data}},
                                              {"argmin", {}, {data}},
                                              {"argsort", {{"axis", "0"}}, {data}},
                                              {"one_hot", {{"depth", "6"}}, {indices}}};
  for (const testing::OpCase& c : cases) {
    for (int type : {mshadow::kFloat32, mshadow::kFloat64}) {
      SCOPED_TRACE(c.op);
      const std::vector<CpuTensor> inputs = testing::MakeInputs(c, type);
      const TShape out_shape = testing::Forward(c, inputs)[0].shape();
      const std::vector<CpuTensor> grads =
          testing::Backward(c, inputs, {testing::Values(out_shape.Size(), NAN)});
      ASSERT_EQ(grads.size(), 1u);
      EXPECT_EQ(grads[0].shape(), inputs[0].shape());
      EXPECT_EQ(grads[0].type_flag(), type);
      EXPECT_EQ(testing::ToValues(grads[0].blob()), testing::Values(inputs[0].shape().Size(), 0));
    }
  }
  testing::CheckGradient(cases[0]);  // the write modes of the backward operator
}

TEST(OpRegistryTest, AliasesFindTheSameOperator) {
  RegisterOp("_test_aliased").add_alias("_test_alias_name");
  EXPECT_EQ(Op::Get("_test_alias_name"), Op::Get("_test_aliased"));
}

TEST(OpRegistryTest, AttributesAreTypedAndSetOnce) {
  Op& op = RegisterOp("_test_attributes");
  op.set_attr<int>("TAnswer", 42);
  EXPECT_EQ(*op.GetAttr<int>("TAnswer"), 42);
  EXPECT_EQ(op.GetAttr<int>("TMissing"), nullptr);
  EXPECT_THAT(testing::ErrorOf([&] { op.GetAttr<double>("TAnswer"); }),
              HasSubstr("attribute TAnswer of operator _test_attributes is not a"));
  EXPECT_THAT(testing::ErrorOf([&] { op.set_attr<int>("TAnswer", 1); }),
              HasSubstr("attribute TAnswer of operator _test_attributes is set twice"));
}

TEST(OpRegistryTest, ParameterErrorsNameTheOperator) {
  try {
    ParseAttrs(Op::Get("LeakyReLU"), {{"slope", "steep"}});
    FAIL();
  } catch (const dmlc::ParamError& e) {
    EXPECT_THAT(e.what(), HasSubstr("Invalid parameter of operator LeakyReLU: Invalid Parameter "
                                    "format for slope expect float but value='steep'"));
  }
}

TEST(OpRegistryTest, DuplicateAndUnexpectedKeysAreErrors) {
  // Once the first of two values silently won.
  EXPECT_EQ(testing::ErrorOf([] {
              ParseAttrs(Op::Get("FullyConnected"), std::vector<std::pair<std::string, std::string>>{
                                                        {"num_hidden", "4"}, {"num_hidden", "8"}});
            }),
            "Invalid parameter of operator FullyConnected: 'num_hidden' is given twice ('4' and "
            "'8')");
  // An operator without parameters once ignored every key.
  EXPECT_EQ(testing::ErrorOf([] { ParseAttrs(Op::Get("relu"), {{"foo", "1"}}); }),
            "Invalid parameter of operator relu: relu takes no parameters; got 'foo'");
  // `__hidden__` keys are a host's own annotations: accepted by every operator, as dmlc does.
  EXPECT_NO_THROW(ParseAttrs(Op::Get("relu"), {{"__ctx_group__", "a"}}));
  EXPECT_NO_THROW(
      ParseAttrs(Op::Get("FullyConnected"), {{"num_hidden", "2"}, {"__lr_mult__", "2"}}));
  // Backward operators read their forward operator's keys.
  const NodeAttrs fc = ParseAttrs(Op::Get("FullyConnected"), {{"num_hidden", "2"}});
  EXPECT_NO_THROW(BackwardAttrs(fc));
}

TEST(OpRegistryTest, InvocationChecksArityDevicesAndRequests) {
  const NodeAttrs attrs = ParseAttrs(Op::Get("relu"), {});
  CpuTensor x(TShape{4}, mshadow::kFloat32), y(TShape{4}, mshadow::kFloat32);
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke<mshadow::cpu>(attrs, OpContext(), {x.blob(), x.blob()}, {kWriteTo}, {y.blob()});
              }),
              HasSubstr("relu takes 1 inputs (data), given 2"));
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke<mshadow::cpu>(attrs, OpContext(), {x.blob()}, {}, {y.blob()});
              }),
              HasSubstr("relu: one OpReqType per output is needed"));
  TBlob on_gpu = x.blob();
  on_gpu.dev_mask_ = mshadow::gpu::kDevMask;
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke<mshadow::cpu>(attrs, OpContext(), {on_gpu}, {kWriteTo}, {y.blob()});
              }),
              HasSubstr("relu: input 'data' is on gpu, the operator runs on cpu"));
  TBlob out_on_gpu = y.blob();
  out_on_gpu.dev_mask_ = mshadow::gpu::kDevMask;
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke<mshadow::gpu>(attrs, OpContext(), {on_gpu}, {kWriteTo}, {out_on_gpu});
              }),
              HasSubstr("relu has no FCompute<gpu> implementation"));
  CpuTensor ints(TShape{4}, mshadow::kInt32);
  EXPECT_THAT(
      testing::ErrorOf([&] {
        Invoke<mshadow::cpu>(attrs, OpContext(), {ints.blob()}, {kWriteTo}, {ints.blob()});
      }),
      HasSubstr(
          "relu: data type int32 is not supported; valid: float32, float64, float16, bfloat16"));
}

TEST(OpRegistryTest, ConcurrentLookupParseInferAndRun) {
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) {
        const NodeAttrs attrs =
            ParseAttrs(Op::Get("_plus_scalar"), {{"scalar", std::to_string(t)}});
        CpuTensor x(TShape{8}, mshadow::kFloat64);
        const auto y = RunCpu(attrs, {x.blob()});
        if (y[0].data<double>()[7] != t) ++wrong;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace ops
