// ops/register_gemm.h: row-major matrix products on the CPU through register tiles of SIMD
// packets, for operators whose products OpenBLAS runs slowly: few rows (an RNN step's batch),
// short inner dimensions, or, on this project's AVX-512 machines, any shape while OpenBLAS is
// held to its AVX2 kernels (docs/benchmarks.md measures both).
//
//   // c (rows x cols) = a (rows x depth) * b (depth x cols); a read transposed if asked
//   TiledGemm<float>(rows, depth, cols, {a, lda, /*transposed=*/false}, b, ldb, c, ldc,
//                    /*accumulate=*/false);
//   // c = bias (one value per row) + a * b
//   TiledGemm<float>(rows, depth, cols, a, RightOperand<float>{b, ldb}, c, ldc,
//                    Start<float>{false, bias});
//
// A tile is kTileRows rows by two packets of columns: each element of a is broadcast once
// per tile, each row of b loaded once, and the kTileRows * 2 accumulators stay in registers
// (8 rows where there are 32 vector registers, AVX-512; 6 with 16). b's strip of two
// packets, copied to consecutive memory a block of depth at a time, stays in the L1 cache
// while the row tiles pass over it. Items of (row block,
// column block) run on the library's threads; each element of c is written by one item, so
// results do not depend on the thread count.
#ifndef OPS_REGISTER_GEMM_H_
#define OPS_REGISTER_GEMM_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "mshadow/base.h"
#include "mshadow/host_memory.h"
#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"
#include "ops/vector_loop.h"

namespace ops {
namespace register_gemm {

// Rows of a register tile: its 2 * kTileRows accumulators, two rows of b and a broadcast
// must fit in the vector registers (32 with AVX-512, 16 with AVX2).
constexpr int kTileRows = MSHADOW_DEFAULT_PACKET == mshadow::packet::kAVX512 ? 8 : 6;

// c + a * b, fused where the packet has a fused multiply-add (float's do).
template <typename P>
MSHADOW_CINLINE P MultiplyAdd(P a, P b, P c) {
  if constexpr (std::is_same_v<P, vec::Full<float>> &&
                MSHADOW_DEFAULT_PACKET != mshadow::packet::kPlain) {
    return MulAdd(a, b, c);
  } else {
    return a * b + c;
  }
}

// The left operand: element (i, k) at data[i * stride + k], or, transposed, at
// data[k * stride + i] (a matrix stored depth x rows).
template <typename DType>
struct LeftOperand {
  const DType* data;
  index_t stride;
  bool transposed;

  // The operand from row `i` on.
  LeftOperand FromRow(index_t i) const {
    return LeftOperand{transposed ? data + i : data + i * stride, stride, transposed};
  }
};

// What a product's sums start from: c itself (accumulate), one value per row of c (a
// convolution's bias, so that no pass writes it to c first), or zero.
template <typename DType>
struct Start {
  bool accumulate = false;
  const DType* row_values = nullptr;  // where not accumulating; null: zero

  static Start Accumulating() { return Start{true, nullptr}; }
  // The start of rows `i` on.
  Start FromRow(index_t i) const {
    return Start{accumulate, row_values == nullptr ? nullptr : row_values + i};
  }
  // Row i's start where not accumulating.
  MSHADOW_CINLINE DType RowValue(index_t i) const {
    return row_values != nullptr ? row_values[i] : DType(0);
  }
};

// How a product writes c: through the caches, or, for a c far larger than the last-level
// cache that nothing reads back soon (a convolution's whole output), by streaming stores, which
// neither read each line of c before writing it nor evict the operands (a 1x1 layer's large
// output: docs/benchmarks.md, fifty-eighth session). Only whole aligned lines stream (tiles of
// two packets whose rows start on a line); the rest of c, and c read back between blocks of
// depth, goes through the caches.
enum class Stores { kCached, kStreaming };

// Columns of the strips a product reads its right operand by: two packets.
template <typename DType>
constexpr index_t kStripWidth = 2 * vec::Full<DType>::kSize;

// The right operand: row k at data + k * stride, or, given an indirection table, at data +
// row_offsets[k] (a convolution's input read in place as its column matrix: rows are taps
// and channels, each row the input shifted by its tap, ops/deconvolution_phases.h). Its
// columns are consecutive, or folded (Folded): column j at (j / fold_width) * fold_pitch +
// j % fold_width from its row's start, a convolution's outputs read from its padded input
// without the pad columns. Or packed (PackRightOperand, packed_depth > 0): strips of
// kStripWidth columns one after the other, each `packed_depth` rows of kStripWidth elements,
// read in place without the copy each product makes of its strips otherwise (an RNN's
// recurrent weight, read once a step).
template <typename DType>
struct RightOperand {
  const DType* data;
  index_t stride;
  const index_t* row_offsets = nullptr;
  index_t packed_depth = 0;
  index_t fold_width = 0, fold_pitch = 0;
  index_t first_column = 0;  // folded: the index of column 0 in the fold

