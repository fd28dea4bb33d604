// Cast, amp_cast and amp_multicast.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/half.h"
#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

TEST(CastTest, ConvertsAndSaturates) {
  InputSpec x{TShape{6}};
  x.values = {-300.7, -1.5, 0.4, 2.9, 255.5, 1e10};
  const OpCase to_uint8{"Cast", {{"dtype", "uint8"}}, {x}};
  const auto out = testing::Forward(to_uint8, testing::MakeInputs(to_uint8, mshadow::kFloat64));
  EXPECT_EQ(out[0].type_flag(), mshadow::kUint8);
  EXPECT_EQ(testing::ToValues(out[0].blob()), (Values{0, 0, 0, 2, 255, 255}));
  const OpCase to_int32{"Cast", {{"dtype", "int32"}}, {x}};
  EXPECT_EQ(
      testing::ToValues(
          testing::Forward(to_int32, testing::MakeInputs(to_int32, mshadow::kFloat32))[0].blob()),
      (Values{-300, -1, 0, 2, 255, 2147483647}));
  const OpCase to_half{
      "Cast", {{"dtype", "float16"}}, {InputSpec::WithValues(TShape{3}, {0.5, -2, 1024})}};
  EXPECT_EQ(
      testing::ToValues(
          testing::Forward(to_half, testing::MakeInputs(to_half, mshadow::kFloat32))[0].blob()),
      (Values{0.5, -2, 1024}));
  const OpCase identity{"Cast", {{"dtype", "float64"}}, {InputSpec{TShape{3, 2}}}};
  testing::CheckWriteModes(identity);
  testing::CheckGradient(identity);
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("Cast"), {{"dtype", "bfloat17"}});
              }),
              HasSubstr("Invalid Input: 'bfloat17' for dtype, valid values are: {'bfloat16', "
                        "'bool', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8', "
                        "'uint8'}"));
}

// Runs Cast(dtype) on `values` held in `from`; the result's values as doubles.
Values CastValues(const Values& values, int from, const std::string& dtype) {
  const OpCase c{"Cast",
                 {{"dtype", dtype}},
                 {InputSpec::WithValues(TShape{static_cast<index_t>(values.size())}, values)}};
  CpuTensor x(c.inputs[0].shape, from);
  testing::SetValues(x.blob(), values);
  const std::vector<CpuTensor> out = testing::Forward(c, {x});
  EXPECT_EQ(mshadow::TypeFlagName(out[0].type_flag()), dtype);
  return testing::ToValues(out[0].blob());
}

// float32 <-> float16 through the CPU's packet path: 69 values (whole packets and a tail) that
// round up and down, overflow, or turn subnormal or zero, against the software conversion; and
// the write modes the packet path leaves to the element kernel.
TEST(CastTest, Float16BothWays) {
  Values x, rounded;
  for (int i = 0; i < 69; ++i) {
    const float v = static_cast<float>((i % 2 ? -1 : 1) * (1 + std::ldexp(2 * i + 1, -12)) *
                                       std::ldexp(1.0, (i * 7) % 46 - 28));
    x.push_back(v);
    rounded.push_back(
        mshadow::half::detail::HalfBitsToFloat(mshadow::half::detail::FloatToHalfBits(v)));
  }
  EXPECT_EQ(CastValues(x, mshadow::kFloat32, "float16"), rounded);
  EXPECT_EQ(CastValues(rounded, mshadow::kFloat16, "float32"), rounded);
  // kAddTo and kNullOp, float16 to float32: out + in in float, and out untouched.
  CpuTensor halves(TShape{69}, mshadow::kFloat16);
  testing::SetValues(halves.blob(), rounded);
  const NodeAttrs attrs = ParseAttrs(Op::Get("Cast"), {{"dtype", "float32"}});
  for (const OpReqType req : {kAddTo, kNullOp}) {
    CpuTensor out(TShape{69}, mshadow::kFloat32);
    testing::SetValues(out.blob(), Values(69, 0.75));
    Invoke<mshadow::cpu>(attrs, OpContext(), {halves.blob()}, {req}, {out.blob()});
    Values expected(69, 0.75);
    if (req == kAddTo) {
      for (size_t i = 0; i < expected.size(); ++i)
        expected[i] = 0.75f + static_cast<float>(rounded[i]);
    }
    EXPECT_EQ(testing::ToValues(out.blob()), expected) << req;
  }
}

