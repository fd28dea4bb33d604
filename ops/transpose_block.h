// ops/transpose_block.h: 2-D transposes on the CPU, dst[j][i] = src[i][j] (or +=), through
// register squares where the arch has them (AVX-512: 16 x 16 floats, 8 x 8 doubles; AVX2: 8 x 8
// floats, 4 x 4 doubles; the widest first, the narrower on the bands it leaves) and element by
// element on the edges. transpose's CPU kernel tiles its permutations with TransposeBlock;
// operator kernels that need a matrix transposed (the right operand of ops/matrix_product.h's
// Product) call Transpose2D.
//
//   Transpose2D<false>(w, w_ld, w_t, rows, rows, cols);  // w_t (cols x rows) = w^T
#ifndef OPS_TRANSPOSE_BLOCK_H_
#define OPS_TRANSPOSE_BLOCK_H_

#include <algorithm>
#include <cstdint>

#include "mshadow/base.h"
#include "ops/vector_loop.h"

namespace ops {
namespace transpose {

// Rows and columns of a tile: 32 x 32 elements of each side stay in L1.
constexpr index_t kTile = 32;
// Columns of a TransposeBlock pass: its squares go along source rows (each read as a
// sequential stream; down the columns, 32 rows 1 KiB apart outran the prefetchers: 7.2 against
// 2.7 ms for (64,256,256) on a Zen 3 core), and the destination rows of one pass, 128 by a
// tile's 32 elements, stay in the L1 cache until their lines are whole.
constexpr index_t kBlockCols = 128;

// dst[j * dst_ld + i] = src[i * src_ld + j] (or +=), element by element.
template <bool kAdd, typename DType>
void TransposeScalar(const DType* src, index_t src_ld, DType* dst, index_t dst_ld, index_t rows,
                     index_t cols) {
  for (index_t j = 0; j < cols; ++j) {
    for (index_t i = 0; i < rows; ++i) {
      DType& to = dst[j * dst_ld + i];
      to = kAdd ? to + src[i * src_ld + j] : src[i * src_ld + j];
    }
  }
}

// A square of kLanes x kLanes elements transposed in registers (kLanes loads, shuffles,
// kLanes stores), where the arch has it; kLanes = 1 elsewhere. kStream: written through
// streaming stores where a row is aligned (the caller fences).
template <typename DType>
struct RegisterTranspose {
  static constexpr index_t kLanes = 1;
  template <bool kAdd, bool kStream>
  static void Run(const DType* src, index_t, DType* dst, index_t) {
    *dst = kAdd ? *dst + *src : *src;
  }
};

#if MSHADOW_PACKET_HAS_AVX2
// The square's loops unrolled, so that its rows stay in registers (not spilled to the stack).
#define OPS_TRANSPOSE_UNROLL _Pragma("GCC unroll 8")
#define OPS_TRANSPOSE_UNROLL_ALL _Pragma("GCC unroll 16")

// A transposed row, written (or added) as the write mode says.
template <bool kAdd, bool kStream, typename DType, typename Register>
inline void StoreRow(DType* dst, Register row) {
  constexpr auto kArch = sizeof(Register) == 64 ? mshadow::packet::kAVX512 : mshadow::packet::kAVX2;
  using P = mshadow::packet::Packet<DType, kArch>;
  if constexpr (kStream && !kAdd) {
    if (reinterpret_cast<uintptr_t>(dst) % sizeof(Register) == 0) {
      P(row).StoreStreaming(dst);
      return;
    }
  }
  vec::Store<kAdd>(dst, P(row));
}

// A float square's first two stages, the same on 8 lanes (AVX2) and 16 (AVX-512): rows k..k+3
// of each group of four become, within every 128-bit quarter q, the columns 4q..4q+3: r[k + m]
// holds column 4q + m of the group's rows in quarter q.
MSHADOW_CINLINE __m256 InterleaveLow(__m256 a, __m256 b) { return _mm256_unpacklo_ps(a, b); }
MSHADOW_CINLINE __m256 InterleaveHigh(__m256 a, __m256 b) { return _mm256_unpackhi_ps(a, b); }
template <int kImm>
MSHADOW_CINLINE __m256 Shuffle(__m256 a, __m256 b) {
  return _mm256_shuffle_ps(a, b, kImm);
}
#if defined(__AVX512F__) && !defined(__CUDACC__)
MSHADOW_CINLINE __m512 InterleaveLow(__m512 a, __m512 b) { return _mm512_unpacklo_ps(a, b); }
MSHADOW_CINLINE __m512 InterleaveHigh(__m512 a, __m512 b) { return _mm512_unpackhi_ps(a, b); }
template <int kImm>
MSHADOW_CINLINE __m512 Shuffle(__m512 a, __m512 b) {
  return _mm512_shuffle_ps(a, b, kImm);
}
#endif
template <int kRows, typename Register>
MSHADOW_CINLINE void TransposeWithinQuarters(Register* r) {
  Register t[kRows];
  OPS_TRANSPOSE_UNROLL_ALL
  for (int k = 0; k < kRows; k += 2) {  // interleave pairs of rows
    t[k] = InterleaveLow(r[k], r[k + 1]);
    t[k + 1] = InterleaveHigh(r[k], r[k + 1]);
  }
  OPS_TRANSPOSE_UNROLL_ALL
  for (int k = 0; k < kRows; k += 4) {  // gather groups of four
    r[k] = Shuffle<_MM_SHUFFLE(1, 0, 1, 0)>(t[k], t[k + 2]);
    r[k + 1] = Shuffle<_MM_SHUFFLE(3, 2, 3, 2)>(t[k], t[k + 2]);
    r[k + 2] = Shuffle<_MM_SHUFFLE(1, 0, 1, 0)>(t[k + 1], t[k + 3]);
    r[k + 3] = Shuffle<_MM_SHUFFLE(3, 2, 3, 2)>(t[k + 1], t[k + 3]);
  }
}

template <>
struct RegisterTranspose<float> {
  static constexpr index_t kLanes = 8;
  template <bool kAdd, bool kStream>
  MSHADOW_CINLINE static void Run(const float* src, index_t src_ld, float* dst, index_t dst_ld) {
    __m256 r[8];
    OPS_TRANSPOSE_UNROLL
    for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(src + k * src_ld);
    TransposeWithinQuarters<8>(r);
    OPS_TRANSPOSE_UNROLL
    for (int k = 0; k < 4; ++k) {  // join the halves of rows 0-3 and 4-7
      StoreRow<kAdd, kStream>(dst + k * dst_ld, _mm256_permute2f128_ps(r[k], r[k + 4], 0x20));
      StoreRow<kAdd, kStream>(dst + (k + 4) * dst_ld, _mm256_permute2f128_ps(r[k], r[k + 4], 0x31));
    }
  }
};

template <>
struct RegisterTranspose<double> {
  static constexpr index_t kLanes = 4;
  template <bool kAdd, bool kStream>
  MSHADOW_CINLINE static void Run(const double* src, index_t src_ld, double* dst, index_t dst_ld) {
    __m256d r[4], t[4];
    OPS_TRANSPOSE_UNROLL
    for (int k = 0; k < 4; ++k) r[k] = _mm256_loadu_pd(src + k * src_ld);
    t[0] = _mm256_unpacklo_pd(r[0], r[1]);
    t[1] = _mm256_unpackhi_pd(r[0], r[1]);
    t[2] = _mm256_unpacklo_pd(r[2], r[3]);
    t[3] = _mm256_unpackhi_pd(r[2], r[3]);
    StoreRow<kAdd, kStream>(dst, _mm256_permute2f128_pd(t[0], t[2], 0x20));
    StoreRow<kAdd, kStream>(dst + dst_ld, _mm256_permute2f128_pd(t[1], t[3], 0x20));
    StoreRow<kAdd, kStream>(dst + 2 * dst_ld, _mm256_permute2f128_pd(t[0], t[2], 0x31));
    StoreRow<kAdd, kStream>(dst + 3 * dst_ld, _mm256_permute2f128_pd(t[1], t[3], 0x31));
  }
};

#if defined(__AVX512F__) && !defined(__CUDACC__)
#define OPS_TRANSPOSE_HAS_LINE_SQUARES 1
// A square of one cache line a side: each destination row is written whole (streaming stores
// of half lines lose to ordinary stores on Intel and Zen 3 cores, docs/benchmarks.md), and it
// takes fewer shuffles per element than four AVX2 squares.
template <typename DType>
struct LineTranspose;

template <>
struct LineTranspose<float> {
  static constexpr index_t kLanes = 16;
  template <bool kAdd, bool kStream>
  MSHADOW_CINLINE static void Run(const float* src, index_t src_ld, float* dst, index_t dst_ld) {
    __m512 r[16], t[16];
    OPS_TRANSPOSE_UNROLL_ALL
    for (int k = 0; k < 16; ++k) r[k] = _mm512_loadu_ps(src + k * src_ld);
    TransposeWithinQuarters<16>(r);
    // r[4 * g + m]'s quarter q holds rows 4g..4g+3 of column 4q + m: join the quarters of the
    // four groups, first pairwise, then the pairs.
    OPS_TRANSPOSE_UNROLL_ALL
    for (int m = 0; m < 4; ++m) {
      const __m512 even01 = _mm512_shuffle_f32x4(r[m], r[4 + m], _MM_SHUFFLE(2, 0, 2, 0));
      const __m512 odd01 = _mm512_shuffle_f32x4(r[m], r[4 + m], _MM_SHUFFLE(3, 1, 3, 1));
      const __m512 even23 = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], _MM_SHUFFLE(2, 0, 2, 0));
      const __m512 odd23 = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], _MM_SHUFFLE(3, 1, 3, 1));
      t[m] = _mm512_shuffle_f32x4(even01, even23, _MM_SHUFFLE(2, 0, 2, 0));
      t[m + 4] = _mm512_shuffle_f32x4(odd01, odd23, _MM_SHUFFLE(2, 0, 2, 0));
      t[m + 8] = _mm512_shuffle_f32x4(even01, even23, _MM_SHUFFLE(3, 1, 3, 1));
      t[m + 12] = _mm512_shuffle_f32x4(odd01, odd23, _MM_SHUFFLE(3, 1, 3, 1));
    }
    OPS_TRANSPOSE_UNROLL_ALL
    for (int k = 0; k < 16; ++k) StoreRow<kAdd, kStream>(dst + k * dst_ld, t[k]);
  }
};

