// ops/position_tiles.h: the CPU's stride-1 convolution (one group of it) as register tiles of
// output positions by filters. A tile takes a few consecutive outputs of one row and a strip
// of filters two packets wide; per tap and channel it broadcasts the tile's inputs, read in
// place from the zero-padded input, and multiplies them into the strip's weights, packed
// consecutively. No column matrix is written, no strip of the input copied, no pad column
// computed, and every row of outputs is covered by whole tiles (28 = 14 + 14 on AVX-512).
// The tiles' sums, position by position, are transposed into the output planes at the end.
// The kernel rows (and a 3-d layer's depth taps) that read pad rows (slices) are skipped,
// and so are the taps of a row's edge positions that read pad columns.
//
// A deconvolution's phases (its outputs of one residue on each axis) run together, so that
// whole output planes are transposed.
//
// The layer (a convolution, or one phase of a deconvolution) is read through the row offsets
// deconvolution_phases.h computes: offsets[t * channels + c] is where channel c shifted by
// tap t starts in the padded input, from which output (oy, ox) reads element oy * pitch + ox *
// col_step * column_elements. The padded input may hold its channels interleaved
// (column_elements > 1: each input column's channels of a block consecutive, as oneDNN's
// blocked layouts do): a tile's broadcasts for the channels of a block then come from the same
// few cache lines, where planes apart each channel's took lines of their own.
//
//   Layer layer{filters, channels, taps, out_rows, out_cols, pitch};
//   Pack(layer, taps_matrix, row_offsets, packed, offsets);  // once per call
//   const Phase<float> phase{layer, packed, offsets};        // a convolution: one phase
//   ConvolvePhases<false>(&phase, 1, PhaseGrid{out_rows, out_cols}, padded, bias, y,
//                         out_rows * out_cols, acc, stream);  // per image and group
#ifndef OPS_POSITION_TILES_H_
#define OPS_POSITION_TILES_H_

#include <algorithm>
#include <vector>

#include "mshadow/base.h"
#include "mshadow/parallel.h"
#include "ops/conv_geometry.h"
#include "ops/register_gemm.h"
#include "ops/transpose_block.h"
#include "ops/vector_loop.h"

namespace ops {
namespace position_tiles {

// Filters of a tile: two packets (one register row of accumulators per position).
template <typename DType>
constexpr index_t kFilterStrip = register_gemm::kStripWidth<DType>;
// Positions of a whole tile: its accumulators, the two packets of weights and a broadcast
// fill the vector registers (AVX-512's 32: 28 accumulators; elsewhere register_gemm's rows).
// Fewer, longer tiles pass over the weights and the row offsets fewer times per row.
constexpr int kTilePositions =
    MSHADOW_DEFAULT_PACKET == mshadow::packet::kAVX512 ? 14 : register_gemm::kTileRows;

// How many positions at one edge of a tile a row tap's pad columns reach, as the tiles skip
// them: up to kMaxEdgeSkip (a 7-wide kernel's 3 pad columns) at the left or at the right
// edge. An EdgeSkip of a tile that reaches pads at both edges (an image narrower than a
// tile) skips its longer side only; the other side's products stay (zeros).
constexpr int kMaxEdgeSkip = 3;
struct EdgeSkip {
  int left = 0, right = 0;