// Every conversion through streaming stores (the threshold lowered to one byte), on one and
// two threads: lengths around the 2 KiB blocks, saturating and widening pairs, against the
// element kernel's values (the threshold restored); and kAddTo, which does not stream.
TEST(CastTest, LargeOutputsStreamAroundTheCaches) {
  struct Pair {
    int from;
    const char* to;
  };
  const Pair pairs[] = {{mshadow::kFloat64, "float32"},
                        {mshadow::kFloat32, "float64"},
                        {mshadow::kFloat32, "int32"},
                        {mshadow::kInt64, "float64"},
                        {mshadow::kFloat16, "int64"}};
  for (const index_t n : {1, 511, 512, 1027, 9000}) {
    Values x(n);
    for (index_t i = 0; i < n; ++i) x[i] = (i * 7919 % 2003 - 1001) * 0.37 + (i % 5 ? 0 : 3e9);
    for (const Pair& pair : pairs) {
      const Values expected = CastValues(x, pair.from, pair.to);
      mshadow::SetStreamingStoreMinBytes(1);
      for (const int threads : {1, 2}) {
        mshadow::SetNumThreads(threads);
        EXPECT_EQ(CastValues(x, pair.from, pair.to), expected)
            << n << " from " << pair.from << " to " << pair.to << ", " << threads << " threads";
      }
      mshadow::SetNumThreads(0);
      mshadow::SetStreamingStoreMinBytes(0);
    }
  }
  mshadow::SetStreamingStoreMinBytes(1);
  CpuTensor x(TShape{1027}, mshadow::kFloat64), out(TShape{1027}, mshadow::kFloat32);
  testing::SetValues(x.blob(), Values(1027, 0.5));
  testing::SetValues(out.blob(), Values(1027, 0.25));
  Invoke<mshadow::cpu>(ParseAttrs(Op::Get("Cast"), {{"dtype", "float32"}}), OpContext(), {x.blob()},
                       {kAddTo}, {out.blob()});
  mshadow::SetStreamingStoreMinBytes(0);
  EXPECT_EQ(testing::ToValues(out.blob()), Values(1027, 0.75));
}

TEST(CastTest, BoolIsNotZero) {
  const double nan = std::nan("");
  EXPECT_EQ(CastValues({0, 1.5, -2, nan, -0.0, 1e-30}, mshadow::kFloat32, "bool"),
            (Values{0, 1, 1, 1, 0, 1}));
  EXPECT_EQ(CastValues({0, -1, 7}, mshadow::kInt64, "bool"), (Values{0, 1, 1}));
  EXPECT_EQ(CastValues({0, 1, 1}, mshadow::kBool, "float64"), (Values{0, 1, 1}));
  EXPECT_EQ(CastValues({0, 1}, mshadow::kBool, "bfloat16"), (Values{0, 1}));
  EXPECT_EQ(CastValues({0, 1}, mshadow::kBool, "int8"), (Values{0, 1}));
  // Its gradient converts the output gradient back to the input's type, as MXNet.
  const OpCase c{"Cast", {{"dtype", "bool"}}, {InputSpec{TShape{3}}}};
  const std::vector<CpuTensor> grads =
      testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat32), {Values{0, 1, 1}});
  EXPECT_EQ(grads[0].type_flag(), mshadow::kFloat32);
  EXPECT_EQ(testing::ToValues(grads[0].blob()), (Values{0, 1, 1}));
}

// Values from MXNet 1.9.1's CPU Cast to bfloat16 (the low 16 bits of the float dropped).
TEST(CastTest, Bfloat16AsMxnet) {
  const double inf = std::numeric_limits<double>::infinity();
  const Values x{0, 1.5, -2, 1.00390625, 1.01171875, 1.0068359375, 3.4e38, inf, 1e-40};
  const Values expected{
      0, 1.5, -2, 1, 1.0078125, 1, 3.3895313892515355e+38, inf, 9.183549615799121e-41};
  EXPECT_EQ(CastValues(CastValues(x, mshadow::kFloat32, "bfloat16"), mshadow::kBfloat16, "float32"),
            expected);
  EXPECT_TRUE(std::isnan(CastValues({std::nan("")}, mshadow::kFloat64, "bfloat16")[0]));
  // To integers through the same saturating conversion as from float; to float16 exactly.
  EXPECT_EQ(CastValues({1.5, -2.7, 300, 1e30}, mshadow::kBfloat16, "int32"),
            (Values{1, -2, 300, 2147483647}));
  EXPECT_EQ(CastValues({1.5, -2.5, 300}, mshadow::kBfloat16, "float16"), (Values{1.5, -2.5, 300}));
  EXPECT_EQ(CastValues({1.5, -2.5, 300}, mshadow::kFloat16, "bfloat16"), (Values{1.5, -2.5, 300}));
}

