// multi_sum_sq and multi_lars: sums of squares in every floating-point type, mixed, across
// several parts and a tail, the same on 1 and 2 threads; LARS's ratio and its fallback to the
// plain rate where a norm is not positive; the types and counts refused.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

// multi_sum_sq over these tensors, as kReq says over `before`.
Values SumSq(const std::vector<CpuTensor>& arrays, OpReqType req = kWriteTo, double before = 0) {
  const NodeAttrs attrs =
      ParseAttrs(Op::Get("multi_sum_sq"), {{"num_arrays", std::to_string(arrays.size())}});
  CpuTensor out = testing::TensorOf(mshadow::kFloat32, Values(arrays.size(), before));
  Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs), Blobs(arrays), {req}, {out.blob()});
  return testing::ToValues(out.blob());
}

Values Wave(size_t n, double scale) {
  Values x(n);
  for (size_t i = 0; i < n; ++i) x[i] = std::sin(0.37 * static_cast<double>(i)) * scale;
  return x;
}

double SquaresOf(const Values& x) {
  double sum = 0;
  for (const double v : x) sum += v * v;
  return sum;
}

TEST(MultiSumSqTest, EveryTypeMixedAcrossPartsAndThreads) {
  // 40000 float32 elements: three parts of 16384 and a tail; the 16-bit values are exact.
  const Values a = Wave(40000, 3), b = Wave(100003, 0.5), c = Wave(1000, 2), d = Wave(77, 1);
  std::vector<CpuTensor> arrays = {
      testing::TensorOf(mshadow::kFloat32, a), testing::TensorOf(mshadow::kFloat64, b),
      testing::TensorOf(mshadow::kFloat16, c), testing::TensorOf(mshadow::kBfloat16, d)};
  std::vector<Values> stored;
  for (const CpuTensor& t : arrays) stored.push_back(testing::ToValues(t.blob()));
  mshadow::SetNumThreads(1);
  const Values one = SumSq(arrays);
  mshadow::SetNumThreads(2);
  const Values two = SumSq(arrays);
  mshadow::SetNumThreads(1);
  EXPECT_EQ(one, two);  // the same parts, added in the same order
  ASSERT_EQ(one.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const double expected = SquaresOf(stored[i]);
    EXPECT_NEAR(one[i], expected, 2e-6 * expected) << i;
  }
}

TEST(MultiSumSqTest, WriteModesAndEdges) {
  const std::vector<CpuTensor> arrays = {testing::TensorOf(mshadow::kFloat32, {3, 4}),
                                         testing::TensorOf(mshadow::kFloat64, {-2})};
  EXPECT_EQ(SumSq(arrays, kAddTo, 1.5), (Values{26.5, 5.5}));
  EXPECT_EQ(SumSq(arrays, kNullOp, 1.5), (Values{1.5, 1.5}));
  // An empty array sums to 0; a NaN or an infinity stays in its array's sum only.
  const std::vector<CpuTensor> edges = {
      CpuTensor(TShape{0}, mshadow::kFloat32),
      testing::TensorOf(mshadow::kFloat32, {1, std::numeric_limits<double>::quiet_NaN()}),
      testing::TensorOf(mshadow::kFloat32, {std::numeric_limits<double>::infinity()}),
      testing::TensorOf(mshadow::kFloat32, {2})};
  const Values sums = SumSq(edges);
  EXPECT_EQ(sums[0], 0.0);
  EXPECT_TRUE(std::isnan(sums[1]));
  EXPECT_EQ(sums[2], std::numeric_limits<double>::infinity());
  EXPECT_EQ(sums[3], 4.0);
}

