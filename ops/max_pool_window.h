// ops/max_pool_window.h: one output row of 2-D max pooling with its argmax, each output's
// whole window in registers: a packet of outputs loads its window's taps straight from the
// input rows (stride-2 taps as the even and odd lanes of a pair of loads; columns the padding
// cuts masked out), keeps the maximum and the plane offset of its first maximum in row-major
// order, and stores both once. The by-axis passes of ops/pooling-inl.h write and reread every
// tap's partial maxima and offsets; its CPU max pooling runs this instead where Available
// (docs/benchmarks.md, eighteenth session, has the two side by side).
//
//   if (max_window::Available<float>(stride, kernel))
//     max_window::Row(plane, width, rows.begin, rows.end, stride, pad, kernel, out_width, y,
//                     argmax);
//
// AVX-512 (F only) for float and double; elsewhere nothing is Available.
#ifndef OPS_MAX_POOL_WINDOW_H_
#define OPS_MAX_POOL_WINDOW_H_

#include <algorithm>
#include <cstdint>
#include <limits>

#include "mshadow/base.h"

#if defined(__AVX512F__) && !defined(__CUDACC__)
#include "mshadow/immintrin.h"
#define OPS_MAX_POOL_WINDOW_AVX512 1
#else
#define OPS_MAX_POOL_WINDOW_AVX512 0
#endif

namespace ops {
namespace pooling {
namespace max_window {

using mshadow::index_t;

// The widest window along width the kernel takes (its taps' load masks are kept per packet).
constexpr index_t kMaxKernel = 16;

// A packet of outputs' values, loaded under a mask of elements (bit j: p[j]; the others read
// as the lowest value, and may lie outside the buffer: masked lanes are not accessed),
// compared and selected. Specialized where the arch has masked loads.
template <typename DType>
struct Lanes {
  static constexpr bool kAvailable = false;
};

#if OPS_MAX_POOL_WINDOW_AVX512
template <>
struct Lanes<float> {
  static constexpr bool kAvailable = true;
  static constexpr index_t kSize = 16;
  using Value = __m512;
  static Value Lowest() { return _mm512_set1_ps(std::numeric_limits<float>::lowest()); }
  static Value Load(const float* p, uint32_t mask) {
    return _mm512_mask_loadu_ps(Lowest(), static_cast<__mmask16>(mask), p);
  }
  // The even (odd) elements of a then b: lane l is element 2l (2l + 1) of the pair.
  static Value Even(Value a, Value b) {
    return _mm512_permutex2var_ps(
        a, _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), b);
  }
  static Value Odd(Value a, Value b) {
    return _mm512_permutex2var_ps(
        a, _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), b);
  }
  static Value Fill(float v) { return _mm512_set1_ps(v); }
  static __mmask16 Greater(Value a, Value b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
  static __mmask16 Equal(Value a, Value b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
  static Value Select(__mmask16 m, Value if_true, Value if_false) {
    return _mm512_mask_mov_ps(if_false, m, if_true);
  }
  static void Store(float* p, uint32_t mask, Value v) {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>(mask), v);
  }
};

template <>
struct Lanes<double> {
  static constexpr bool kAvailable = true;
  static constexpr index_t kSize = 8;
  using Value = __m512d;
  static Value Lowest() { return _mm512_set1_pd(std::numeric_limits<double>::lowest()); }
  static Value Load(const double* p, uint32_t mask) {
    return _mm512_mask_loadu_pd(Lowest(), static_cast<__mmask8>(mask), p);
  }
  static Value Even(Value a, Value b) {
    return _mm512_permutex2var_pd(a, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), b);
  }
  static Value Odd(Value a, Value b) {
    return _mm512_permutex2var_pd(a, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), b);
  }
  static Value Fill(double v) { return _mm512_set1_pd(v); }
  static __mmask8 Greater(Value a, Value b) { return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ); }
  static __mmask8 Equal(Value a, Value b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
  static Value Select(__mmask8 m, Value if_true, Value if_false) {
    return _mm512_mask_mov_pd(if_false, m, if_true);
  }
  static void Store(double* p, uint32_t mask, Value v) {
    _mm512_mask_storeu_pd(p, static_cast<__mmask8>(mask), v);
  }
};
#endif  // OPS_MAX_POOL_WINDOW_AVX512

// The offset of the first element of p[0, n) equal to m, which p holds: a packet at a time
// where the arch has the lanes (global max pooling's argmax; the last packet's load masked to
// the n elements).
template <typename DType>
index_t FirstEqual(const DType* p, index_t n, DType m) {
  if constexpr (Lanes<DType>::kAvailable) {
    using L = Lanes<DType>;
    const auto target = L::Fill(m);
    for (index_t i = 0; i < n; i += L::kSize) {
      const index_t left = n - i;
      const uint32_t load =
          left >= L::kSize ? (uint32_t{1} << L::kSize) - 1 : (uint32_t{1} << left) - 1;
      const uint32_t hits = L::Equal(L::Load(p + i, load), target) & load;
      if (hits != 0) return i + __builtin_ctz(hits);
    }
  }
  index_t i = 0;
  while (!(p[i] == m)) ++i;
  return i;
}

// Whether Row runs for this element type, stride and kernel width.
template <typename DType>
constexpr bool Available(index_t stride, index_t kernel) {
  return Lanes<DType>::kAvailable && (stride == 1 || stride == 2) && kernel <= kMaxKernel;
}