TEST(CastTest, OtherOperatorsNameTheTypesTheyTake) {
  CpuTensor x(TShape{3}, mshadow::kBool);
  EXPECT_THAT(testing::ErrorOf([&] { RunCpu(ParseAttrs(Op::Get("relu"), {}), {x.blob()}); }),
              HasSubstr("bool"));
}

// The output types of an operator on inputs of these types.
std::vector<int> OutTypes(const std::string& op, const std::map<std::string, std::string>& kwargs,
                          std::vector<int> in) {
  std::vector<int> out;
  InferTypes(ParseAttrs(Op::Get(op), kwargs), &in, &out);
  return out;
}

// MXNet 1.9.1's types: amp_cast converts float16, bfloat16 and float32 (float64 and integers
// stay); amp_multicast takes every floating-point input to the widest (or narrowest) of them.
TEST(AmpCastTest, TypesAsMxnet) {
  using mshadow::kBfloat16;
  using mshadow::kFloat16;
  using mshadow::kFloat32;
  using mshadow::kFloat64;
  using mshadow::kInt32;
  EXPECT_EQ(OutTypes("amp_cast", {{"dtype", "float16"}}, {kFloat32}), std::vector<int>{kFloat16});
  EXPECT_EQ(OutTypes("amp_cast", {{"dtype", "float32"}}, {kBfloat16}), std::vector<int>{kFloat32});
  EXPECT_EQ(OutTypes("amp_cast", {{"dtype", "float16"}}, {kFloat64}), std::vector<int>{kFloat64});
  EXPECT_EQ(OutTypes("amp_cast", {{"dtype", "float16"}}, {kInt32}), std::vector<int>{kInt32});
  const std::map<std::string, std::string> two{{"num_outputs", "2"}};
  EXPECT_EQ(OutTypes("amp_multicast", two, {kFloat64, kFloat16}),
            (std::vector<int>{kFloat64, kFloat64}));
  EXPECT_EQ(OutTypes("amp_multicast", {{"num_outputs", "2"}, {"cast_narrow", "True"}},
                     {kFloat64, kFloat16}),
            (std::vector<int>{kFloat16, kFloat16}));
  EXPECT_EQ(OutTypes("amp_multicast", two, {kFloat32, kInt32}),
            (std::vector<int>{kFloat32, kInt32}));
  EXPECT_EQ(OutTypes("amp_multicast", {{"num_outputs", "3"}}, {kFloat16, kInt32, kFloat32}),
            (std::vector<int>{kFloat32, kInt32, kFloat32}));
}

TEST(AmpCastTest, ValuesAndGradientsConvertBack) {
  const NodeAttrs cast = ParseAttrs(Op::Get("amp_cast"), {{"dtype", "float16"}});
  const CpuTensor x = testing::TensorOf(mshadow::kFloat32, {1.5, -2.25, 1000.1});
  const std::vector<CpuTensor> y = RunCpu(cast, {x.blob()});
  EXPECT_EQ(y[0].type_flag(), mshadow::kFloat16);
  EXPECT_EQ(testing::ToValues(y[0].blob()), (Values{1.5, -2.25, 1000}));  // float16's nearest
  // Its gradient: float16 back to float32.
  const NodeAttrs back = ParseAttrs(Op::Get("_backward_amp_cast"), {{"dtype", "float16"}});
  const CpuTensor g = testing::TensorOf(mshadow::kFloat16, {3, 4, 0.5});
  CpuTensor dx(TShape{3}, mshadow::kFloat32);
  Invoke<mshadow::cpu>(back, MakeCpuContext(back), {g.blob()}, {kWriteTo}, {dx.blob()});
  EXPECT_EQ(testing::ToValues(dx.blob()), (Values{3, 4, 0.5}));

  const NodeAttrs multi = ParseAttrs(Op::Get("amp_multicast"), {{"num_outputs", "2"}});
  const CpuTensor a = testing::TensorOf(mshadow::kFloat16, {0.25, 8});
  const CpuTensor b = testing::TensorOf(mshadow::kFloat64, {1.0 / 3});
  const std::vector<CpuTensor> both = RunCpu(multi, {a.blob(), b.blob()});
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].type_flag(), mshadow::kFloat64);
  EXPECT_EQ(testing::ToValues(both[0].blob()), (Values{0.25, 8}));
  EXPECT_EQ(testing::ToValues(both[1].blob()), (Values{1.0 / 3}));
  EXPECT_EQ(Op::Get("amp_multicast")->ListInputNames(multi),
            (std::vector<std::string>{"data_0", "data_1"}));
  const testing::OpCase c{"amp_cast", {{"dtype", "float64"}}, {InputSpec{TShape{3, 4}}}};
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

}  // namespace
}  // namespace ops