TEST(MultiSumSqTest, RefusedInputsAreNamed) {
  const OpCase ints{"multi_sum_sq", {{"num_arrays", "1"}}, {InputSpec(TShape{3})}};
  EXPECT_THAT(
      testing::ErrorOf([&] { testing::Forward(ints, testing::MakeInputs(ints, mshadow::kInt32)); }),
      HasSubstr("data type int32 is not supported"));
  EXPECT_EQ(testing::InferOutputShapes(OpCase{
                "multi_sum_sq",
                {{"num_arrays", "3"}},
                {InputSpec(TShape{2, 3}), InputSpec(TShape{4}), InputSpec(TShape{1, 1, 5})}})[0],
            TShape{3});
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("multi_sum_sq"), {{"num_arrays", "0"}});
              }),
              HasSubstr("num_arrays"));
  const NodeAttrs attrs = ParseAttrs(Op::Get("multi_sum_sq"), {{"num_arrays", "2"}});
  const CpuTensor x = testing::TensorOf(mshadow::kFloat32, {1, 2});
  CpuTensor out(TShape{2}, mshadow::kFloat32);
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs), {x.blob()}, {kWriteTo},
                                     {out.blob()});
              }),
              HasSubstr("2"));
}

// MXNet 1.9.1's values: lrs (0.1, 0.2, 0.3, 0.4), sums of squares of weights (4, 0, 9, 4) and
// gradients (1, 1, 0, 16), wds (0.01, 0.02, 0.03, 0.5), eta 0.001, eps 1e-8, rescale_grad 0.5:
// 3.8461541e-04, 0.2, 0.3, 2.6666667e-04 (a zero norm keeps the plain rate).
TEST(MultiLARSTest, TrustRatioAndPlainRateWhereANormIsNotPositive) {
  for (const int type : {mshadow::kFloat32, mshadow::kFloat64}) {
    SCOPED_TRACE(type);
    const NodeAttrs attrs = ParseAttrs(
        Op::Get("multi_lars"), {{"eta", "0.001"}, {"eps", "1e-8"}, {"rescale_grad", "0.5"}});
    const std::vector<CpuTensor> in = {
        testing::TensorOf(type, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6}),
        testing::TensorOf(type, {4, 0, 9, 4, std::numeric_limits<double>::quiet_NaN(), -1}),
        testing::TensorOf(type, {1, 1, 0, 16, 1, 1}),
        testing::TensorOf(type, {0.01, 0.02, 0.03, 0.5, 0, 0})};
    const Values lr = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
    const std::vector<CpuTensor> out = RunCpu(attrs, Blobs(in));
    const Values got = testing::ToValues(out[0].blob());
    const double rtol = 1e-6;  // eta, eps and rescale_grad are floats, and so is float32
    const double first = 0.1 * 0.001 * 2 / (0.5 + 0.01 * 2 + 1e-8);
    const double last = 0.4 * 0.001 * 2 / (2 + 0.5 * 2 + 1e-8);
    EXPECT_NEAR(got[0], first, rtol * first);
    EXPECT_NEAR(got[3], last, rtol * last);
    for (const int plain : {1, 2, 4, 5}) EXPECT_NEAR(got[plain], lr[plain], rtol) << plain;
  }
}

TEST(MultiLARSTest, ShapesTypesAndParameters) {
  testing::CheckWriteModes(OpCase{"multi_lars",
                                  {{"eta", "0.01"}, {"eps", "1e-6"}},
                                  {InputSpec(TShape{5}), InputSpec(TShape{5}, 0.5, 2),
                                   InputSpec(TShape{5}, 0.5, 2), InputSpec(TShape{5}, 0, 0.1)}});
  const std::string shape = testing::ErrorOf([] {
    testing::InferOutputShapes(OpCase{
        "multi_lars",
        {{"eta", "0.01"}, {"eps", "1e-6"}},
        {InputSpec(TShape{4}), InputSpec(TShape{3}), InputSpec(TShape{4}), InputSpec(TShape{4})}});
  });
  EXPECT_THAT(shape, HasSubstr("(3,)"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("multi_lars"), {{"eta", "0.1"}});
              }),
              HasSubstr("Required parameter eps"));
}

}  // namespace
}  // namespace ops