  MSHADOW_CINLINE const DType* Row(index_t k) const {
    return data + (row_offsets != nullptr ? row_offsets[k] : k * stride);
  }
  // Where column j starts from its row's start.
  MSHADOW_CINLINE index_t Column(index_t j) const {
    if (fold_width == 0) return j;
    const index_t folded = first_column + j;
    return folded / fold_width * fold_pitch + folded % fold_width;
  }
  // The operand from column `j` on (packed: a multiple of kStripWidth).
  RightOperand FromColumn(index_t j) const {
    if (packed_depth > 0)
      return RightOperand{data + j * packed_depth, stride, nullptr, packed_depth};
    if (fold_width > 0) {
      return RightOperand{data, stride, row_offsets, 0, fold_width, fold_pitch, first_column + j};
    }
    return RightOperand{data + j, stride, row_offsets};
  }
  // A PackRightOperand buffer of `depth` rows.
  static RightOperand Packed(const DType* packed, index_t depth) {
    return RightOperand{packed, kStripWidth<DType>, nullptr, depth};
  }
  // The operand with its columns folded `width` to a row, rows `pitch` apart (width <= pitch).
  // Each row must be readable kStripWidth - 1 elements past its last column: a strip's runs
  // are copied whole strips wide (PackedStrip).
  RightOperand Folded(index_t width, index_t pitch) const {
    return RightOperand{data, stride, row_offsets, 0, width, pitch, 0};
  }
};

// Whether PackRightOperand takes an operand `cols` wide: whole strips only.
template <typename DType>
bool PacksColumns(index_t cols) {
  return cols > 0 && cols % kStripWidth<DType> == 0;
}

// packed (depth * cols elements) = b (depth x cols, rows ldb apart) as strips of
// kStripWidth columns (PacksColumns(cols)), for RightOperand::Packed: an operand that several
// products read is copied once. Each row of b is read from start to end: a strip's rows
// alone are a line or two each, ldb apart, and a row more than a page long puts each on a
// page of its own, where the hardware prefetchers do not follow.
template <typename DType>
void PackRightOperand(index_t depth, index_t cols, const DType* b, index_t ldb, DType* packed) {
  using P = vec::Full<DType>;
  constexpr index_t kWidth = kStripWidth<DType>;
  for (index_t k = 0; k < depth; ++k) {
    for (index_t j = 0; j < cols; j += kWidth) {
      OPS_UNROLL_FULLY
      for (index_t l = 0; l < kWidth; l += P::kSize) {
        P::LoadUnAligned(b + k * ldb + j + l).StoreUnAligned(packed + j * depth + k * kWidth + l);
      }
    }
  }
}

// Where a tile reads row k of b: rows ldb apart (a strip copied to consecutive memory, or b
// in place), or at offsets from a table (an indirect operand read in place).
template <typename DType>
struct StridedRows {
  const DType* b;
  index_t ldb;
  MSHADOW_CINLINE const DType* operator()(index_t k) const { return b + k * ldb; }
};
template <typename DType>
struct IndirectRows {
  const DType* b;
  const index_t* offsets;
  MSHADOW_CINLINE const DType* operator()(index_t k) const { return b + offsets[k]; }
};

// Fetches a block of an operand into the L2 cache, a line each time Next is called: runs of
// run_bytes, stride_bytes apart. Calls spread through the products before the block is read
// overlap its reading from memory with them, where the hardware prefetchers would not fetch
// it (runs of a line or a few on pages of their own) and bursts of prefetches between
// products had not hidden it (docs/benchmarks.md, sixty-second session).
class LinePrefetcher {
 public:
  LinePrefetcher() = default;  // fetches nothing
  LinePrefetcher(const void* first, size_t run_bytes, size_t stride_bytes, index_t runs)
      : run_(reinterpret_cast<uintptr_t>(first)),
        run_bytes_(run_bytes),
        stride_(stride_bytes),
        runs_left_(run_bytes > 0 ? runs : 0),
        line_(run_ / kLine * kLine) {}

  // The line the next call fetches; null once the block is fetched.
  const void* NextLine() const {
    return runs_left_ == 0 ? nullptr : reinterpret_cast<const void*>(line_);
  }

  MSHADOW_CINLINE void Next() {
    if (runs_left_ == 0) return;
    __builtin_prefetch(reinterpret_cast<const void*>(line_), 0, 2);  // prefetcht1: the L2 cache
    line_ += kLine;
    if (line_ < run_ + run_bytes_) return;
    run_ += stride_;
    line_ = run_ / kLine * kLine;
    --runs_left_;
  }

