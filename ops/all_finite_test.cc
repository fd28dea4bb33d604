// all_finite and multi_all_finite: every kind of non-finite element in every type and at
// every place (first, last, a tail past the packets, another thread's block), init_output as
// MXNet 1.9.1 treats it, the types it refuses.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::Values;

// The flag multi_all_finite writes over `before` for inputs of these values and type.
float FlagOf(const std::vector<Values>& inputs, int type, bool init, float before) {
  const NodeAttrs attrs = ParseAttrs(
      Op::Get("multi_all_finite"),
      {{"init_output", init ? "True" : "False"}, {"num_arrays", std::to_string(inputs.size())}});
  std::vector<CpuTensor> tensors;
  for (const Values& v : inputs) tensors.push_back(testing::TensorOf(type, v));
  CpuTensor flag(TShape{1}, mshadow::kFloat32);
  *flag.data<float>() = before;
  Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs), Blobs(tensors), {kWriteTo}, {flag.blob()});
  return *flag.data<float>();
}

float AllFinite(const Values& x, int type, bool init = true, float before = 0.5f) {
  const NodeAttrs attrs =
      ParseAttrs(Op::Get("all_finite"), {{"init_output", init ? "True" : "False"}});
  const CpuTensor data = testing::TensorOf(type, x);
  CpuTensor flag(TShape{1}, mshadow::kFloat32);
  *flag.data<float>() = before;
  Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs), {data.blob()}, {kWriteTo}, {flag.blob()});
  return *flag.data<float>();
}

TEST(AllFiniteTest, EveryNonFiniteValueAtEveryPlace) {
  const double bad[] = {std::numeric_limits<double>::infinity(),
                        -std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::quiet_NaN()};
  for (const int threads : {1, 2}) {
    mshadow::SetNumThreads(threads);
    for (const int type :
         {mshadow::kFloat32, mshadow::kFloat64, mshadow::kFloat16, mshadow::kBfloat16}) {
      // 70000 elements: several of the check's blocks, and a tail past the packets.
      for (const size_t n : {size_t{1}, size_t{13}, size_t{70000}}) {
        Values x(n);
        for (size_t i = 0; i < n; ++i) x[i] = std::sin(static_cast<double>(i)) * 100;
        SCOPED_TRACE("type " + std::to_string(type) + " n " + std::to_string(n));
        EXPECT_EQ(AllFinite(x, type), 1.0f);
        for (const double b : bad) {
          for (const size_t at : {size_t{0}, n / 2, n - 1}) {
            Values with_bad = x;
            with_bad[at] = b;
            EXPECT_EQ(AllFinite(with_bad, type), 0.0f) << b << " at " << at;
          }
        }
      }
    }
  }
  mshadow::SetNumThreads(1);
  // The largest finite values are finite (x * 0 is 0 for them).
  EXPECT_EQ(AllFinite({std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()},
                      mshadow::kFloat32),
            1.0f);
  EXPECT_EQ(AllFinite({65504, -65504}, mshadow::kFloat16), 1.0f);
}

// MXNet 1.9.1: with init_output=False a finite input leaves the flag as it was (0.5 stays
// 0.5) and a non-finite one writes 0.
TEST(AllFiniteTest, InitOutputAndSeveralArrays) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(AllFinite({1, 2}, mshadow::kFloat32, false, 0.5f), 0.5f);
  EXPECT_EQ(AllFinite({1, inf}, mshadow::kFloat32, false, 0.5f), 0.0f);
  EXPECT_EQ(FlagOf({{1}, {2, 3}}, mshadow::kFloat32, true, 0.5f), 1.0f);
  EXPECT_EQ(FlagOf({{1}, {2, 3}}, mshadow::kFloat32, false, 0.5f), 0.5f);
  EXPECT_EQ(FlagOf({{1}, {2, inf}, {4}}, mshadow::kFloat64, true, 0.5f), 0.0f);
  EXPECT_EQ(FlagOf({{-inf}, {2}}, mshadow::kFloat16, false, 0.5f), 0.0f);
}

// A flag is written or left (kNullOp); an addition to it is refused, by both operators.
TEST(AllFiniteTest, WriteModes) {
  const CpuTensor data = testing::TensorOf(mshadow::kFloat32, {1, 2});
  for (const char* name : {"all_finite", "multi_all_finite"}) {
    const NodeAttrs attrs = ParseAttrs(Op::Get(name), {});
    CpuTensor flag(TShape{1}, mshadow::kFloat32);
    for (const OpReqType req : {kNullOp, kWriteInplace, kAddTo}) {
      *flag.data<float>() = 0.5f;
      try {
        Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs), {data.blob()}, {req}, {flag.blob()});
        EXPECT_NE(req, kAddTo) << name << ": kAddTo accepted";
      } catch (const dmlc::Error& e) {
        EXPECT_EQ(req, kAddTo) << e.what();
        EXPECT_THAT(e.what(), HasSubstr(std::string(name) + " writes a flag, it cannot add"));
      }
      EXPECT_EQ(*flag.data<float>(), req == kWriteInplace ? 1.0f : 0.5f) << name << " req " << req;
    }
  }
}

TEST(AllFiniteTest, ShapesTypesAndNames) {
  const testing::OpCase c{
      "multi_all_finite", {{"num_arrays", "3"}}, {{TShape{2, 3}}, {TShape{4}}, {TShape{1, 1, 5}}}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], TShape{1});
  EXPECT_EQ(Op::Get("multi_all_finite")
                ->ListInputNames(ParseAttrs(Op::Get("multi_all_finite"), {{"num_arrays", "2"}})),
            (std::vector<std::string>{"array_0", "array_1"}));
  const testing::OpCase ints{"all_finite", {}, {{TShape{3}}}};
  EXPECT_THAT(
      testing::ErrorOf([&] { testing::Forward(ints, testing::MakeInputs(ints, mshadow::kInt32)); }),
      HasSubstr("data type int32 is not supported; valid: float32, float64, float16, "
                "bfloat16"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("multi_all_finite"), {{"num_arrays", "0"}});
              }),
              HasSubstr("num_arrays"));
}

}  // namespace
}  // namespace ops