// Bit j set for j in [0, count) where column first + j lies in [0, width).
inline uint32_t ColumnsInside(index_t first, index_t count, index_t width) {
  const index_t lo = std::max(index_t{0}, -first), hi = std::min(count, width - first);
  if (hi <= lo) return 0;
  return static_cast<uint32_t>(((uint64_t{1} << hi) - 1) & ~((uint64_t{1} << lo) - 1));
}

#if OPS_MAX_POOL_WINDOW_AVX512
// One output row of out_width outputs: y[o] = the maximum over input rows [row_begin, row_end)
// (row r at plane + r * width) and columns [o * kStride - pad, + kernel) cut to [0, width);
// argmax[o] = the plane offset of its first maximum in row-major order, or of the window's
// first element where nothing exceeds the lowest finite value (NaN is skipped), or -1 for an
// empty window: as ops/pooling-inl.h's PoolWindow.
template <index_t kStride, typename DType>
void RowOfStride(const DType* plane, index_t width, index_t row_begin, index_t row_end, index_t pad,
                 index_t kernel, index_t out_width, DType* y, int32_t* argmax) {
  using L = Lanes<DType>;
  const __m512i lane_step =
      _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm512_set1_epi32(static_cast<int32_t>(kStride)));
  auto all = [](index_t n) { return static_cast<uint32_t>((uint64_t{1} << n) - 1); };
  uint32_t inside[kMaxKernel];  // per tap (stride 2: per pair of taps), the elements to load
  for (index_t o = 0; o < out_width; o += L::kSize) {
    const index_t n = std::min(L::kSize, out_width - o);
    const index_t column = o * kStride - pad;  // lane 0's first column
    for (index_t k = 0; k < kernel; k += kStride) {
      inside[k] = ColumnsInside(column + k, kStride * n, width);
    }
    // Each lane's window along width, and where its first maximum starts: its first element.
    const __m512i start =
        _mm512_add_epi32(_mm512_set1_epi32(static_cast<int32_t>(column)), lane_step);
    const __m512i first = _mm512_max_epi32(start, _mm512_setzero_si512());
    const __m512i stop =
        _mm512_min_epi32(_mm512_add_epi32(start, _mm512_set1_epi32(static_cast<int32_t>(kernel))),
                         _mm512_set1_epi32(static_cast<int32_t>(width)));
    const __mmask16 empty =
        row_begin >= row_end ? __mmask16(0xFFFF) : _mm512_cmpge_epi32_mask(first, stop);
    __m512i where = _mm512_mask_mov_epi32(
        _mm512_add_epi32(_mm512_set1_epi32(static_cast<int32_t>(row_begin * width)), first), empty,
        _mm512_set1_epi32(-1));
    typename L::Value best = L::Lowest();
    for (index_t r = row_begin; r < row_end; ++r) {
      // The row's own maximum first (its chain of compares does not wait on the rows before),
      // then taken where it exceeds theirs: a row's first maximum is the window's only if
      // no earlier row has a value as large.
      const DType* row = plane + r * width + column;
      const __m512i row_start =
          _mm512_add_epi32(_mm512_set1_epi32(static_cast<int32_t>(r * width + column)), lane_step);
      typename L::Value row_best = L::Lowest();
      __m512i row_where = row_start;
      auto take = [&](typename L::Value v, index_t k) {
        const auto greater = L::Greater(v, row_best);
        row_best = L::Select(greater, v, row_best);
        row_where = _mm512_mask_mov_epi32(
            row_where, greater,
            _mm512_add_epi32(row_start, _mm512_set1_epi32(static_cast<int32_t>(k))));
      };
      if constexpr (kStride == 1) {
        for (index_t k = 0; k < kernel; ++k) take(L::Load(row + k, inside[k]), k);
      } else {  // taps k and k + 1: the even and odd elements of one pair of loads
        for (index_t k = 0; k < kernel; k += 2) {
          const typename L::Value a = L::Load(row + k, inside[k]);
          const typename L::Value b = L::Load(row + k + L::kSize, inside[k] >> L::kSize);
          take(L::Even(a, b), k);
          if (k + 1 < kernel) take(L::Odd(a, b), k + 1);
        }
      }
      const auto greater = L::Greater(row_best, best);
      best = L::Select(greater, row_best, best);
      where = _mm512_mask_mov_epi32(where, greater, row_where);
    }
    L::Store(y + o, all(n), best);
    _mm512_mask_storeu_epi32(argmax + o, static_cast<__mmask16>(all(n)), where);
  }
}
#endif  // OPS_MAX_POOL_WINDOW_AVX512

// RowOfStride for the run-time stride; only where Available<DType>(stride, kernel).
template <typename DType>
void Row(const DType* plane, index_t width, index_t row_begin, index_t row_end, index_t stride,
         index_t pad, index_t kernel, index_t out_width, DType* y, int32_t* argmax) {
#if OPS_MAX_POOL_WINDOW_AVX512
  if constexpr (Lanes<DType>::kAvailable) {
    if (stride == 1) {
      return RowOfStride<1>(plane, width, row_begin, row_end, pad, kernel, out_width, y, argmax);
    }
    return RowOfStride<2>(plane, width, row_begin, row_end, pad, kernel, out_width, y, argmax);
  }
#endif
  (void)plane, (void)width, (void)row_begin, (void)row_end, (void)stride, (void)pad, (void)kernel,
      (void)out_width, (void)y, (void)argmax;
}

}  // namespace max_window
}  // namespace pooling
}  // namespace ops

#endif  // OPS_MAX_POOL_WINDOW_H_