  bool None() const { return left == 0 && right == 0; }
  // The skip of a tile's positions [0, positions) at a tap where position i reads input column
  // first + i, of which [0, in) are input.
  static EdgeSkip Of(index_t first, index_t positions, index_t in) {
    index_t begin, end;  // the positions that read input
    PositionsReadingInput(first, 1, positions, in, &begin, &end);
    const index_t left = begin, right = positions - end;
    EdgeSkip skip;
    if (left >= right) {
      skip.left = static_cast<int>(std::min<index_t>(left, kMaxEdgeSkip));
    } else {
      skip.right = static_cast<int>(std::min<index_t>(right, kMaxEdgeSkip));
    }
    return skip;
  }
};

// Channels per block where a padded input interleaves them (Layer::column_elements): a
// column's 8 channels are 32 bytes of floats, a position's broadcasts for a block then come
// from one or two cache lines (4 and 16 ran as fast on an AVX2 core).
constexpr index_t kChannelInterleave = 8;

// One group of a stride-1 layer.
struct Layer {
  index_t filters, channels, taps;  // per group
  index_t rows, cols;               // output extents
  index_t pitch;                    // elements from one output row's inputs to the next's
  index_t col_step = 1;             // input columns from one output's inputs to the next's
  index_t column_elements = 1;      // elements from one input column to the next
  // The taps, row-major: depth_taps x kernel_rows x taps per kernel row (the tap order of
  // the row offsets). Output row oy's kernel row r reads input row row_origin + oy * row_step
  // + r * tap_row_step, and the tiles skip the kernel rows whose input row is padding (outside
  // [0, in_rows)), whose products are zeros (as oneDNN's kernels skip them; on small images,
  // a 5x5 layer's or a 3-d layer's, they are a noticeable part of the products). in_rows = 0:
  // none skipped.
  index_t depth_taps = 1, kernel_rows = 1;
  index_t in_rows = 0, row_origin = 0, row_step = 1, tap_row_step = 1;
  // Likewise output column ox's row tap t reads input column col_origin + ox * col_step + t *
  // tap_col_step: at column step 1, the positions at a tile's edges whose input there is a
  // pad column skip that tap (EdgeSkip; 4.3% of a 5x5 layer's products on 28 x 28). in_cols =
  // 0: none skipped.
  index_t in_cols = 0, col_origin = 0, tap_col_step = 1;

  // Row taps up to which a tile's edge skips are looked for (more: none skipped).
  static constexpr index_t kMaxSkippingRowTaps = 16;

