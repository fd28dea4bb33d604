// ops/tap_gradient.h: the CPU's weight gradient of a 1-d, 2-d or 3-d convolution without a column
// matrix. dw[f][c][k] is the sum over the batch and the output positions o of og[f][o] times the
// input element tap k of channel c sees at o. Per image the input is zero-padded (PadInput; read in
// place where there is no padding) and the output gradient transposed a strip of filters at a time
// (StripsOfOutputGradient); register tiles of kTileRows (channel, tap) rows by a strip of filters
// then run over the output positions, each position loading a strip of the output gradient and
// broadcasting one input element per row, read in place from the padded input at that row's offset
// (as ops/position_tiles.h reads a forward's taps). A tile's rows are channels at one tap
// (TilesByTap), and it covers only the outputs whose input at that tap is not padding. Any stride
// and dilation: a row's elements are broadcast one at a time, wherever they lie; a 3-d layer a
// slice of output depth at a time, its rows' offsets reaching across the input's depth. The sums
// stay transposed (a row a (channel, tap), filters consecutive) until the batch is summed
// (column_chunks::AddSums).
//
//   const TapLayer l = TapLayerOf(g, groups, filters);   // filters per group: whole strips
//   const std::vector<index_t> offsets = TileOffsets(l);  // once
//   PadInput(l, image, padded);                           // per image
//   AddImageGradient(l, padded_group, offsets, og_strips, sums);  // per image and group
//   WeightGradient(l, threads, batch, data, og, req, dw, space);  // all of it, on threads
#ifndef OPS_TAP_GRADIENT_H_
#define OPS_TAP_GRADIENT_H_

#include <algorithm>
#include <cstring>
#include <vector>

#include "mshadow/base.h"
#include "mshadow/tensor.h"
#include "ops/column_chunks.h"
#include "ops/conv_geometry.h"
#include "ops/op_types.h"
#include "ops/register_gemm.h"
#include "ops/transpose_block.h"
#include "ops/vector_loop.h"

namespace ops {
namespace tap_gradient {

// Filters of a tile: a strip of the products' width (two packets).
template <typename DType>
constexpr index_t kFilterStrip = register_gemm::kStripWidth<DType>;

// One group of a 1-d, 2-d or 3-d layer (a 1-d layer's rows axis and a 1-d or 2-d layer's
// depth axis are unit ones). Each channel of the padded input is a volume of padded planes.
struct TapLayer {
  index_t channels = 0, filters = 0, groups = 1;  // channels and filters per group
  index_t kd = 1, kh = 1, kw = 1, sz = 1, sy = 1, sx = 1, dz = 1, dy = 1, dx = 1;
  index_t in_d = 1, in_h = 1, in_w = 1, pad_d = 0, pad_h = 0, pad_w = 0;
  index_t out_d = 1, out_h = 1, out_w = 1;

