#include "ops/index_type.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace ops {
namespace {

// FirstOutside's answer by the definition: values compared as doubles, one by one.
template <typename IType>
index_t FirstOutsideByDoubles(const std::vector<IType>& values, double low, double high) {
  for (size_t j = 0; j < values.size(); ++j) {
    const double v = static_cast<double>(values[j]);
    if (!(v > low && v < high)) return static_cast<index_t>(j);
  }
  return static_cast<index_t>(values.size());
}

template <typename IType>
index_t FirstOutsideOf(const std::vector<IType>& values, double low, double high) {
  return FirstOutside(values.data(), static_cast<index_t>(values.size()), low, high);
}

TEST(FirstOutsideTest, IntegersAtTheBoundsOfWholeAndFractionalIntervals) {
  const std::vector<int32_t> values = {-1, 0, 3, 4};
  EXPECT_EQ(FirstOutsideOf(values, -2.0, 5.0), 4);  // (-2, 5): all inside
  EXPECT_EQ(FirstOutsideOf(values, -1.0, 5.0), 0);  // -1 is a bound, outside
  EXPECT_EQ(FirstOutsideOf(values, -1.5, 4.0), 3);  // 4 is a bound, outside
  EXPECT_EQ(FirstOutsideOf(values, -1.5, 4.5), 4);
  EXPECT_EQ(FirstOutsideOf(values, 2.5, 3.5), 0);   // only 3 is inside
  EXPECT_EQ(FirstOutsideOf(std::vector<int32_t>{3, 3, 2}, 2.5, 3.5), 2);
}

TEST(FirstOutsideTest, AnIntervalWithoutWholeNumbersHoldsNoInteger) {
  EXPECT_EQ(FirstOutsideOf(std::vector<int64_t>{0, 1}, 0.2, 0.8), 0);
  EXPECT_EQ(FirstOutsideOf(std::vector<int64_t>{0, 1}, 3.0, 1.0), 0);  // inverted
  EXPECT_EQ(FirstOutsideOf(std::vector<int64_t>{}, 0.2, 0.8), 0);      // no values, none outside
}

TEST(FirstOutsideTest, BoundsBeyondTheTypeTakeItsWholeRange) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(FirstOutsideOf(std::vector<int32_t>{kMin, 0, kMax}, -1e12, 1e12), 3);
  EXPECT_EQ(FirstOutsideOf(std::vector<int32_t>{0, kMax}, -1.0, 1e12), 2);
  EXPECT_EQ(FirstOutsideOf(std::vector<int32_t>{0, kMin}, -1.0, 1e12), 1);
  EXPECT_EQ(FirstOutsideOf(std::vector<int32_t>{0}, 1e12, 2e12), 0);    // above the type
  EXPECT_EQ(FirstOutsideOf(std::vector<int32_t>{0}, -2e12, -1e12), 0);  // below it
  constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(FirstOutsideOf(std::vector<int64_t>{kMax64, -5}, -10.0, 1e30), 2);
}

TEST(FirstOutsideTest, FloatsAreComparedAsDoublesAndNaNIsOutside) {
  const float nan = std::nanf("");
  EXPECT_EQ(FirstOutsideOf(std::vector<float>{0.5f, 2.0f, nan}, -1.0, 3.0), 2);
  EXPECT_EQ(FirstOutsideOf(std::vector<double>{-0.5, 2.999}, -1.0, 3.0), 2);
  EXPECT_EQ(FirstOutsideOf(std::vector<double>{-0.5, 3.0}, -1.0, 3.0), 1);
}

// Long runs (the SIMD count, then the search) in every index type and unsigned bytes, one
// value outside at a random place, or none: the same answer as comparing doubles one by one.
template <typename IType>
void ExpectAgreesWithDoubles(std::mt19937* gen) {
  std::uniform_int_distribution<int> inside(10, 19), any(-3, 40), place(0, 1000);
  const std::pair<double, double> intervals[] = {{9.0, 20.0}, {9.5, 19.5}, {-2.0, 41.0}};
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<IType> values(1001);
    for (IType& v : values) v = static_cast<IType>(inside(*gen));
    if (trial % 5 != 0) values[static_cast<size_t>(place(*gen))] = static_cast<IType>(any(*gen));
    for (const auto& [low, high] : intervals) {
      ASSERT_EQ(FirstOutsideOf(values, low, high), FirstOutsideByDoubles(values, low, high))
          << "trial " << trial << " interval (" << low << ", " << high << ")";
    }
  }
}

TEST(FirstOutsideTest, LongRunsAgreeWithComparingDoublesOneByOne) {
  std::mt19937 gen(7);
  ExpectAgreesWithDoubles<int32_t>(&gen);
  ExpectAgreesWithDoubles<int64_t>(&gen);
  ExpectAgreesWithDoubles<uint8_t>(&gen);
  ExpectAgreesWithDoubles<float>(&gen);
  ExpectAgreesWithDoubles<double>(&gen);
}

}  // namespace
}  // namespace ops