  index_t Depth() const { return taps * channels; }
  // Elements from one output's inputs to the next's in a row.
  index_t ElementStep() const { return col_step * column_elements; }
  index_t OutPlane() const { return rows * cols; }
  index_t RowTaps() const { return taps / (depth_taps * kernel_rows); }
  // The kernel rows [*begin, *end) of output row oy that read input rows.
  void InputKernelRows(index_t oy, index_t* begin, index_t* end) const {
    if (in_rows == 0) {
      *begin = 0, *end = kernel_rows;
    } else {
      PositionsReadingInput(row_origin + oy * row_step, tap_row_step, kernel_rows, in_rows, begin,
                            end);
    }
  }
  // The output columns [*begin, *end) whose every row tap reads an input column (or that
  // skip none): tiles within them take no edge skips, the others TileEdgeSkips.
  void ColumnsWithoutEdgeSkips(index_t* begin, index_t* end) const {
    *begin = 0, *end = cols;
    if (in_cols == 0 || col_step != 1 || taps == 0 || RowTaps() > kMaxSkippingRowTaps) return;
    const index_t reach = (RowTaps() - 1) * tap_col_step;
    *begin = std::max<index_t>(0, -(col_origin + std::min<index_t>(0, reach)));
    *end = std::min<index_t>(cols, in_cols - col_origin - std::max<index_t>(0, reach));
  }
  // The edge skips of the tile of `positions` from output column ox, per row tap (a tile
  // outside ColumnsWithoutEdgeSkips); false where none skips a position.
  bool TileEdgeSkips(index_t ox, index_t positions, EdgeSkip* skips) const {
    bool any = false;
    for (index_t t = 0; t < RowTaps(); ++t) {
      skips[t] = EdgeSkip::Of(col_origin + ox + t * tap_col_step, positions, in_cols);
      any = any || !skips[t].None();
    }
    return any;
  }
  // Channels per block of depth: up to 64, with a strip's weights for one block at most
  // kBlockWeightBytes. Longer blocks load and store the tiles' sums fewer times and split a
  // tile's edge skips into fewer runs. On AVX-512 a block's weights may come from the L2
  // cache, at two loads per 28 multiply-adds: 25- and 27-tap layers ran 3% faster with 64
  // channels a block than with the 8 to 10 whose weights fit the L1 cache (a Zen 4 core,
  // docs/benchmarks.md). With AVX2's 16 registers a tile takes 12 multiply-adds per two
  // loads, and its weights stay in the L1 cache. The channels are shared evenly between the
  // blocks.
  static constexpr index_t kBlockWeightBytes =
      MSHADOW_DEFAULT_PACKET == mshadow::packet::kAVX512 ? 262144 : 32768;
  template <typename DType>
  index_t BlockChannels() const {
    const index_t most =
        std::clamp<index_t>(kBlockWeightBytes / (std::max<index_t>(taps, 1) * kFilterStrip<DType> *
                                                 static_cast<index_t>(sizeof(DType))),
                            1, 64);
    const index_t blocks = (channels + most - 1) / most;
    return (channels + blocks - 1) / blocks;
  }
};

// Channels per column a padded input for layer l's tiles interleaves
// (Layer::column_elements): kChannelInterleave where its channels are whole blocks of them and
// a tile's block of depth holds kMinInterleavedChannels channels or more; 1 (planar)
// otherwise. A planar tile reads a cache line per channel of its block, kernel row and reach
// of a row's taps; interleaved, a block's channels share them. On an AVX2 core the 4x4
// stride-2 Deconvolution's tiles (64 channels a block) ran 1.10-1.17x faster interleaved, a
// 5x5 layer's with 16 channels a block as fast, with 64 a block 1.11x (docs/benchmarks.md,
// thirty-seventh session).
constexpr index_t kMinInterleavedChannels = 32;
template <typename DType>
index_t ChannelInterleave(const Layer& l) {
  return l.channels % kChannelInterleave == 0 && l.BlockChannels<DType>() >= kMinInterleavedChannels
             ? kChannelInterleave
             : 1;
}

// Whether the tiles serve a layer with this many filters per group: whole strips only.
template <typename DType>
bool Serves(index_t filters) {
  return filters % kFilterStrip<DType> == 0;
}

// The tiles' operands from a group's taps (filters x depth, column t * channels + c) and the
// row offsets in the same order: per strip of filters, per block of channels, per tap, per
// channel of the block, the strip's weights (kFilterStrip consecutive elements); the offsets
// (depth long) in the same order of depth.
template <typename DType>
void Pack(const Layer& l, const DType* taps, const index_t* row_offsets, DType* packed,
          index_t* offsets) {
  constexpr index_t kStrip = kFilterStrip<DType>;
  const index_t depth = l.Depth(), block = l.BlockChannels<DType>();
  index_t k = 0;
  for (index_t c0 = 0; c0 < l.channels; c0 += block) {
    for (index_t t = 0; t < l.taps; ++t) {
      for (index_t c = c0; c < std::min(l.channels, c0 + block); ++c, ++k) {
        const index_t from = t * l.channels + c;
        offsets[k] = row_offsets[from];
        for (index_t f = 0; f < l.filters; ++f) {
          packed[(f / kStrip * depth + k) * kStrip + f % kStrip] = taps[f * depth + from];
        }
      }
    }
  }
}

// sum[i] += the products of positions [kLeft, kPositions - kRight) over `depth` taps and
// channels: input x[offsets[k] + i * step] for position i, weights w[k * kFilterStrip...]. The
// positions left out are those whose inputs are pad columns here (zeros).
template <int kLeft, int kRight, int kPositions, int kPackets, typename DType, typename P>
MSHADOW_CINLINE void MultiplyPositions(P (&sum)[kPositions][kPackets], const DType* x,
                                       const index_t* offsets, index_t depth, const DType* w,
                                       index_t step) {
  constexpr index_t kStrip = kFilterStrip<DType>;
  OPS_UNROLL_4
  for (index_t k = 0; k < depth; ++k) {
    const DType* xk = x + offsets[k];
    P wk[kPackets];
    OPS_UNROLL_FULLY
    for (int j = 0; j < kPackets; ++j) wk[j] = P::LoadUnAligned(w + k * kStrip + j * P::kSize);
    OPS_UNROLL_FULLY
    for (int i = kLeft; i < kPositions - kRight; ++i) {
      const P xi = P::Fill(xk[i * step]);
      OPS_UNROLL_FULLY
      for (int j = 0; j < kPackets; ++j)
        sum[i][j] = register_gemm::MultiplyAdd(xi, wk[j], sum[i][j]);
    }
  }
}

// MultiplyPositions with the edge skip of a run of taps (known at run time) as a constant:
// tries skips of kSkip to kMaxEdgeSkip positions at either edge, then none.
template <int kSkip = 1, int kPositions, int kPackets, typename DType, typename P>
MSHADOW_CINLINE void MultiplyPositionsSkipping(EdgeSkip skip, P (&sum)[kPositions][kPackets],
                                               const DType* x, const index_t* offsets,
                                               index_t depth, const DType* w, index_t step) {
  if constexpr (kSkip <= kMaxEdgeSkip) {
    if (skip.left == kSkip) return MultiplyPositions<kSkip, 0>(sum, x, offsets, depth, w, step);
    if (skip.right == kSkip) return MultiplyPositions<0, kSkip>(sum, x, offsets, depth, w, step);
    return MultiplyPositionsSkipping<kSkip + 1>(skip, sum, x, offsets, depth, w, step);
  } else {
    return MultiplyPositions<0, 0>(sum, x, offsets, depth, w, step);
  }
}

// acc (kPositions sums of kFilterStrip, position i's at acc + i * acc_step) = start
// (kFilterStrip long, for every position; null: acc as it is) + the tile's products over
// `depth` taps and channels: input x[offsets[k] + i * step] for position i, weights
// w[k * kFilterStrip...]. kEdgeSkips (column step 1): edge_skips (null: none) are the skips of
// a kernel row's taps (row_taps of them, each `segment` long in depth, repeating from k = 0):
// at a row's edges, the products of pad columns are left out.
template <int kPositions, int kStep, bool kEdgeSkips, typename DType>
MSHADOW_CINLINE void MultiplyTile(const DType* x, const index_t* offsets, index_t depth,
                                  const DType* w, const DType* start, DType* acc, index_t acc_step,
                                  index_t element_step, const EdgeSkip* edge_skips, index_t segment,
                                  index_t row_taps) {
  // A constant step where the layer has one of the common ones: its positions' addresses fold
  // into the loads.
  const index_t step = kStep > 0 ? kStep : element_step;
  using P = vec::Full<DType>;
  constexpr index_t kStrip = kFilterStrip<DType>;
  constexpr int kPackets = kStrip / P::kSize;
  P sum[kPositions][kPackets];
  OPS_UNROLL_FULLY
  for (int i = 0; i < kPositions; ++i) {
    OPS_UNROLL_FULLY
    for (int j = 0; j < kPackets; ++j) {
      sum[i][j] = P::LoadUnAligned(start != nullptr ? start + j * P::kSize
                                                    : acc + i * acc_step + j * P::kSize);
    }
  }
  if (!kEdgeSkips || edge_skips == nullptr) {
    MultiplyPositions<0, 0>(sum, x, offsets, depth, w, step);
  } else if constexpr (kEdgeSkips) {
    for (index_t k = 0, t = 0; k < depth; k += segment, t = t + 1 == row_taps ? 0 : t + 1) {
      MultiplyPositionsSkipping(edge_skips[t], sum, x, offsets + k, segment, w + k * kStrip, step);
    }
  }
  OPS_UNROLL_FULLY
  for (int i = 0; i < kPositions; ++i) {
    OPS_UNROLL_FULLY
    for (int j = 0; j < kPackets; ++j) sum[i][j].StoreUnAligned(acc + i * acc_step + j * P::kSize);
  }
}

// MultiplyTile of `positions` (1 to kTilePositions) positions.
template <int kStep, bool kEdgeSkips, int kPositions = 1, typename DType>
MSHADOW_CINLINE void MultiplyTileOf(index_t positions, const DType* x, const index_t* offsets,
                                    index_t depth, const DType* w, const DType* start, DType* acc,
                                    index_t acc_step, index_t element_step,
                                    const EdgeSkip* edge_skips, index_t segment, index_t row_taps) {
  if constexpr (kPositions <= kTilePositions) {
    if (positions != kPositions) {
      return MultiplyTileOf<kStep, kEdgeSkips, kPositions + 1>(positions, x, offsets, depth, w,
                                                               start, acc, acc_step, element_step,
                                                               edge_skips, segment, row_taps);
    }
    MultiplyTile<kPositions, kStep, kEdgeSkips>(x, offsets, depth, w, start, acc, acc_step,
                                                element_step, edge_skips, segment, row_taps);
  }
}

// Positions of the tile at the start of `left` positions of a row: the fewest tiles that
// cover them, shared evenly (on AVX-512 28 = 14 + 14, 30 = 10 + 10 + 10), so that no tile is
// narrow (a tile of few positions waits on its accumulators' latency).
inline index_t TilePositions(index_t left) {
  const index_t tiles = (left + kTilePositions - 1) / kTilePositions;
  return (left + tiles - 1) / tiles;
}

// One tile of an output row: its first column, its positions and, where it reaches pad
// columns, the edge skips of each row tap (Layer::TileEdgeSkips). The same for every row of a
// phase: planned once per phase (RowTilesOf), not per row and block of depth.
struct RowTile {
  index_t ox, positions;
  bool skips;
  EdgeSkip edge_skips[Layer::kMaxSkippingRowTaps];
};

// The tiles covering a row of layer l (TilePositions' widths).
inline std::vector<RowTile> RowTilesOf(const Layer& l) {
  std::vector<RowTile> tiles;
  index_t inside_begin, inside_end;
  l.ColumnsWithoutEdgeSkips(&inside_begin, &inside_end);
  for (index_t ox = 0, n = 0; ox < l.cols; ox += n) {
    n = TilePositions(l.cols - ox);
    RowTile tile{ox, n, false, {}};
    const bool inside = ox >= inside_begin && ox + n <= inside_end;
    tile.skips = !inside && l.TileEdgeSkips(ox, n, tile.edge_skips);
    tiles.push_back(tile);
  }
  return tiles;
}

// Output rows a strip of filters takes through all its phases and blocks of depth before the
// next rows: as many as read at most kBandInputBytes of input (a padded row per channel and
// depth tap each), so that a band's input stays in the L2 cache while each phase and block
// reads it. A whole image at a time, the (16,128,28,28) 4x4 stride-2 Deconvolution's 460 KiB
// of padded input had gone back to the L3 cache between its phases; bands ran 1.06-1.12x
// faster there, the 128-filter 5x5 Convolution's unchanged (docs/benchmarks.md,
// thirty-fourth session).
constexpr index_t kBandInputBytes = 65536;
template <typename DType>
index_t BandRows(const Layer& l) {
  const index_t row_bytes =
      l.channels * l.depth_taps * l.pitch / l.column_elements * static_cast<index_t>(sizeof(DType));
  return std::max<index_t>(1, kBandInputBytes / std::max<index_t>(row_bytes, 1));
}

// Where a layer's phases put their outputs: an output of `rows` x `cols`, each phase's outputs
// `row_stride` rows and `col_stride` columns apart (a deconvolution's strides; a convolution's
// one phase has strides 1).
struct PhaseGrid {
  index_t rows, cols;
  index_t row_stride = 1, col_stride = 1;

