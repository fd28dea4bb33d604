// Deinterleave against splitting one pair at a time: every length from none to several of the
// widest packets (whole packets, a last packet overlapping the one before, fewer pairs than a
// packet), float and double, sources at every element offset within a packet; nothing written
// past the n elements of either output.
#include "ops/deinterleave.h"

#include <vector>

#include "gtest/gtest.h"

namespace ops {
namespace {

template <typename DType>
class DeinterleaveTest : public ::testing::Test {};

using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DeinterleaveTest, Types);

TYPED_TEST(DeinterleaveTest, MatchesPairByPair) {
  using DType = TypeParam;
  constexpr index_t kGuard = 20;  // elements after each output that must keep their value
  const DType untouched = DType(-1);
  for (index_t offset = 0; offset < 16; ++offset) {
    for (index_t n = 0; n <= 70; ++n) {
      std::vector<DType> src(offset + 2 * n);
      for (size_t i = 0; i < src.size(); ++i) src[i] = DType(i + 1);
      std::vector<DType> even(n + kGuard, untouched), odd(n + kGuard, untouched);
      Deinterleave(src.data() + offset, n, even.data(), odd.data());
      for (index_t k = 0; k < n; ++k) {
        ASSERT_EQ(even[k], src[offset + 2 * k]) << "n " << n << " offset " << offset << " k " << k;
        ASSERT_EQ(odd[k], src[offset + 2 * k + 1])
            << "n " << n << " offset " << offset << " k " << k;
      }
      for (index_t k = n; k < n + kGuard; ++k) {
        ASSERT_EQ(even[k], untouched) << "even written past n " << n << " at " << k;
        ASSERT_EQ(odd[k], untouched) << "odd written past n " << n << " at " << k;
      }
    }
  }
}

}  // namespace
}  // namespace ops