 private:
  static constexpr uintptr_t kLine = 64;
  uintptr_t run_ = 0, run_bytes_ = 0, stride_ = 0;
  index_t runs_left_ = 0;
  uintptr_t line_ = 0;
};

// Rows ldb apart, each call also fetching a line of the block to come (LinePrefetcher).
template <typename DType>
struct PrefetchingRows {
  StridedRows<DType> rows;
  LinePrefetcher* prefetcher;
  MSHADOW_CINLINE const DType* operator()(index_t k) const {
    prefetcher->Next();
    return rows(k);
  }
};

// Rows of a strip of b (two packets) read in place, ldb apart, each also copied to `copy`
// (rows kStripWidth apart) as it is read, the copy's row returned: a strip's first row tile
// packs it for the others while it multiplies, instead of a pass of its own over b before
// the products (MultiplyPackedChunks).
template <typename DType>
struct CopyingRows {
  PrefetchingRows<DType> from;
  DType* copy;
  MSHADOW_CINLINE const DType* operator()(index_t k) const {
    using P = vec::Full<DType>;
    const DType* row = from(k);
    DType* to = copy + k * kStripWidth<DType>;
    P::LoadUnAligned(row).StoreUnAligned(to);
    P::LoadUnAligned(row + P::kSize).StoreUnAligned(to + P::kSize);
    return to;
  }
};

// c (kRows x kPackets packets, row stride ldc) = start + a (kRows x depth) times b (depth x
// kPackets packets, row k at b_rows(k)); written by streaming stores where `stream` (every
// packet of c aligned: StreamsTile).
template <int kRows, int kPackets, bool kATransposed, typename DType, typename Rows>
MSHADOW_CINLINE void MultiplyTile(const DType* a, index_t lda, index_t depth, Rows b_rows, DType* c,
                                  index_t ldc, Start<DType> start, bool stream) {
  using P = vec::Full<DType>;
  P acc[kRows][kPackets];
  OPS_UNROLL_FULLY
  for (int i = 0; i < kRows; ++i) {
    OPS_UNROLL_FULLY
    for (int j = 0; j < kPackets; ++j) {
      acc[i][j] = start.accumulate ? P::LoadUnAligned(c + i * ldc + j * P::kSize)
                                   : P::Fill(start.RowValue(i));
    }
  }
  OPS_UNROLL_4
  for (index_t k = 0; k < depth; ++k) {
    const DType* b = b_rows(k);
    P bk[kPackets];
    OPS_UNROLL_FULLY
    for (int j = 0; j < kPackets; ++j) bk[j] = P::LoadUnAligned(b + j * P::kSize);
    OPS_UNROLL_FULLY
    for (int i = 0; i < kRows; ++i) {
      const P ai = P::Fill(kATransposed ? a[k * lda + i] : a[i * lda + k]);
      OPS_UNROLL_FULLY
      for (int j = 0; j < kPackets; ++j) acc[i][j] = MultiplyAdd(ai, bk[j], acc[i][j]);
    }
  }
  if (stream) {
    OPS_UNROLL_FULLY
    for (int i = 0; i < kRows; ++i) {
      OPS_UNROLL_FULLY
      for (int j = 0; j < kPackets; ++j) acc[i][j].StoreStreaming(c + i * ldc + j * P::kSize);
    }
    return;
  }
  OPS_UNROLL_FULLY
  for (int i = 0; i < kRows; ++i) {
    OPS_UNROLL_FULLY
    for (int j = 0; j < kPackets; ++j) acc[i][j].StoreUnAligned(c + i * ldc + j * P::kSize);
  }
}

// Whether the tiles of a strip kPackets packets wide at c (rows ldc apart) write whole lines
// that start on a line, as streaming stores need (a packet's store faults unaligned, and half
// lines stream slower than cached stores write them).
template <int kPackets, typename DType>
bool StreamsTile(const DType* c, index_t ldc) {
  constexpr size_t kLine = 64;
  return kPackets * sizeof(vec::Full<DType>) % kLine == 0 &&
         reinterpret_cast<uintptr_t>(c) % kLine == 0 && ldc * sizeof(DType) % kLine == 0;
}

// The columns before the first cache line of c's rows where a streaming product's rows all
// start the same distance into a line (rows whole lines apart, c off a line by whole
// elements, as NumPy's arrays are 16 bytes in) and enough columns follow to stream: TiledGemm
// writes those columns through the caches and the rest as strips that start on a line
// (StreamsTile). 0 where that does not apply.
template <typename DType>
index_t ColumnsBeforeALine(const DType* c, index_t ldc, index_t cols, Stores stores,
                           const RightOperand<DType>& b) {
  if (stores != Stores::kStreaming || b.packed_depth > 0 ||
      ldc * sizeof(DType) % mshadow::kCacheLineBytes != 0) {
    return 0;
  }
  const index_t lead = mshadow::ElementsBeforeALine(c);
  return cols - lead >= 2 * kStripWidth<DType> ? lead : 0;
}

// The last rows of a strip (fewer than kTileRows) as one tile of that many rows: single-row tiles
// would wait on their two accumulators' latency.
template <int kPackets, bool kATransposed, int kRows = 1, typename DType, typename Rows>
MSHADOW_CINLINE void MultiplyTailTile(index_t rows, const DType* a, index_t lda, index_t depth,
                                      Rows b_rows, DType* c, index_t ldc, Start<DType> start,
                                      bool stream) {
  if constexpr (kRows < kTileRows) {
    if (rows != kRows) {
      return MultiplyTailTile<kPackets, kATransposed, kRows + 1>(rows, a, lda, depth, b_rows, c,
                                                                 ldc, start, stream);
    }
    MultiplyTile<kRows, kPackets, kATransposed>(a, lda, depth, b_rows, c, ldc, start, stream);
  }
}

// The runs of a strip's columns that are consecutive in b's rows (one, unless its columns
// are folded): the lane where each starts and its column offset from a row's start.
template <index_t kWidth>
struct StripRuns {
  int count = 0;
  index_t lane[kWidth], offset[kWidth];