template <>
struct LineTranspose<double> {
  static constexpr index_t kLanes = 8;
  template <bool kAdd, bool kStream>
  MSHADOW_CINLINE static void Run(const double* src, index_t src_ld, double* dst, index_t dst_ld) {
    __m512d r[8], t[8];
    OPS_TRANSPOSE_UNROLL_ALL
    for (int k = 0; k < 8; ++k) r[k] = _mm512_loadu_pd(src + k * src_ld);
    OPS_TRANSPOSE_UNROLL_ALL
    for (int k = 0; k < 8; k += 2) {  // t[k]: rows k, k+1 of the even columns; t[k+1]: odd
      t[k] = _mm512_unpacklo_pd(r[k], r[k + 1]);
      t[k + 1] = _mm512_unpackhi_pd(r[k], r[k + 1]);
    }
    // Column 2q + p is quarter q of t[p], t[p + 2], t[p + 4], t[p + 6].
    OPS_TRANSPOSE_UNROLL_ALL
    for (int p = 0; p < 2; ++p) {
      const __m512d low01 = _mm512_shuffle_f64x2(t[p], t[p + 2], _MM_SHUFFLE(1, 0, 1, 0));
      const __m512d high01 = _mm512_shuffle_f64x2(t[p], t[p + 2], _MM_SHUFFLE(3, 2, 3, 2));
      const __m512d low23 = _mm512_shuffle_f64x2(t[p + 4], t[p + 6], _MM_SHUFFLE(1, 0, 1, 0));
      const __m512d high23 = _mm512_shuffle_f64x2(t[p + 4], t[p + 6], _MM_SHUFFLE(3, 2, 3, 2));
      r[p] = _mm512_shuffle_f64x2(low01, low23, _MM_SHUFFLE(2, 0, 2, 0));
      r[p + 2] = _mm512_shuffle_f64x2(low01, low23, _MM_SHUFFLE(3, 1, 3, 1));
      r[p + 4] = _mm512_shuffle_f64x2(high01, high23, _MM_SHUFFLE(2, 0, 2, 0));
      r[p + 6] = _mm512_shuffle_f64x2(high01, high23, _MM_SHUFFLE(3, 1, 3, 1));
    }
    OPS_TRANSPOSE_UNROLL_ALL
    for (int k = 0; k < 8; ++k) StoreRow<kAdd, kStream>(dst + k * dst_ld, r[k]);
  }
};
#endif  // __AVX512F__
#undef OPS_TRANSPOSE_UNROLL
#undef OPS_TRANSPOSE_UNROLL_ALL
#endif  // MSHADOW_PACKET_HAS_AVX2