  index_t Plane() const { return rows * cols; }
};

// One phase of a layer strided along its output (a deconvolution's, in
// ops/deconvolution_phases.h): a stride-1 layer, with Pack's operands, whose output (i, j) is
// output (first_row + i * row_stride, first_col + j * col_stride) of the grid. A convolution
// is one phase at (0, 0).
template <typename DType>
struct Phase {
  Layer layer;
  const DType* packed;
  const index_t* offsets;
  index_t first_row = 0, first_col = 0;
  // The depth taps that read input slices (of a 3-d layer's slice of output depth); the
  // others are skipped.
  index_t depth_begin = 0, depth_end = layer.depth_taps;
};

// The runs of a block of depth (`block_channels` channels of every tap) that output row oy of
// layer l multiplies: fn(begin, end) per run of its depth, whole kernel rows that read input.
// Runs of consecutive depth taps merge where every kernel row reads input.
template <typename DType, typename Fn>
MSHADOW_CINLINE void ForEachInputRun(const Phase<DType>& phase, index_t oy, index_t block_channels,
                                     Fn&& fn) {
  const Layer& l = phase.layer;
  if (l.taps == 0) return;
  index_t row_begin, row_end;
  l.InputKernelRows(oy, &row_begin, &row_end);
  if (row_begin == row_end || phase.depth_begin >= phase.depth_end) return;
  const index_t row_depth = l.RowTaps() * block_channels;  // one kernel row's
  if (row_begin == 0 && row_end == l.kernel_rows) {
    return fn(phase.depth_begin * l.kernel_rows * row_depth,
              phase.depth_end * l.kernel_rows * row_depth);
  }
  for (index_t d = phase.depth_begin; d < phase.depth_end; ++d) {
    fn((d * l.kernel_rows + row_begin) * row_depth, (d * l.kernel_rows + row_end) * row_depth);
  }
}

// One group of one image: y = bias (may be null) + the phases (`count` of them, all of the
// same filters, together covering the grid) over the padded input, or y += that (kAdd);
// output (f, oy, ox) at y[f * y_plane + oy * grid.cols + ox]. `acc` (filters x grid.Plane())
// is scratch for the tiles' sums: each phase writes its positions among the others', so that
// the sums are transposed into y once, as whole output planes (the stores of a transpose per
// phase had left lines half-written, and one pass per phase over the output had been a pass
// over the whole output each). stream_output: y written through streaming stores (where
// transpose::StreamsTransposeOf the operator's whole output), fenced before returning. The
// strips of filters (`strips`, a range of them: a part of the image's work; default all) go
// to the library's threads (run on the caller when already inside a ParallelFor); each takes
// bands of BandRows() rows of every phase at a time.
struct StripRange {
  index_t begin = 0, end = -1;  // end -1: to the last strip
};
template <bool kAdd, typename DType>
void ConvolvePhases(const Phase<DType>* phases, index_t count, const PhaseGrid& grid,
                    const DType* padded, const DType* bias, DType* y, index_t y_plane, DType* acc,
                    bool stream_output, StripRange strips = {}) {
  constexpr index_t kStrip = kFilterStrip<DType>;
  const index_t out_plane = grid.Plane(), acc_step = grid.col_stride * kStrip;
  if (strips.end < 0) strips.end = phases[0].layer.filters / kStrip;
  std::vector<std::vector<RowTile>> row_tiles(count);  // the same for every strip
  index_t max_rows = 0;
  for (index_t q = 0; q < count; ++q) {
    row_tiles[q] = RowTilesOf(phases[q].layer);
    max_rows = std::max(max_rows, phases[q].layer.rows);
  }
  const index_t band = BandRows<DType>(phases[0].layer);
  mshadow::ParallelFor(strips.end - strips.begin, mshadow::GetNumThreads(), [&](index_t i) {
    const index_t s = strips.begin + i;
    DType* acc_s = acc + s * out_plane * kStrip;
    DType start[kStrip];
    for (index_t f = 0; f < kStrip; ++f)
      start[f] = bias == nullptr ? DType(0) : bias[s * kStrip + f];
    for (index_t first_row = 0; first_row < max_rows; first_row += band) {
      for (index_t q = 0; q < count; ++q) {
        const Layer& l = phases[q].layer;
        const index_t step = l.ElementStep();
        const index_t depth = l.Depth();
        const index_t block_depth = std::max<index_t>(1, l.BlockChannels<DType>() * l.taps);
        const DType* w_s = phases[q].packed + s * depth * kStrip;
        DType* acc_q = acc_s + (phases[q].first_row * grid.cols + phases[q].first_col) * kStrip;
        // At least one block: a phase without taps (a deconvolution's residue past its kernel)
        // is its bias.
        for (index_t k0 = 0; k0 < depth || k0 == 0; k0 += block_depth) {
          const index_t k_len = std::min(block_depth, depth - k0);
          const index_t* offsets = phases[q].offsets + k0;
          const DType* w = w_s + k0 * kStrip;
          const index_t block_channels = l.taps == 0 ? 0 : k_len / l.taps;
          for (index_t oy = first_row; oy < std::min(l.rows, first_row + band); ++oy) {
            DType* acc_row = acc_q + oy * grid.row_stride * grid.cols * kStrip;
            for (const RowTile& tile : row_tiles[q]) {
              const index_t n = tile.positions;
              const DType* x = padded + oy * l.pitch + tile.ox * step;
              DType* sums = acc_row + tile.ox * acc_step;
              // The first block starts the sums from the bias, even where no tap reads input.
              const DType* first = k0 == 0 ? start : nullptr;
              const EdgeSkip* skips = tile.skips ? tile.edge_skips : nullptr;
              const index_t row_taps = skips == nullptr ? 0 : l.RowTaps();
              auto run = [&](index_t begin, index_t end) {
                const index_t* o = offsets + begin;
                const DType* w_run = w + begin * kStrip;
                const index_t len = end - begin;
                if (step == 1) {
                  MultiplyTileOf<1, true>(n, x, o, len, w_run, first, sums, acc_step, 1, skips,
                                          block_channels, row_taps);
                } else if (step == kChannelInterleave && l.col_step == 1) {
                  MultiplyTileOf<kChannelInterleave, true>(n, x, o, len, w_run, first, sums,
                                                           acc_step, step, skips, block_channels,
                                                           row_taps);
                } else if (step == 2) {
                  MultiplyTileOf<2, false>(n, x, o, len, w_run, first, sums, acc_step, 2, nullptr,
                                           0, 0);
                } else if (step == 2 * kChannelInterleave) {
                  MultiplyTileOf<2 * kChannelInterleave, false>(n, x, o, len, w_run, first, sums,
                                                                acc_step, step, nullptr, 0, 0);
                } else {
                  MultiplyTileOf<0, false>(n, x, o, len, w_run, first, sums, acc_step, step,
                                           nullptr, 0, 0);
                }
                first = nullptr;
              };
              ForEachInputRun(phases[q], oy, block_channels, run);
              if (first != nullptr) run(0, 0);
            }
          }
        }
      }
    }
    DType* y_s = y + s * kStrip * y_plane;
    if (stream_output) {
      transpose::TransposeBlock<kAdd, true>(acc_s, kStrip, y_s, y_plane, out_plane, kStrip);
    } else {
      // Ordinary stores read each line of y before writing it: a packet of filters' rows at
      // a time (16 on AVX-512) ran 0.5-3.5% faster than the strip's 32 rows at once.
      constexpr index_t kRows = vec::Full<DType>::kSize;
      for (index_t f = 0; f < kStrip; f += kRows) {
        transpose::TransposeBlock<kAdd, false>(acc_s + f, kStrip, y_s + f * y_plane, y_plane,
                                               out_plane, kRows);
      }
    }
  });
  // This thread's streaming stores (ParallelFor fences its workers').
  if (stream_output) mshadow::FenceStreamingStores();
}

}  // namespace position_tiles
}  // namespace ops

#endif  // OPS_POSITION_TILES_H_
