// ops/transpose_block.h: 2-D transposes on the CPU, dst[j][i] = src[i][j] (or +=), through
// register squares where the arch has them (AVX2: 8 x 8 floats, 4 x 4 doubles) and element by
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

// A transposed row, written (or added) as the write mode says.
template <bool kAdd, bool kStream, typename DType, typename Register>
inline void StoreRow(DType* dst, Register row) {
  using P = mshadow::packet::Packet<DType, mshadow::packet::kAVX2>;
  if constexpr (kStream && !kAdd) {
    if (reinterpret_cast<uintptr_t>(dst) % sizeof(Register) == 0) {
      P(row).StoreStreaming(dst);
      return;
    }
  }
  vec::Store<kAdd>(dst, P(row));
}

template <>
struct RegisterTranspose<float> {
  static constexpr index_t kLanes = 8;
  template <bool kAdd, bool kStream>
  MSHADOW_CINLINE static void Run(const float* src, index_t src_ld, float* dst, index_t dst_ld) {
    __m256 r[8], t[8];
    OPS_TRANSPOSE_UNROLL
    for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(src + k * src_ld);
    OPS_TRANSPOSE_UNROLL
    for (int k = 0; k < 8; k += 2) {  // interleave pairs of rows
      t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
      t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
    }
    OPS_TRANSPOSE_UNROLL
    for (int k = 0; k < 8; k += 4) {  // gather groups of four within each 128-bit half
      r[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
      r[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
      r[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
      r[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
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
#undef OPS_TRANSPOSE_UNROLL
#endif  // MSHADOW_PACKET_HAS_AVX2

// dst[j * dst_ld + i] = src[i * src_ld + j] (or +=) for rows i in [0, rows), columns j in
// [0, cols): register squares over the whole squares (kBlockCols columns at a time, along the
// rows), element by element on the edges.
template <bool kAdd, bool kStream, typename DType>
void TransposeBlock(const DType* src, index_t src_ld, DType* dst, index_t dst_ld, index_t rows,
                    index_t cols) {
  constexpr index_t kLanes = RegisterTranspose<DType>::kLanes;
  const index_t full_rows = rows / kLanes * kLanes, full_cols = cols / kLanes * kLanes;
  for (index_t j0 = 0; j0 < full_cols; j0 += kBlockCols) {
    const index_t j_end = std::min(full_cols, j0 + kBlockCols);
    for (index_t i = 0; i < full_rows; i += kLanes) {
      for (index_t j = j0; j < j_end; j += kLanes) {
        RegisterTranspose<DType>::template Run<kAdd, kStream>(src + i * src_ld + j, src_ld,
                                                              dst + j * dst_ld + i, dst_ld);
      }
    }
  }
  TransposeScalar<kAdd>(src + full_rows * src_ld, src_ld, dst + full_rows, dst_ld, rows - full_rows,
                        cols);
  TransposeScalar<kAdd>(src + full_cols, src_ld, dst + full_cols * dst_ld, dst_ld, full_rows,
                        cols - full_cols);
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
