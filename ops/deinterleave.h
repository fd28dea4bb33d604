// ops/deinterleave.h: a run of element pairs split into its even and odd elements, a packet of
// each at a time (a stride-2 layer's input rows split by column residue, Winograd's patches
// split by parity).
//
//   Deinterleave(src, n, even, odd);  // even[k] = src[2k], odd[k] = src[2k + 1], k in [0, n)
//
// Explicit shuffles: GCC vectorizes the plain loop with each source packet loaded twice, and
// that loop had taken twice as long (a stride-2 first layer ran 6-8% slower with it;
// docs/benchmarks.md, seventy-seventh session).
#ifndef OPS_DEINTERLEAVE_H_
#define OPS_DEINTERLEAVE_H_

#include "mshadow/base.h"

#if defined(__AVX2__) && !defined(__CUDACC__)
#include "mshadow/immintrin.h"
#define OPS_DEINTERLEAVE_AVX2 1
#else
#define OPS_DEINTERLEAVE_AVX2 0
#endif
#if defined(__AVX512F__) && !defined(__CUDACC__)
#define OPS_DEINTERLEAVE_AVX512 1
#else
#define OPS_DEINTERLEAVE_AVX512 0
#endif

namespace ops {

using mshadow::index_t;

namespace deinterleave {

// Split(src, even, odd): kLanes pairs, src[0, 2 * kLanes), into a packet of each.
template <typename DType, int kBits>
struct PairPackets {
  static constexpr bool kAvailable = false;
};

#if OPS_DEINTERLEAVE_AVX512
template <>
struct PairPackets<float, 512> {
  static constexpr bool kAvailable = true;
  static constexpr index_t kLanes = 16;
  static void Split(const float* src, float* even, float* odd) {
    const __m512 a = _mm512_loadu_ps(src), b = _mm512_loadu_ps(src + kLanes);
    const __m512i evens =
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    _mm512_storeu_ps(even, _mm512_permutex2var_ps(a, evens, b));
    // Odd elements: one more than each even index.
    _mm512_storeu_ps(odd, _mm512_permutex2var_ps(
                              a, _mm512_add_epi32(evens, _mm512_set1_epi32(1)), b));
  }
};

template <>
struct PairPackets<double, 512> {
  static constexpr bool kAvailable = true;
  static constexpr index_t kLanes = 8;
  static void Split(const double* src, double* even, double* odd) {
    const __m512d a = _mm512_loadu_pd(src), b = _mm512_loadu_pd(src + kLanes);
    const __m512i evens = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
    _mm512_storeu_pd(even, _mm512_permutex2var_pd(a, evens, b));
    _mm512_storeu_pd(odd, _mm512_permutex2var_pd(
                              a, _mm512_add_epi64(evens, _mm512_set1_epi64(1)), b));
  }
};
#endif  // OPS_DEINTERLEAVE_AVX512

#if OPS_DEINTERLEAVE_AVX2
// Within each 128-bit half the shuffles gather the pairs' elements; permuting the halves'
// 64-bit quarters puts them in order.
template <>
struct PairPackets<float, 256> {
  static constexpr bool kAvailable = true;
  static constexpr index_t kLanes = 8;
  static void Split(const float* src, float* even, float* odd) {
    const __m256 a = _mm256_loadu_ps(src), b = _mm256_loadu_ps(src + kLanes);
    const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
    const __m256 o = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
    _mm256_storeu_ps(even, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8)));
    _mm256_storeu_ps(odd, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), 0xD8)));
  }
};

template <>
struct PairPackets<double, 256> {
  static constexpr bool kAvailable = true;
  static constexpr index_t kLanes = 4;
  static void Split(const double* src, double* even, double* odd) {
    const __m256d a = _mm256_loadu_pd(src), b = _mm256_loadu_pd(src + kLanes);
    _mm256_storeu_pd(even, _mm256_permute4x64_pd(_mm256_unpacklo_pd(a, b), 0xD8));
    _mm256_storeu_pd(odd, _mm256_permute4x64_pd(_mm256_unpackhi_pd(a, b), 0xD8));
  }
};
#endif  // OPS_DEINTERLEAVE_AVX2

// Deinterleave by Packets' packets, n >= Packets::kLanes: the last packet overlapping the one
// before where n is not whole packets (it writes the same values again).
template <typename Packets, typename DType>
void ByPackets(const DType* src, index_t n, DType* even, DType* odd) {
  constexpr index_t kLanes = Packets::kLanes;
  index_t k = 0;
  for (; k + kLanes <= n; k += kLanes) Packets::Split(src + 2 * k, even + k, odd + k);
  if (k < n) Packets::Split(src + 2 * (n - kLanes), even + n - kLanes, odd + n - kLanes);
}

}  // namespace deinterleave

// even[k] = src[2k] and odd[k] = src[2k + 1] for k in [0, n): by the widest packets of DType
// the build has that n fills, else one pair at a time. src must not overlap even or odd.
template <typename DType>
void Deinterleave(const DType* src, index_t n, DType* even, DType* odd) {
  using Wide = deinterleave::PairPackets<DType, 512>;
  using Narrow = deinterleave::PairPackets<DType, 256>;
  if constexpr (Wide::kAvailable) {
    if (n >= Wide::kLanes) return deinterleave::ByPackets<Wide>(src, n, even, odd);
  }
  if constexpr (Narrow::kAvailable) {
    if (n >= Narrow::kLanes) return deinterleave::ByPackets<Narrow>(src, n, even, odd);
  }
  for (index_t k = 0; k < n; ++k) {
    even[k] = src[2 * k];
    odd[k] = src[2 * k + 1];
  }
}

}  // namespace ops

#endif  // OPS_DEINTERLEAVE_H_
