#include "mshadow/bfloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace mshadow {
namespace bfloat {
namespace {

TEST(BfloatTest, EveryBfloatValueSurvivesFloatAndBack) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const bf16_t b = bf16_t::Binary(static_cast<uint16_t>(bits));
    const float f = static_cast<float>(b);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(static_cast<float>(bf16_t(f))));
      continue;
    }
    EXPECT_EQ(bf16_t(f).bf16_, b.bf16_) << "bits " << bits;
  }
}

// Values from MXNet 1.9.1's CPU Cast to bfloat16 and back to float32.
TEST(BfloatTest, DropsTheLowBitsAsMxnet) {
  EXPECT_EQ(static_cast<float>(bf16_t(1.5f)), 1.5f);
  EXPECT_EQ(static_cast<float>(bf16_t(1.0f + std::ldexp(1.0f, -8))), 1.0f);
  EXPECT_EQ(static_cast<float>(bf16_t(1.0f + 3 * std::ldexp(1.0f, -8))), 1.0078125f);
  EXPECT_EQ(static_cast<float>(bf16_t(1.005859375f)), 1.0f);
  EXPECT_EQ(static_cast<float>(bf16_t(3.4e38f)), 3.3895313892515355e+38f);
  EXPECT_EQ(static_cast<float>(bf16_t(-2.0)), -2.0f);  // from double, through float
  EXPECT_TRUE(std::signbit(static_cast<float>(bf16_t(-0.0f))));
}

TEST(BfloatTest, InfinityNanAndSubnormals) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(static_cast<float>(bf16_t(inf)), inf);
  EXPECT_EQ(static_cast<float>(bf16_t(-inf)), -inf);
  EXPECT_TRUE(std::isnan(static_cast<float>(bf16_t(std::nanf("")))));
  uint32_t low_payload_nan = 0x7f800001u;  // truncating this alone would give infinity
  float nan_value;
  std::memcpy(&nan_value, &low_payload_nan, sizeof(nan_value));
  EXPECT_TRUE(std::isnan(static_cast<float>(bf16_t(nan_value))));
  EXPECT_EQ(static_cast<float>(bf16_t(1e-40f)), 9.183549615799121e-41f);
}

TEST(BfloatTest, Arithmetic) {
  bf16_t a(1.5f), b(2.0f);
  EXPECT_EQ(static_cast<float>(a + b), 3.5f);
  EXPECT_EQ(static_cast<float>(a - b), -0.5f);
  EXPECT_EQ(static_cast<float>(a * b), 3.0f);
  EXPECT_EQ(static_cast<float>(a / b), 0.75f);
  EXPECT_EQ(static_cast<float>(-a), -1.5f);
  a += b;
  EXPECT_EQ(static_cast<float>(a), 3.5f);
  EXPECT_TRUE(bf16_t(1.0f) < bf16_t(2.0f));
}

}  // namespace
}  // namespace bfloat
}  // namespace mshadow