// dst[j * dst_ld + i] = src[i * src_ld + j] (or +=) over the whole Squares of [0, rows) x
// [0, cols), kBlockCols columns at a time, along the rows; the bands below and to the right of
// them go to the Narrower squares, and the last bands element by element.
template <bool kAdd, bool kStream, typename DType, typename Square, typename... Narrower>
void TransposeBySquares(const DType* src, index_t src_ld, DType* dst, index_t dst_ld, index_t rows,
                        index_t cols) {
  constexpr index_t kLanes = Square::kLanes;
  const index_t full_rows = rows / kLanes * kLanes, full_cols = cols / kLanes * kLanes;
  for (index_t j0 = 0; j0 < full_cols; j0 += kBlockCols) {
    const index_t j_end = std::min(full_cols, j0 + kBlockCols);
    for (index_t i = 0; i < full_rows; i += kLanes) {
      for (index_t j = j0; j < j_end; j += kLanes) {
        Square::template Run<kAdd, kStream>(src + i * src_ld + j, src_ld, dst + j * dst_ld + i,
                                            dst_ld);
      }
    }
  }
  auto band = [&](index_t i0, index_t j0, index_t band_rows, index_t band_cols) {
    if (band_rows == 0 || band_cols == 0) return;
    const DType* from = src + i0 * src_ld + j0;
    DType* to = dst + j0 * dst_ld + i0;
    if constexpr (sizeof...(Narrower) == 0) {
      TransposeScalar<kAdd>(from, src_ld, to, dst_ld, band_rows, band_cols);
    } else {
      TransposeBySquares<kAdd, kStream, DType, Narrower...>(from, src_ld, to, dst_ld, band_rows,
                                                            band_cols);
    }
  };
  band(full_rows, 0, rows - full_rows, cols);
  band(0, full_cols, full_rows, cols - full_cols);
}

