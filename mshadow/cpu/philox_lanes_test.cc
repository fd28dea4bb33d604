// PhiloxLanes against Philox4x32 block by block: counters across 2^32 (the carry into the
// high word) and 2^64 (the wrap), streams with both words set, several keys. Built three
// times (//mshadow:philox_lanes_test, _avx2_test, _scalar_test) so that each of the
// header's paths runs on a machine with AVX-512.
#include "mshadow/cpu/philox_lanes.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace mshadow {
namespace {

TEST(PhiloxLanesTest, EveryWordAsOneBlockAtATime) {
  const std::vector<uint64_t> seeds = {0, 42, 0x0123456789abcdefull, ~uint64_t{0}};
  const std::vector<uint64_t> counters = {0,           1,          31,
                                          0xfffffff0ull, 0xffffffffull, 0x1234567890ull,
                                          ~uint64_t{0} - 20, ~uint64_t{0}};
  const std::vector<uint64_t> streams = {0, 1, 5, 0x100000000ull, 0xdeadbeefcafef00dull};
  int checked = 0;
  for (uint64_t seed : seeds) {
    const PhiloxKey key = PhiloxKeyFromSeed(seed);
    for (uint64_t counter : counters) {
      for (uint64_t stream : streams) {
        PhiloxLaneWords words;
        PhiloxLanes(key, counter, stream, &words);
        for (int j = 0; j < kPhiloxLaneBlocks; ++j) {
          const PhiloxBlock block = Philox4x32(key, counter + static_cast<uint64_t>(j), stream);
          for (int q = 0; q < 4; ++q) {
            ASSERT_EQ(words.w[q][j], block.w[q])
                << "seed " << seed << " counter " << counter << " stream " << stream << " block "
                << j << " word " << q;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 4 * 8 * 5 * kPhiloxLaneBlocks * 4);
}

}  // namespace
}  // namespace mshadow
