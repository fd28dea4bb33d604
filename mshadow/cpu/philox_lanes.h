// mshadow/cpu/philox_lanes.h: Philox4x32-10 blocks of consecutive counters computed together
// in SIMD lanes on the CPU, bit for bit the blocks mshadow/philox.h computes one at a time.
//
//   mshadow::PhiloxLaneWords words;
//   mshadow::PhiloxLanes(key, counter, /*stream=*/0, &words);
//   // words.w[q][j] == mshadow::Philox4x32(key, counter + j).w[q], j < kPhiloxLaneBlocks
//
// One block at a time, a round's two 32 x 32 -> 64-bit products wait on the last round's
// (the samplers' and Dropout's time went mostly to the rounds); across blocks they are
// independent. Each block's words sit in the low halves of 64-bit lanes, where one
// unsigned 32-bit multiply (vpmuludq) gives both halves of a product; what the upper halves
// gather on the way never reaches a low half (the multiplies read low halves only, the
// exclusive ors are bitwise), so nothing masks them. Four independent groups of lanes keep
// the multiplier busy through each product's latency. Without AVX2, one block at a time.
#ifndef MSHADOW_CPU_PHILOX_LANES_H_
#define MSHADOW_CPU_PHILOX_LANES_H_

#include <cstdint>

#include "mshadow/philox.h"
#if defined(__AVX2__)
#include "mshadow/immintrin.h"
#endif

namespace mshadow {

// Blocks a PhiloxLanes call computes.
constexpr int kPhiloxLaneBlocks = 32;

// Word q of block counter + j at w[q][j].
struct PhiloxLaneWords {
  alignas(64) uint32_t w[4][kPhiloxLaneBlocks];
};

namespace philox_detail {

constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

#if defined(__AVX512F__)
struct Lanes512 {
  using V = __m512i;
  static constexpr int kBlocks = 8;  // 64-bit lanes of a vector
  static V Fill(uint64_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }
  static V Counters(uint64_t first) {
    return _mm512_add_epi64(Fill(first), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static V Multiply(V a, V b) { return _mm512_mul_epu32(a, b); }
  static V High(V x) { return _mm512_srli_epi64(x, 32); }
  static V Xor3(V a, V b, V c) { return _mm512_ternarylogic_epi64(a, b, c, 0x96); }
  // The low halves of the lanes, in order, to `to`.
  static void StoreLow(uint32_t* to, V x) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), _mm512_cvtepi64_epi32(x));
  }
};
using Lanes = Lanes512;
#elif defined(__AVX2__)
struct Lanes256 {
  using V = __m256i;
  static constexpr int kBlocks = 4;
  static V Fill(uint64_t x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  static V Counters(uint64_t first) {
    return _mm256_add_epi64(Fill(first), _mm256_setr_epi64x(0, 1, 2, 3));
  }
  static V Multiply(V a, V b) { return _mm256_mul_epu32(a, b); }
  static V High(V x) { return _mm256_srli_epi64(x, 32); }
  static V Xor3(V a, V b, V c) { return _mm256_xor_si256(_mm256_xor_si256(a, b), c); }
  static void StoreLow(uint32_t* to, V x) {
    const __m256i low_halves =
        _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to), _mm256_castsi256_si128(low_halves));
  }
};
using Lanes = Lanes256;
#endif

#if defined(__AVX2__)
// Blocks counter + [first, first + kGroups * L::kBlocks) of `stream`, into out.
template <typename L, int kGroups>
inline void PhiloxGroups(PhiloxKey key, uint64_t counter, uint64_t stream, int first,
                         PhiloxLaneWords* out) {
  using V = typename L::V;
  V c0[kGroups], c1[kGroups], c2[kGroups], c3[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    // The 64-bit counter's low word in the low half, its high word shifted down (the sum
    // wraps at 2^64, as the scalar form's).
    c0[g] = L::Counters(counter + static_cast<uint64_t>(first + g * L::kBlocks));
    c1[g] = L::High(c0[g]);
    c2[g] = L::Fill(static_cast<uint32_t>(stream));
    c3[g] = L::Fill(stream >> 32);
  }
  const V mul0 = L::Fill(kMul0), mul1 = L::Fill(kMul1);
  uint32_t k0 = key.k0, k1 = key.k1;
  for (int round = 0; round < 10; ++round) {
    const V key0 = L::Fill(k0), key1 = L::Fill(k1);
    for (int g = 0; g < kGroups; ++g) {
      const V p0 = L::Multiply(c0[g], mul0), p1 = L::Multiply(c2[g], mul1);
      c0[g] = L::Xor3(L::High(p1), c1[g], key0);
      c1[g] = p1;
      c2[g] = L::Xor3(L::High(p0), c3[g], key1);
      c3[g] = p0;
    }
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  for (int g = 0; g < kGroups; ++g) {
    uint32_t* const at = &out->w[0][first + g * L::kBlocks];
    L::StoreLow(at, c0[g]);
    L::StoreLow(at + kPhiloxLaneBlocks, c1[g]);
    L::StoreLow(at + 2 * kPhiloxLaneBlocks, c2[g]);
    L::StoreLow(at + 3 * kPhiloxLaneBlocks, c3[g]);
  }
}
#endif

}  // namespace philox_detail

// Blocks counter, counter + 1, ..., counter + kPhiloxLaneBlocks - 1 of `stream` under `key`.
inline void PhiloxLanes(PhiloxKey key, uint64_t counter, uint64_t stream, PhiloxLaneWords* out) {
#if defined(__AVX2__)
  using L = philox_detail::Lanes;
  // Four groups at a time: 16 state vectors and the constants fit AVX-512's 32 registers;
  // AVX2's 16 take two groups at a time.
  constexpr int kGroups = sizeof(typename L::V) == 64 ? 4 : 2;
  for (int first = 0; first < kPhiloxLaneBlocks; first += kGroups * L::kBlocks) {
    philox_detail::PhiloxGroups<L, kGroups>(key, counter, stream, first, out);
  }
#else
  for (int j = 0; j < kPhiloxLaneBlocks; ++j) {
    const PhiloxBlock block = Philox4x32(key, counter + static_cast<uint64_t>(j), stream);
    for (int q = 0; q < 4; ++q) out->w[q][j] = block.w[q];
  }
#endif
}

}  // namespace mshadow

#endif  // MSHADOW_CPU_PHILOX_LANES_H_
