#include "mshadow/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace mshadow {
namespace half {
namespace {

TEST(HalfTest, ExactValuesRoundTrip) {
  for (float v : {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f /*min normal*/,
                  5.9604645e-08f /*min subnormal*/, 1024.0f, 0.333251953125f}) {
    EXPECT_EQ(static_cast<float>(half_t(v)), v) << v;
  }
}

TEST(HalfTest, EveryHalfValueSurvivesFloatAndBack) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    half_t h = half_t::Binary(static_cast<uint16_t>(bits));
    float f = static_cast<float>(h);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(static_cast<float>(half_t(f))));
      continue;
    }
    EXPECT_EQ(half_t(f).half_, h.half_) << "bits " << bits;
  }
}

TEST(HalfTest, RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1).
  EXPECT_EQ(static_cast<float>(half_t(1.0f + std::ldexp(1.0f, -11))), 1.0f);
  // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9: ties to even (1 + 2^-9).
  EXPECT_EQ(static_cast<float>(half_t(1.0f + 3 * std::ldexp(1.0f, -11))),
            1.0f + std::ldexp(1.0f, -9));
}

TEST(HalfTest, OverflowInfinityAndNan) {
  EXPECT_TRUE(std::isinf(static_cast<float>(half_t(65520.0f))));
  EXPECT_EQ(static_cast<float>(half_t(65519.0f)), 65504.0f);
  EXPECT_TRUE(std::isinf(static_cast<float>(half_t(std::numeric_limits<float>::infinity()))));
  EXPECT_TRUE(std::isnan(static_cast<float>(half_t(std::nanf("")))));
  EXPECT_EQ(static_cast<float>(half_t(1e-10f)), 0.0f);
  EXPECT_TRUE(std::signbit(static_cast<float>(half_t(-1e-10f))));
}

// The conversions the build uses (F16C's where it has them, scalar and a packet at a time)
// against the software ones, bit for bit: every half value to float, and every 61st float
// bit pattern (70M, every binade and rounding case) to half. NaNs only need to stay NaNs of
// the same sign.
TEST(HalfTest, BulkAndScalarConversionsMatchTheSoftwareOnes) {
  std::vector<half_t> halves(1 << 16);
  for (uint32_t bits = 0; bits < halves.size(); ++bits)
    halves[bits] = half_t::Binary(static_cast<uint16_t>(bits));
  std::vector<float> floats(halves.size() + 3);  // a tail after the whole packets
  HalfToFloat(halves.data(), floats.data(), halves.size());
  for (uint32_t bits = 0; bits < halves.size(); ++bits) {
    const float expected = detail::HalfBitsToFloat(static_cast<uint16_t>(bits));
    for (const float f : {floats[bits], static_cast<float>(halves[bits])}) {
      if (std::isnan(expected)) {
        ASSERT_TRUE(std::isnan(f) && std::signbit(f) == std::signbit(expected)) << bits;
      } else {
        ASSERT_EQ(detail::FloatBits(f), detail::FloatBits(expected)) << "half bits " << bits;
      }
    }
  }
  std::vector<float> sample;
  for (uint64_t bits = 0; bits <= 0xffffffffull; bits += 61) {
    sample.push_back(detail::BitsToFloat(static_cast<uint32_t>(bits)));
  }
  sample.push_back(65519.996f);  // the largest float that rounds to 65504, and the first to inf
  sample.push_back(65520.0f);
  std::vector<half_t> rounded(sample.size());
  FloatToHalf(sample.data(), rounded.data(), sample.size());
  for (size_t i = 0; i < sample.size(); ++i) {
    const uint16_t expected = detail::FloatToHalfBits(sample[i]);
    for (const uint16_t h : {rounded[i].half_, half_t(sample[i]).half_}) {
      if (std::isnan(sample[i])) {
        ASSERT_EQ(h & 0xfc00u, expected & 0xfc00u) << sample[i];  // sign and all-ones exponent
        ASSERT_NE(h & 0x3ffu, 0u) << sample[i];
      } else {
        ASSERT_EQ(h, expected) << sample[i];
      }
    }
  }
}

TEST(HalfTest, Arithmetic) {
  half_t a(1.5f), b(2.0f);
  EXPECT_EQ(static_cast<float>(a + b), 3.5f);
  EXPECT_EQ(static_cast<float>(a - b), -0.5f);
  EXPECT_EQ(static_cast<float>(a * b), 3.0f);
  EXPECT_EQ(static_cast<float>(a / b), 0.75f);
  EXPECT_EQ(static_cast<float>(-a), -1.5f);
  a += b;
  EXPECT_EQ(static_cast<float>(a), 3.5f);
  EXPECT_TRUE(half_t(1.0f) < half_t(2.0f));
}

}  // namespace
}  // namespace half
}  // namespace mshadow