  template <typename DType>
  explicit StripRuns(const RightOperand<DType>& b) {
    for (index_t l = 0; l < kWidth; ++l) {
      const index_t offset_l = b.Column(l);
      if (count == 0 || offset_l != offset[count - 1] + (l - lane[count - 1])) {
        lane[count] = l;
        offset[count++] = offset_l;
      }
    }
  }
};

// The strip of b kPackets packets wide that a column strip's tiles read, copied to
// consecutive memory `kDepthBlock` rows at a time: read in place, its rows are ldb apart and
// alias in the L1 cache when ldb is a multiple of 1024 floats (an LSTM step's 1024 gates,
// 30 against 68 GFLOP/s on an AVX2 core), and a deep strip would not stay in the L1 cache.
template <int kPackets, typename DType>
struct PackedStrip {
  static constexpr index_t kWidth = kPackets * vec::Full<DType>::kSize;
  // Rows of one block: 16 KiB of strip, half an L1 cache.
  static constexpr index_t kDepthBlock = 16384 / (kWidth * sizeof(DType));
  // A row past the block's: a run is copied whole strips wide, and the last row's runs
  // overrun it.
  alignas(64) DType rows[(kDepthBlock + 1) * kWidth];

  // Rows [k0, k0 + depth) of b, whose strip's columns fall into `runs`. A run is copied a
  // whole strip wide, in lane order, so what it copies past its end the next run (or the
  // next row) overwrites.
  void Pack(const RightOperand<DType>& b, const StripRuns<kWidth>& runs, index_t k0,
            index_t depth) {
    using P = vec::Full<DType>;
    for (index_t k = 0; k < depth; ++k) {
      const DType* from = b.Row(k0 + k);
      for (int r = 0; r < runs.count; ++r) {
        OPS_UNROLL_FULLY
        for (int j = 0; j < kPackets; ++j) {
          P::LoadUnAligned(from + runs.offset[r] + j * P::kSize)
              .StoreUnAligned(rows + k * kWidth + runs.lane[r] + j * P::kSize);
        }
      }
    }
  }
};

// c (rows x kPackets packets) = start + a times one strip of b (depth rows, row k at
// b_rows(k)): whole tiles, then one tile of the rows left, tile r / kTileRows reading a from
// a + (r / kTileRows) * tile_step; written by streaming stores where `stream`.
template <int kPackets, bool kATransposed, typename DType, typename Rows>
void MultiplyStripTiles(index_t rows, index_t depth, const DType* a, index_t lda, index_t tile_step,
                        Rows b_rows, DType* c, index_t ldc, Start<DType> start, bool stream) {
  index_t r = 0;
  for (; r + kTileRows <= rows; r += kTileRows) {
    MultiplyTile<kTileRows, kPackets, kATransposed>(a + r / kTileRows * tile_step, lda, depth,
                                                    b_rows, c + r * ldc, ldc, start.FromRow(r),
                                                    stream);
  }
  if (r < rows) {
    MultiplyTailTile<kPackets, kATransposed>(rows - r, a + r / kTileRows * tile_step, lda, depth,
                                             b_rows, c + r * ldc, ldc, start.FromRow(r), stream);
  }
}

// The rows of one column strip kPackets packets wide (MultiplyStripTiles). An indirect strip whose
// columns are consecutive is read in place, its whole depth at once (the rows a convolution's
// taps read overlap: the strip's lines stay in the L1 cache, 10% faster than copying them).
// Otherwise, where more than one tile reads the strip (or its folded columns span rows), it
// is packed (PackedStrip) a block of depth at a time, each block's products added to the
// last's.
template <int kPackets, bool kATransposed, typename DType>
void MultiplyStrip(index_t rows, index_t depth, const DType* a, index_t lda, index_t tile_step,
                   const RightOperand<DType>& b, DType* c, index_t ldc, Start<DType> start,
                   Stores stores) {
  const bool streams = stores == Stores::kStreaming && StreamsTile<kPackets>(c, ldc);
  // The first block of depth starts from `start`, the others add to it; the last writes c
  // as `stores` says (the others' sums are read back).
  auto tiles = [&](index_t k0, index_t k_len, auto b_rows) {
    // Element (i, k) of a tile is a[k * lda + i] transposed, a[i * lda + k] otherwise.
    MultiplyStripTiles<kPackets, kATransposed>(
        rows, k_len, a + (kATransposed ? k0 * lda : k0), lda, tile_step, b_rows, c, ldc,
        k0 == 0 ? start : Start<DType>::Accumulating(), streams && k0 + k_len >= depth);
  };
  using Strip = PackedStrip<kPackets, DType>;
  const StripRuns<Strip::kWidth> runs(b);
  if (b.packed_depth == 0 && runs.count == 1) {
    const DType* b0 = b.data + runs.offset[0];
    if (b.row_offsets != nullptr) {
      return tiles(0, depth, IndirectRows<DType>{b0, b.row_offsets});
    }
    if (rows <= kTileRows) return tiles(0, depth, StridedRows<DType>{b0, b.stride});
  }
  // Blocks of depth, b's strip copied to consecutive memory for each (PackedStrip) unless
  // it is packed already (RightOperand::Packed), each block's products added to the last's.
  Strip strip;
  for (index_t k0 = 0; k0 < depth || k0 == 0; k0 += Strip::kDepthBlock) {
    const index_t k_len = std::min(Strip::kDepthBlock, depth - k0);
    if (b.packed_depth > 0) {
      tiles(k0, k_len, StridedRows<DType>{b.data + k0 * b.stride, b.stride});
      continue;
    }
    strip.Pack(b, runs, k0, k_len);
    tiles(k0, k_len, StridedRows<DType>{strip.rows, Strip::kWidth});
  }
}

// Strips of an operand read in place (neither packed, indirect nor folded) that several
// tiles read, where the part of it one call reads outgrows a quarter of the L2 cache (it comes
// from farther out): kChunkStrips strips at a time, a block of depth at a time, the products
// of each block fetching the next one into the L2 cache (LinePrefetcher): a strip's rows are a
// line or two each, on pages of their own where b's rows are a page or more long, which the
// hardware prefetchers do not follow (FullyConnected's data gradient, W read in place). Each
// strip's block is copied to consecutive memory by its first row tile as it multiplies
// (CopyingRows), the other tiles reading the copy: copied in a pass of its own first, the
// loads of b had waited on memory with no products to overlap them (docs/benchmarks.md,
// seventy-sixth session). Smaller operands keep one strip's block (16 KiB) in the L1 cache:
// chunks had slowed the attention products, whose operands are 32 KiB, 5-17%.
constexpr index_t kChunkStrips = 8;
constexpr size_t kChunkMinBytes = 256 * 1024;

template <typename DType>
bool PacksChunks(index_t rows, index_t depth, index_t cols, const RightOperand<DType>& b) {
  return rows > kTileRows && cols >= 2 * kStripWidth<DType> && b.packed_depth == 0 &&
         b.row_offsets == nullptr && b.fold_width == 0 &&
         static_cast<size_t>(depth * cols) * sizeof(DType) >= kChunkMinBytes;
}

// The whole strips of c (rows x cols, a multiple of kStripWidth) (+)= a times b
// (PacksChunks), as MultiplyColumns takes them.
template <bool kATransposed, typename DType>
void MultiplyPackedChunks(index_t rows, index_t depth, index_t cols, const DType* a, index_t lda,
                          index_t tile_step, const RightOperand<DType>& b, DType* c, index_t ldc,
                          Start<DType> start, Stores stores) {
  constexpr index_t kStrip = kStripWidth<DType>;
  constexpr index_t kDepthBlock = PackedStrip<2, DType>::kDepthBlock;
  const index_t chunk_cols = std::min(cols, kChunkStrips * kStrip);
  alignas(64) DType strip[kDepthBlock * kStrip];  // a strip's block, copied by its first tile
  for (index_t j0 = 0; j0 < cols; j0 += chunk_cols) {
    const index_t width = std::min(chunk_cols, cols - j0);
    // The first block of depth starts from `start`, the others add to it; the last writes
    // c as `stores` says.
    for (index_t k0 = 0; k0 < depth || k0 == 0; k0 += kDepthBlock) {
      const index_t k_len = std::min(kDepthBlock, depth - k0);
      // The products fetch the next block of depth of this chunk, or the next chunk's first.
      const bool last_block = k0 + k_len >= depth;
      const index_t next_k = last_block ? 0 : k0 + k_len, next_j = last_block ? j0 + width : j0;
      LinePrefetcher prefetcher;
      if (next_j < cols) {
        prefetcher = LinePrefetcher(
            b.Row(next_k) + next_j, std::min(chunk_cols, cols - next_j) * sizeof(DType),
            b.stride * sizeof(DType), std::min(kDepthBlock, depth - next_k));
      }
      const DType* ak = a + (kATransposed ? k0 * lda : k0);
      const Start<DType> from = k0 == 0 ? start : Start<DType>::Accumulating();
      const bool stream = last_block && stores == Stores::kStreaming;
      for (index_t j = 0; j < width; j += kStrip) {
        DType* cj = c + j0 + j;
        const bool stream_strip = stream && StreamsTile<2>(cj, ldc);
        // PacksChunks: more rows than one tile.
        MultiplyTile<kTileRows, 2, kATransposed>(
            ak, lda, k_len,
            CopyingRows<DType>{{{b.Row(k0) + j0 + j, b.stride}, &prefetcher}, strip}, cj, ldc,
            from, stream_strip);
        MultiplyStripTiles<2, kATransposed>(
            rows - kTileRows, k_len, ak + tile_step, lda, tile_step,
            PrefetchingRows<DType>{{strip, kStrip}, &prefetcher}, cj + kTileRows * ldc, ldc,
            from.FromRow(kTileRows), stream_strip);
      }
    }
  }
}

// c (rows x width, width below one packet) (+)= a times b's first `width` columns, as
// MultiplyStrip takes them: those columns copied, the whole depth, to a strip one packet wide
// padded with zeros, and each tile written to a tile-sized buffer whose first `width` columns
// are copied to c. One element at a time, these columns had taken more time than all the
// packets before them (a 14x14 layer's 196 columns: 12 packets and 4 left over, 34% of its
// data gradient's time against 22% for the tiles).
template <bool kATransposed, typename DType>
void MultiplyNarrowColumns(index_t rows, index_t depth, index_t width, const DType* a, index_t lda,
                           index_t tile_step, const RightOperand<DType>& b, DType* c, index_t ldc,
                           Start<DType> start) {
  using P = vec::Full<DType>;
  constexpr index_t kSize = P::kSize;
  const std::unique_ptr<void, void (*)(void*)> memory(
      mshadow::AllocHost(static_cast<size_t>(std::max<index_t>(depth, 1) * kSize) * sizeof(DType),
                         64, "a matrix product's last columns"),
      mshadow::FreeHost);
  DType* strip = static_cast<DType*>(memory.get());
  // The columns' places within a row once: a folded operand's are a division each.
  index_t column[kSize];
  for (index_t j = 0; j < width; ++j) column[j] = b.Column(j);
  for (index_t k = 0; k < depth; ++k) {
    const DType* from = b.Row(k);
    for (index_t j = 0; j < kSize; ++j) strip[k * kSize + j] = j < width ? from[column[j]] : 0;
  }
  alignas(64) DType tile[kTileRows * kSize];
  for (index_t r = 0; r < rows; r += kTileRows) {
    const index_t n = std::min<index_t>(kTileRows, rows - r);
    if (start.accumulate) {
      for (index_t i = 0; i < n; ++i) {
        for (index_t j = 0; j < kSize; ++j) {
          tile[i * kSize + j] = j < width ? c[(r + i) * ldc + j] : 0;
        }
      }
    }
    const DType* ar = a + r / kTileRows * tile_step;
    const StridedRows<DType> strip_rows{strip, kSize};
    if (n == kTileRows) {
      MultiplyTile<kTileRows, 1, kATransposed>(ar, lda, depth, strip_rows, tile, kSize,
                                               start.FromRow(r), false);
    } else {
      MultiplyTailTile<1, kATransposed>(n, ar, lda, depth, strip_rows, tile, kSize,
                                        start.FromRow(r), false);
    }
    for (index_t i = 0; i < n; ++i) {
      std::memcpy(c + (r + i) * ldc, tile + i * kSize, width * sizeof(DType));
    }
  }
}

// c (rows x cols) (+)= a (rows x depth, stored as `lda` and tile_step say, see MultiplyStrip)
// times b (depth x cols), on the calling thread: strips of two packets (packed a chunk at a
// time where PacksChunks), one packet, then the last columns padded to one
// (MultiplyNarrowColumns).
template <bool kATransposed, typename DType>
void MultiplyColumns(index_t rows, index_t depth, index_t cols, const DType* a, index_t lda,
                     index_t tile_step, const RightOperand<DType>& b, DType* c, index_t ldc,
                     Start<DType> start, Stores stores) {
  constexpr index_t kSize = vec::Full<DType>::kSize;
  index_t col = 0;
  if (PacksChunks(rows, depth, cols, b)) {
    col = cols / (2 * kSize) * (2 * kSize);
    MultiplyPackedChunks<kATransposed>(rows, depth, col, a, lda, tile_step, b, c, ldc, start,
                                       stores);
  }
  for (; col + 2 * kSize <= cols; col += 2 * kSize) {
    MultiplyStrip<2, kATransposed>(rows, depth, a, lda, tile_step, b.FromColumn(col), c + col, ldc,
                                   start, stores);
  }
  for (; col + kSize <= cols; col += kSize) {
    MultiplyStrip<1, kATransposed>(rows, depth, a, lda, tile_step, b.FromColumn(col), c + col, ldc,
                                   start, stores);
  }
  if (col < cols) {
    MultiplyNarrowColumns<kATransposed>(rows, depth, cols - col, a, lda, tile_step,
                                        b.FromColumn(col), c + col, ldc, start);
  }
}

// c (rows x cols) (+)= a (rows x depth) times b (depth x cols), on the calling thread, written
// as `stores` says (the caller fences streaming stores). A transposed a is first packed, kTileRows
// rows at a time, k-major: read in place, a tile's broadcasts would come from `depth` rows lda
// apart, which alias in the L1 cache when lda is a multiple of 1024 floats (an LSTM's 4 * 256
// gates: 112 against 189 GFLOP/s unpacked).
template <bool kATransposed, typename DType>
void MultiplyBlock(index_t rows, index_t depth, index_t cols, LeftOperand<DType> a,
                   const RightOperand<DType>& b, DType* c, index_t ldc, Start<DType> start,
                   Stores stores = Stores::kCached) {
  if constexpr (!kATransposed) {
    MultiplyColumns<false>(rows, depth, cols, a.data, a.stride, kTileRows * a.stride, b, c, ldc,
                           start, stores);
  } else {
    const index_t panels = (rows + kTileRows - 1) / kTileRows;
    auto* packed = static_cast<DType*>(
        mshadow::ThreadScratch(static_cast<size_t>(panels * kTileRows * depth) * sizeof(DType)));
    // A chunk of a's rows at a time, panel by panel: each panel is written a few lines at a
    // time (row by row over every panel, each write had gone to a line of its own, 27 KiB
    // from the last), while the chunk's rows stay in the L1 cache: rows 4 KiB apart (an
    // LSTM's gates) fall in one set of it, whose 8 ways hold 8 of them.
    constexpr index_t kChunk = 8;
    for (index_t k0 = 0; k0 < depth; k0 += kChunk) {
      const index_t k_end = std::min(depth, k0 + kChunk);
      for (index_t p = 0; p < panels; ++p) {
        const index_t first = p * kTileRows, n = std::min<index_t>(kTileRows, rows - first);
        const DType* from = a.data + first;
        DType* to = packed + p * depth * kTileRows;
        if (n == kTileRows) {  // a constant count: unrolled into a few moves
          for (index_t k = k0; k < k_end; ++k) {
            std::memcpy(to + k * kTileRows, from + k * a.stride, kTileRows * sizeof(DType));
          }
          continue;
        }
        for (index_t k = k0; k < k_end; ++k) {
          for (index_t i = 0; i < n; ++i) to[k * kTileRows + i] = from[k * a.stride + i];
        }
      }
    }
    MultiplyColumns<true>(rows, depth, cols, packed, kTileRows, kTileRows * depth, b, c, ldc, start,
                          stores);
  }
}

// Items of the threaded product: blocks of whole tiles, about 64 rows (long enough to hide
// the hand-off), cut into column blocks of at least 128 columns only where that makes
// kMinItems items.
constexpr index_t kBlockRows = 64 / kTileRows * kTileRows;
constexpr index_t kBlockCols = 128;
constexpr index_t kMinItems = 8;  // items enough for the threads to share evenly
// The multiply-adds that pay for a thread: those worth mshadow's kMinElementsPerThread
// elements of an elementwise map, at 32 a map's element.
constexpr index_t kMultiplyAddsPerThread = 32 * mshadow::expr::kMinElementsPerThread;

// c (rows x cols, row stride ldc) = `start` (c itself, values per row, or zero) + a (rows x
// depth) times b (depth x cols), written as `stores` says (streaming stores fenced before it
// returns). Float and double. On the library's threads when the product is worth them.
template <typename DType>
void TiledGemm(index_t rows, index_t depth, index_t cols, LeftOperand<DType> a,
               const RightOperand<DType>& b, DType* c, index_t ldc, Start<DType> start,
               Stores stores = Stores::kCached) {
  static_assert(std::is_same_v<DType, float> || std::is_same_v<DType, double>,
                "TiledGemm: float or double");
  if (rows <= 0 || cols <= 0) return;
  CHECK(b.packed_depth == 0 || (b.packed_depth == depth && PacksColumns<DType>(cols)))
      << "TiledGemm: an operand packed " << b.packed_depth << " rows deep for a product of depth "
      << depth << " and " << cols << " columns";
  if (const index_t lead = ColumnsBeforeALine(c, ldc, cols, stores, b); lead > 0) {
    TiledGemm(rows, depth, lead, a, b, c, ldc, start, Stores::kCached);
    return TiledGemm(rows, depth, cols - lead, a, b.FromColumn(lead), c + lead, ldc, start,
                     stores);
  }
  // Row blocks of whole tiles, the rows shared evenly between as many blocks as rows /
  // kBlockRows rounds to: 64 rows are one block, not one of 60 and one of 4, which would pack
  // b's strips again for a single tile.
  const index_t wanted_row_blocks = std::max<index_t>(1, (rows + kBlockRows / 2) / kBlockRows);
  const index_t even_rows = (rows + wanted_row_blocks - 1) / wanted_row_blocks;
  const index_t block_rows = (even_rows + kTileRows - 1) / kTileRows * kTileRows;
  const index_t row_blocks = (rows + block_rows - 1) / block_rows;
  // Each row block copies b's strips for itself: where three or more would, b is packed once
  // here instead (a weight gradient's 1024 rows had packed b 16 times: 6% of an LSTM's
  // backward). The copy is allocated per call: a thread-local buffer in this header would be
  // a symbol the C ABI's library exports, and the calling thread's ThreadScratch belongs to
  // its blocks' copies of a transposed a. It is aligned to a cache line: new[] aligns to 16
  // bytes, and a tile's every load of a row of the strips then spans two lines.
  if (row_blocks >= 3 && b.packed_depth == 0 && b.row_offsets == nullptr && b.fold_width == 0 &&
      PacksColumns<DType>(cols)) {
    const std::unique_ptr<void, void (*)(void*)> memory(
        mshadow::AllocHost(static_cast<size_t>(depth * cols) * sizeof(DType), 64,
                           "a matrix product's packed right operand"),
        mshadow::FreeHost);
    DType* packed = static_cast<DType*>(memory.get());
    // Strip by strip on the library's threads: on the calling thread alone, the copy held
    // the others up.
    constexpr index_t kStrip = kStripWidth<DType>;
    const index_t strips = cols / kStrip;
    const int pack_threads = static_cast<int>(std::min<index_t>(
        {mshadow::GetNumThreads(), strips, depth * cols / mshadow::expr::kMinElementsPerThread}));
    mshadow::ParallelFor(strips, pack_threads, [&](index_t j) {
      PackRightOperand(depth, kStrip, b.data + j * kStrip, b.stride, packed + j * kStrip * depth);
    });
    return TiledGemm(rows, depth, cols, a, RightOperand<DType>::Packed(packed, depth), c, ldc,
                     start, stores);
  }
  // Column blocks only where the row blocks are too few to share out: a block's strips read
  // b the same way however many there are, but each block packs a transposed a again.
  const index_t wanted_col_blocks = std::max<index_t>(
      1, std::min((cols + kBlockCols - 1) / kBlockCols, (kMinItems + row_blocks - 1) / row_blocks));
  // Whole strips of two packets per block, the last block taking what is left.
  constexpr index_t kStrip = kStripWidth<DType>;
  const index_t per_block = (cols + wanted_col_blocks - 1) / wanted_col_blocks;
  const index_t col_width = (per_block + kStrip - 1) / kStrip * kStrip;
  const index_t col_blocks = (cols + col_width - 1) / col_width;
  auto block = [&](index_t item) {
    const index_t r = item / col_blocks * block_rows, j = item % col_blocks * col_width;
    const index_t n_rows = std::min(block_rows, rows - r), n_cols = std::min(col_width, cols - j);
    const LeftOperand<DType> a_rows = a.FromRow(r);
    if (a.transposed) {
      MultiplyBlock<true>(n_rows, depth, n_cols, a_rows, b.FromColumn(j), c + r * ldc + j, ldc,
                          start.FromRow(r), stores);
    } else {
      MultiplyBlock<false>(n_rows, depth, n_cols, a_rows, b.FromColumn(j), c + r * ldc + j, ldc,
                           start.FromRow(r), stores);
    }
  };
  const index_t items = row_blocks * col_blocks;
  const index_t work = rows * cols * std::max<index_t>(depth, 1);
  const int threads = static_cast<int>(
      std::min<index_t>({mshadow::GetNumThreads(), work / kMultiplyAddsPerThread, items}));
  if (threads <= 1) {
    for (index_t item = 0; item < items; ++item) block(item);
  } else {
    mshadow::ParallelFor(items, threads, block);  // which fences its workers' stores
  }
  if (stores == Stores::kStreaming) mshadow::FenceStreamingStores();
}

// c = a * b, or c += a * b where `accumulate`.
template <typename DType>
void TiledGemm(index_t rows, index_t depth, index_t cols, LeftOperand<DType> a,
               const RightOperand<DType>& b, DType* c, index_t ldc, bool accumulate) {
  TiledGemm(rows, depth, cols, a, b, c, ldc, Start<DType>{accumulate, nullptr});
}

// The same with b's rows ldb apart.
template <typename DType>
void TiledGemm(index_t rows, index_t depth, index_t cols, LeftOperand<DType> a, const DType* b,
               index_t ldb, DType* c, index_t ldc, bool accumulate) {
  TiledGemm(rows, depth, cols, a, RightOperand<DType>{b, ldb}, c, ldc, accumulate);
}

}  // namespace register_gemm
}  // namespace ops

#endif  // OPS_REGISTER_GEMM_H_
