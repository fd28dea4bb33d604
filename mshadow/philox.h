// mshadow/philox.h: the Philox4x32-10 counter-based random number generator (Salmon et al.,
// "Parallel random numbers: as easy as 1, 2, 3", SC'11), the one cuRAND and most deep
// learning frameworks use.
//
//   const mshadow::PhiloxKey key = mshadow::PhiloxKeyFromSeed(42);
//   const mshadow::PhiloxBlock bits = mshadow::Philox4x32(key, /*counter=*/i);   // 4 words
//
// Counter-based: block i is a pure function of (key, i), so any thread, on any device, can
// produce any part of a sequence, and results never depend on how the work was split.
#ifndef MSHADOW_PHILOX_H_
#define MSHADOW_PHILOX_H_

#include <cstdint>

#include "mshadow/macros.h"

namespace mshadow {

struct PhiloxKey {
  uint32_t k0, k1;
};

struct PhiloxBlock {
  uint32_t w[4];
};

MSHADOW_XINLINE PhiloxKey PhiloxKeyFromSeed(uint64_t seed) {
  return PhiloxKey{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
}

// The 4 words of block `counter` of the stream `stream` under `key`.
MSHADOW_XINLINE PhiloxBlock Philox4x32(PhiloxKey key, uint64_t counter, uint64_t stream = 0) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32);
  uint32_t c2 = static_cast<uint32_t>(stream), c3 = static_cast<uint32_t>(stream >> 32);
  uint32_t k0 = key.k0, k1 = key.k1;
#pragma GCC unroll 10
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kMul0) * c0;
    const uint64_t p1 = static_cast<uint64_t>(kMul1) * c2;
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return PhiloxBlock{{c0, c1, c2, c3}};
}

// A float in [0, 1) from the top 24 bits of a word; a double in [0, 1) from 53 bits of two.
MSHADOW_XINLINE float UnitFloat(uint32_t word) {
  return static_cast<float>(word >> 8) * (1.0f / 16777216.0f);
}
MSHADOW_XINLINE double UnitDouble(uint32_t high, uint32_t low) {
  const uint64_t bits = (static_cast<uint64_t>(high) << 21) ^ (low >> 11);
  return static_cast<double>(bits & ((uint64_t{1} << 53) - 1)) * (1.0 / 9007199254740992.0);
}

}  // namespace mshadow

#endif  // MSHADOW_PHILOX_H_