// dst[j * dst_ld + i] = src[i * src_ld + j] (or +=) for rows i in [0, rows), columns j in
// [0, cols): the arch's register squares, widest first, element by element on the edges.
template <bool kAdd, bool kStream, typename DType>
void TransposeBlock(const DType* src, index_t src_ld, DType* dst, index_t dst_ld, index_t rows,
                    index_t cols) {
#ifdef OPS_TRANSPOSE_HAS_LINE_SQUARES
  TransposeBySquares<kAdd, kStream, DType, LineTranspose<DType>, RegisterTranspose<DType>>(
      src, src_ld, dst, dst_ld, rows, cols);
#else
  TransposeBySquares<kAdd, kStream, DType, RegisterTranspose<DType>>(src, src_ld, dst, dst_ld, rows,
                                                                     cols);
#endif
}

// Whether transposes that write `bytes` in all (an operator's whole output) go through
// streaming stores: where the squares write whole cache lines (AVX-512), by the engine's rule
// (StreamsCopyOf). Ordinary stores read each line before writing it and evict what the next
// tiles read; streaming stores of half lines (AVX2's squares) lose to them on Intel and Zen 3
// cores (docs/benchmarks.md). The caller fences (mshadow::FenceStreamingStores).
inline bool StreamsTransposeOf(index_t bytes) {
#ifdef OPS_TRANSPOSE_HAS_LINE_SQUARES
  return StreamsCopyOf(bytes);
#else
  static_cast<void>(bytes);
  return false;
#endif
}

// dst (cols x rows, row stride dst_ld) = src (rows x cols, row stride src_ld) transposed, or
// += as kAdd says: TransposeBlock over tiles of kTile rows, on the calling thread.
template <bool kAdd, typename DType>
void Transpose2D(const DType* src, index_t src_ld, DType* dst, index_t dst_ld, index_t rows,
                 index_t cols) {
  for (index_t r0 = 0; r0 < rows; r0 += kTile) {
    TransposeBlock<kAdd, false>(src + r0 * src_ld, src_ld, dst + r0, dst_ld,
                                std::min(kTile, rows - r0), cols);
  }
}

}  // namespace transpose
}  // namespace ops

#endif  // OPS_TRANSPOSE_BLOCK_H_