  index_t Taps() const { return kd * kh * kw; }
  index_t Rows() const { return channels * Taps(); }  // of a group's sums
  index_t Pitch() const { return in_w + 2 * pad_w; }
  index_t Plane() const { return (in_h + 2 * pad_h) * Pitch(); }
  index_t Volume() const { return (in_d + 2 * pad_d) * Plane(); }  // a padded channel
  index_t InSize() const { return in_d * in_h * in_w; }
  index_t OutPlane() const { return out_h * out_w; }
  index_t OutSize() const { return out_d * OutPlane(); }
};

// Whether the tiles serve convolution g with `filters_per_group`: 1 to 3 spatial axes and
// whole strips of filters.
template <typename DType>
bool Serves(const ConvGeometry& g, index_t filters_per_group) {
  return g.ndim <= 3 && filters_per_group % kFilterStrip<DType> == 0;
}

inline TapLayer TapLayerOf(const ConvGeometry& g, index_t groups, index_t filters) {
  TapLayer l;
  l.channels = g.channels / groups;
  l.filters = filters / groups;
  l.groups = groups;
  const int w = g.ndim - 1;
  l.kw = g.kernel[w], l.sx = g.stride[w], l.dx = g.dilate[w];
  l.in_w = g.in[w], l.pad_w = g.pad[w], l.out_w = g.out[w];
  if (g.ndim >= 2) {
    const int h = g.ndim - 2;
    l.kh = g.kernel[h], l.sy = g.stride[h], l.dy = g.dilate[h];
    l.in_h = g.in[h], l.pad_h = g.pad[h], l.out_h = g.out[h];
  }
  if (g.ndim == 3) {
    l.kd = g.kernel[0], l.sz = g.stride[0], l.dz = g.dilate[0];
    l.in_d = g.in[0], l.pad_d = g.pad[0], l.out_d = g.out[0];
  }
  return l;
}

// Per row (c, tap) of a group's sums, where it starts in the group's padded input.
inline std::vector<index_t> RowOffsets(const TapLayer& l) {
  std::vector<index_t> offsets;
  for (index_t c = 0; c < l.channels; ++c) {
    for (index_t kz = 0; kz < l.kd; ++kz) {
      for (index_t ky = 0; ky < l.kh; ++ky) {
        for (index_t kx = 0; kx < l.kw; ++kx) {
          offsets.push_back(c * l.Volume() + kz * l.dz * l.Plane() + ky * l.dy * l.Pitch() +
                            kx * l.dx);
        }
      }
    }
  }
  return offsets;
}

// padded (groups * channels volumes of Volume()) = the image (groups * channels, in...) with
// pad zeros around each plane and pad_d zero planes before and after each channel's. With
// `interleave` > 1 (a divisor of the channels) the channels are interleaved by blocks of that
// many (ops/position_tiles.h's Layer::column_elements): block b's volume holds, per padded
// position, its channels' elements consecutively.
template <typename DType>
void PadInput(const TapLayer& l, const DType* image, DType* padded, index_t interleave = 1) {
  const index_t channels = l.groups * l.channels, pitch = l.Pitch(), plane = l.Plane();
  std::fill(padded, padded + channels * l.Volume(), DType(0));
  if (interleave > 1) {
    const index_t in_volume = l.InSize();
    for (index_t b = 0; b < channels / interleave; ++b) {
      for (index_t z = 0; z < l.in_d; ++z) {
        const index_t first = (z + l.pad_d) * plane + l.pad_h * pitch + l.pad_w;
        DType* to = padded + (b * l.Volume() + first) * interleave;
        const DType* from = image + (b * interleave * l.in_d + z) * l.in_h * l.in_w;
        for (index_t i = 0; i < l.in_h; ++i) {
          transpose::TransposeBlock<false, false>(from + i * l.in_w, in_volume,
                                                  to + i * pitch * interleave, interleave,
                                                  interleave, l.in_w);
        }
      }
    }
    return;
  }
  for (index_t c = 0; c < channels; ++c) {
    for (index_t z = 0; z < l.in_d; ++z) {
      DType* to = padded + c * l.Volume() + (z + l.pad_d) * plane + l.pad_h * pitch + l.pad_w;
      const DType* from = image + (c * l.in_d + z) * l.in_h * l.in_w;
      for (index_t i = 0; i < l.in_h; ++i) {
        std::memcpy(to + i * pitch, from + i * l.in_w, static_cast<size_t>(l.in_w) * sizeof(DType));
      }
    }
  }
}

// sums (kRows rows sums_ld apart, a strip of filters each) += the tile's products over output
// rows [oy0, oy1) and columns [ox0, ox1): row i's input element of output (oy, ox) at
// padded[offsets[i] + oy * sy * pitch + ox * sx], the strip of og_t (positions og_ld apart) at
// og_t[(oy * out_w + ox) * og_ld].
template <int kRows, typename DType>
MSHADOW_CINLINE void GradientTile(const TapLayer& l, const DType* padded, const index_t* offsets,
                                  const DType* og_t, index_t og_ld, index_t oy0, index_t oy1,
                                  index_t ox0, index_t ox1, DType* sums, index_t sums_ld) {
  using P = vec::Full<DType>;
  constexpr int kPackets = kFilterStrip<DType> / P::kSize;
  P acc[kRows][kPackets];
  const DType* rows[kRows];
  OPS_UNROLL_FULLY
  for (int i = 0; i < kRows; ++i) {
    rows[i] = padded + offsets[i];
    OPS_UNROLL_FULLY
    for (int j = 0; j < kPackets; ++j) acc[i][j] = P::LoadUnAligned(sums + i * sums_ld + j * P::kSize);
  }
  const index_t pitch = l.Pitch();
  for (index_t oy = oy0; oy < oy1; ++oy) {
    const DType* g = og_t + oy * l.out_w * og_ld;
    const index_t row_start = oy * l.sy * pitch;
    OPS_UNROLL_4
    for (index_t ox = ox0; ox < ox1; ++ox) {
      P w[kPackets];
      OPS_UNROLL_FULLY
      for (int j = 0; j < kPackets; ++j) w[j] = P::LoadUnAligned(g + ox * og_ld + j * P::kSize);
      const index_t at = row_start + ox * l.sx;
      OPS_UNROLL_FULLY
      for (int i = 0; i < kRows; ++i) {
        const P xi = P::Fill(rows[i][at]);
        OPS_UNROLL_FULLY
        for (int j = 0; j < kPackets; ++j) acc[i][j] = register_gemm::MultiplyAdd(xi, w[j], acc[i][j]);
      }
    }
  }
  OPS_UNROLL_FULLY
  for (int i = 0; i < kRows; ++i) {
    OPS_UNROLL_FULLY
    for (int j = 0; j < kPackets; ++j) acc[i][j].StoreUnAligned(sums + i * sums_ld + j * P::kSize);
  }
}

// GradientTile of `rows` (1 to kTileRows) rows.
template <int kRows = 1, typename DType>
MSHADOW_CINLINE void GradientTileOf(index_t rows, const TapLayer& l, const DType* padded,
                                    const index_t* offsets, const DType* og_t, index_t og_ld,
                                    index_t oy0, index_t oy1, index_t ox0, index_t ox1, DType* sums,
                                    index_t sums_ld) {
  if constexpr (kRows <= register_gemm::kTileRows) {
    if (rows != kRows) {
      return GradientTileOf<kRows + 1>(rows, l, padded, offsets, og_t, og_ld, oy0, oy1, ox0, ox1,
                                       sums, sums_ld);
    }
    GradientTile<kRows>(l, padded, offsets, og_t, og_ld, oy0, oy1, ox0, ox1, sums, sums_ld);
  }
}

// Whether a tile takes channels at one tap, covering only the outputs whose input at that tap
// is not padding (pad rows, columns and slices multiply zeros), or, where the channels are
// fewer than a tile's rows, consecutive (channel, tap) rows over every output (a tile of a
// few rows would wait on its accumulators' latency).
inline bool TilesByTap(const TapLayer& l) { return l.channels >= register_gemm::kTileRows; }

// The row offsets in the tiles' order: RowOffsets(l), tap by tap (entry t * channels + c is
// row c * taps + t's) where TilesByTap.
inline std::vector<index_t> TileOffsets(const TapLayer& l) {
  const std::vector<index_t> offsets = RowOffsets(l);
  if (!TilesByTap(l)) return offsets;
  const index_t taps = l.Taps();
  std::vector<index_t> by_tap(offsets.size());
  for (index_t c = 0; c < l.channels; ++c) {
    for (index_t t = 0; t < taps; ++t) by_tap[t * l.channels + c] = offsets[c * taps + t];
  }
  return by_tap;
}

// sums (Rows() x filters) += one image's gradient for one group: `padded` the group's padded
// input (PadInput), `offsets` TileOffsets(l), og_strips its output gradient transposed strip
// by strip (StripsOfOutputGradient). A slice of output depth at a time (its inputs od * sz
// planes on), its output rows a block at a time (about 256 positions), each block through
// every tile, so that a strip's block (32 KiB) stays in the L1 cache. Each block
// passes over all the sums, which outgrow the L2 cache on wide layers (2.25 MiB for a 3x3 layer
// of 256 channels and filters): a 14x14 plane in one block, not two of 128 positions, made
// that layer's backward 1.06-1.1x faster (docs/benchmarks.md, sixty-ninth session).
template <typename DType>
void AddImageGradient(const TapLayer& l, const DType* padded, const index_t* offsets,
                      const DType* og_strips, DType* sums) {
  constexpr index_t kStrip = kFilterStrip<DType>;
  constexpr index_t kTileRows = register_gemm::kTileRows;
  const index_t block_rows = std::max<index_t>(1, 256 / std::max<index_t>(1, l.out_w));
  const index_t taps = l.Taps(), rows = l.Rows();
  // Per tap, the output rows [y0, y1) and columns [x0, x1) whose input there is not padding
  // (the same for every slice, block and tile).
  struct TapOutputs {
    index_t y0, y1, x0, x1;
  };
  std::vector<TapOutputs> tap_outputs(TilesByTap(l) ? taps : 0);
  for (index_t t = 0; t < static_cast<index_t>(tap_outputs.size()); ++t) {
    const index_t ky = t / l.kw % l.kh, kx = t % l.kw;
    TapOutputs& o = tap_outputs[t];
    PositionsReadingInput(ky * l.dy - l.pad_h, l.sy, l.out_h, l.in_h, &o.y0, &o.y1);
    PositionsReadingInput(kx * l.dx - l.pad_w, l.sx, l.out_w, l.in_w, &o.x0, &o.x1);
  }
  for (index_t od = 0; od < l.out_d; ++od) {
    const DType* slice = padded + od * l.sz * l.Plane();
    const DType* og_slice = og_strips + od * l.OutPlane() * kStrip;
    for (index_t oy0 = 0; oy0 < l.out_h; oy0 += block_rows) {
      const index_t oy1 = std::min(l.out_h, oy0 + block_rows);
      for (index_t s = 0; s < l.filters; s += kStrip) {
        if (!TilesByTap(l)) {
          for (index_t r = 0; r < rows; r += kTileRows) {
            GradientTileOf(std::min(kTileRows, rows - r), l, slice, offsets + r,
                           og_slice + s * l.OutSize(), kStrip, oy0, oy1, 0, l.out_w,
                           sums + r * l.filters + s, l.filters);
          }
          continue;
        }
        // A group of channels through every tap, so that their input rows stay in the L1 cache.
        for (index_t c = 0; c < l.channels; c += kTileRows) {
          const index_t tile_rows = std::min(kTileRows, l.channels - c);
          for (index_t t = 0; t < taps; ++t) {
            // The outputs of this block whose input at tap t is not padding, on each axis.
            const index_t z = od * l.sz + t / (l.kh * l.kw) * l.dz - l.pad_d;
            const TapOutputs& o = tap_outputs[t];
            const index_t y0 = std::max(o.y0, oy0), y1 = std::min(o.y1, oy1);
            if (z < 0 || z >= l.in_d || y0 >= y1 || o.x0 == o.x1) continue;
            GradientTileOf(tile_rows, l, slice, offsets + t * l.channels + c,
                           og_slice + s * l.OutSize(), kStrip, y0, y1, o.x0, o.x1,
                           sums + (c * taps + t) * l.filters + s, taps * l.filters);
          }
        }
      }
    }
  }
}

// The strips of kFilterStrip filters of one group's output gradient (filters x OutSize()),
// each transposed to OutSize() x kFilterStrip, one after the other: a tile's block of
// positions is then consecutive. Transposed whole (positions `filters` apart), a block's
// positions are 1 KiB apart for 256 filters and fall into a few sets of the L1 cache.
template <typename DType>
void StripsOfOutputGradient(const TapLayer& l, const DType* og, DType* strips) {
  constexpr index_t kStrip = kFilterStrip<DType>;
  for (index_t s = 0; s < l.filters; s += kStrip) {
    transpose::Transpose2D<false>(og + s * l.OutSize(), l.OutSize(), strips + s * l.OutSize(),
                                  kStrip, kStrip, l.OutSize());
  }
}

// Scratch for WeightGradient on `threads` threads: per thread a padded image, one group's
// output gradient in strips and the thread's sums.
inline index_t GradientSpace(const TapLayer& l, index_t threads) {
  return threads * (l.groups * l.channels * l.Volume() + l.OutSize() * l.filters +
                    l.groups * l.Rows() * l.filters);
}

// dw (groups * filters, channels * taps), written as `req` says, = the weight gradient of the
// batch data (batch, groups * channels, in...) for og (batch, groups * filters, out...). The
// images go in runs to `threads` threads (BatchThreads'), each summing its own; the sums are
// added in order at the end, so the result does not depend on the thread count. `space` holds
// GradientSpace(l, threads).
template <typename DType>
void WeightGradient(const TapLayer& l, index_t threads, index_t batch, const DType* data,
                    const DType* og, OpReqType req, mshadow::Tensor<mshadow::cpu, 2, DType> dw,
                    DType* space) {
  if (req == kNullOp) return;
  const std::vector<index_t> offsets = TileOffsets(l);
  const index_t per_thread = GradientSpace(l, 1), group_sums = l.Rows() * l.filters;
  const index_t image = l.groups * l.channels * l.InSize();
  const index_t og_image = l.groups * l.filters * l.OutSize();
  const auto sums_of = [&](index_t t) {
    return space + t * per_thread + l.groups * l.channels * l.Volume() + l.OutSize() * l.filters;
  };
  ForEachImageRun(batch, threads, [&](index_t t, index_t begin, index_t end) {
    DType* padded = space + t * per_thread;
    DType* og_strips = padded + l.groups * l.channels * l.Volume();
    DType* sums = sums_of(t);
    std::fill(sums, sums + l.groups * group_sums, DType(0));
    for (index_t n = begin; n < end; ++n) {
      // Without padding the image is its padded input: read in place, not copied (the copy
      // and its zeroing had been 11% of a 14x14 1x1 layer's backward).
      const DType* input = data + n * image;
      if (l.Volume() != l.InSize()) {
        PadInput(l, input, padded);
        input = padded;
      }
      for (index_t grp = 0; grp < l.groups; ++grp) {
        const DType* og_group = og + n * og_image + grp * l.filters * l.OutSize();
        StripsOfOutputGradient(l, og_group, og_strips);
        AddImageGradient(l, input + grp * l.channels * l.Volume(), offsets.data(), og_strips,
                         sums + grp * group_sums);
      }
    }
  });
  column_chunks::AddSums(l.groups, l.filters, l.Rows(), threads, batch, sums_of, req, dw);
}

}  // namespace tap_gradient
}  // namespace ops

#endif  // OPS_TAP_GRADIENT_H_
