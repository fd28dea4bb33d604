#include "mshadow/operators.h"

#include "mshadow/device.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace mshadow {
namespace {

TEST(OpTest, BinaryAndUnaryMaps) {
  EXPECT_EQ(op::plus::Map(2.0f, 3.0f), 5.0f);
  EXPECT_EQ(op::minus::Map(2.0f, 3.0f), -1.0f);
  EXPECT_EQ(op::mul::Map(2.0, 3.0), 6.0);
  EXPECT_EQ(op::div::Map(3.0, 2.0), 1.5);
  EXPECT_EQ(op::right::Map(2, 3), 3);
  EXPECT_EQ(op::identity::Map(7), 7);
}

TEST(SaverTest, EverySaverAndItsBlasCoefficients) {
  float a = 6.0f;
  sv::saveto::Save(a, 2.0f);
  EXPECT_EQ(a, 2.0f);
  sv::plusto::Save(a, 3.0f);
  EXPECT_EQ(a, 5.0f);
  sv::minusto::Save(a, 1.0f);
  EXPECT_EQ(a, 4.0f);
  sv::multo::Save(a, 3.0f);
  EXPECT_EQ(a, 12.0f);
  sv::divto::Save(a, 4.0f);
  EXPECT_EQ(a, 3.0f);
  // dst = kBetaVal * dst + kAlphaBeta * src must agree with Save.
  for (float dst : {1.0f, -2.0f}) {
    float expected = dst;
    sv::minusto::Save(expected, 5.0f);
    EXPECT_EQ(sv::minusto::kBetaVal * dst + sv::minusto::kAlphaBeta * 5.0f, expected);
    expected = dst;
    sv::plusto::Save(expected, 5.0f);
    EXPECT_EQ(sv::plusto::kBetaVal * dst + sv::plusto::kAlphaBeta * 5.0f, expected);
  }
  EXPECT_EQ(sv::saveto::OPType::Map(1.0f, 2.0f), 2.0f);
  EXPECT_EQ(sv::multo::OPType::Map(3.0f, 2.0f), 6.0f);
}

template <typename Reducer, typename DType>
DType ReduceAll(std::initializer_list<DType> values) {
  DType acc;
  Reducer::SetInitValue(acc);
  for (DType v : values) Reducer::Reduce(acc, v);
  return acc;
}

TEST(ReducerTest, SumMaxMin) {
  EXPECT_EQ((ReduceAll<red::sum, float>({1, 2, 3.5f})), 6.5f);
  EXPECT_EQ((ReduceAll<red::maximum, float>({-5, -2, -9})), -2.0f);
  EXPECT_EQ((ReduceAll<red::minimum, int>({4, -7, 3})), -7);
  EXPECT_EQ((ReduceAll<red::maximum, int>({})), std::numeric_limits<int>::lowest());
  EXPECT_TRUE(std::isinf(ReduceAll<red::minimum, double>({})));
  EXPECT_EQ(red::maximum::PartialGrad(3.0f, 3.0f), 1.0f);
  EXPECT_EQ(red::maximum::PartialGrad(3.0f, 2.0f), 0.0f);
  EXPECT_EQ(red::sum::PartialGrad(3.0f, 2.0f), 1.0f);
}

TEST(ReducerTest, NanPropagatesThroughMaxAndMin) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(ReduceAll<red::maximum, float>({1, nan, 2})));
  EXPECT_TRUE(std::isnan(ReduceAll<red::minimum, float>({nan, 1})));
  EXPECT_TRUE(std::isnan(ReduceAll<red::maximum, float>({1, 2, nan})));
}

TEST(DeviceTest, ConstexprTraits) {
  static_assert(cpu::kDevCPU && !gpu::kDevCPU, "device traits");
  const int& mask = cpu::kDevMask;  // must link without an out-of-line definition
  EXPECT_EQ(mask, 1);
  EXPECT_EQ(gpu::kDevMask, 2);
}

}  // namespace
}  // namespace mshadow
