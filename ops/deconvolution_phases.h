// ops/deconvolution_phases.h: the CPU's Deconvolution forward for kernels without dilation, by
// output phase (the sub-pixel decomposition) instead of a column matrix: 1-d and 2-d layers,
// and 3-d layers where the position tiles serve them.
//
// Along an axis, output o receives input i through kernel tap k when o + pad = i * stride + k.
// The outputs of one residue r = (o + pad) mod stride receive only the taps k = r + stride * t
// (t = 0, 1, ...), from inputs i = q - t, where q = (o + pad) div stride. So per phase (a
// residue on each axis) the layer is a stride-1 correlation of the input with that phase's
// taps: one product, the phase's taps (filters x taps * channels) times the input shifted by
// each tap (taps * channels rows). On the input zero-padded and flattened, a shift is an
// offset, so the product reads its rows from the padded input in place through a table of
// row offsets (ops/register_gemm.h's RightOperand); a phase's rows come out as wide as the
// padded rows, of which the first `count` on the last axis are outputs. Then each phase is
// written to every stride-th output with the bias. No column matrix is written, and nothing
// is folded back (col2im had been half of the forward). Where the filters are few (one or two
// strips of them), the phases run instead as tiles of output positions by filters
// (ops/position_tiles.h), over the same row offsets, all phases together so that their sums
// are transposed into the output as whole planes. A 3-d layer runs by tiles only, a slice of
// output depth at a time: a depth residue's taps reach back across the padded input's slices
// through the row offsets, like the taps of the other two axes.
//
// A stride-1 convolution is the stride-1 deconvolution of its kernel flipped (pad kernel - 1 -
// pad): one phase, whose outputs are the layer's, so its product's columns are the outputs
// folded out of the padded rows and it writes the output directly (PlanConvolutionPhases,
// RepackConvolutionWeight; convolution-inl.h says where the CPU prefers it to Winograd).
#ifndef OPS_DECONVOLUTION_PHASES_H_
#define OPS_DECONVOLUTION_PHASES_H_

#include <algorithm>
#include <cstring>
#include <vector>

#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"
#include "ops/conv_geometry.h"
#include "ops/op_types.h"
#include "ops/position_tiles.h"
#include "ops/register_gemm.h"
#include "ops/transpose_block.h"
#include "ops/vector_loop.h"

namespace ops {
namespace deconvolution {

// One residue of one axis: taps kernel[r + stride * t] for t < taps, reaching the outputs
// o = (first + j) * stride + r - pad for j < count, from inputs first + j - t.
struct AxisPhase {
  index_t taps = 0;
  index_t first = 0;
  index_t count = 0;
};

// One spatial axis of the layer (a 1-d or 2-d layer's missing axes are unit ones).
struct PhaseAxis {
  index_t in = 1, out = 1, kernel = 1, stride = 1, pad = 0;
  index_t lead = 0;    // zeros before the input: taps of the longest residue - 1
  index_t padded = 1;  // the padded input's extent

  AxisPhase Phase(index_t r) const {
    AxisPhase p;
    p.taps = r < kernel ? (kernel - r + stride - 1) / stride : 0;
    p.first = pad > r ? (pad - r + stride - 1) / stride : 0;
    const index_t last_plus = out - 1 + pad - r;  // (last output + pad - r), if any
    p.count = last_plus < 0 ? 0 : std::max<index_t>(0, last_plus / stride + 1 - p.first);
    return p;
  }

  void Plan() {
    lead = (kernel + stride - 1) / stride - 1;
    padded = in + lead;
    for (index_t r = 0; r < stride; ++r) {
      const AxisPhase p = Phase(r);
      padded = std::max(padded, p.first + p.count + lead);
    }
  }
};

// Where a layer's phases run faster as position tiles than as products per phase, as
// measured on AVX-512 and on AVX2 (docs/benchmarks.md, sixteenth and thirty-third sessions):
// up to 128 filters per group, from two taps per phase on average (3x3 kernels of stride 2,
// 3x1 and 5x5 of stride 1, 4x4 of stride 2, 32 to 128 filters), as UsesPositionTiles says.
constexpr index_t kMaxTileFilters = 128;
constexpr index_t kMinTileTapsPerPhase = 2;

// The layer as three axes (depth, rows, columns) and the sizes of its buffers.
struct PhasePlan {
  PhaseAxis depth, rows, cols;
  index_t channels = 0;  // data channels per group
  index_t filters = 0;   // output channels per group
  index_t groups = 1;

  // A phase's product has its columns rounded up to whole packets of every width (16
  // floats, AVX-512's), so that none is left to the product's element-by-element tail.
  static constexpr index_t kColumnQuantum = 16;

  // Columns of the product of a phase with `count` output rows.
  index_t PhaseColumns(index_t count) const {
    return (count * cols.padded + kColumnQuantum - 1) / kColumnQuantum * kColumnQuantum;
  }
  // A channel of the padded image, with an extra row and kColumnQuantum elements: a phase's
  // last wide row, rounded up, reads past the padded rows. Whole quanta, so that each channel
  // starts where the first does within a cache line, and a product's strips read in place (a
  // 1x1 layer's) load whole lines.
  index_t PaddedPlane() const {
    const index_t elements = (rows.padded + 1) * cols.padded + kColumnQuantum;
    return (elements + kColumnQuantum - 1) / kColumnQuantum * kColumnQuantum;
  }
  // A channel of the padded input: its padded slices of depth.
  index_t PaddedVolume() const { return depth.padded * PaddedPlane(); }
  index_t PaddedImage() const { return channels * groups * PaddedVolume(); }
  index_t PhaseOutputs() const {
    index_t most = 0;
    for (index_t r = 0; r < rows.stride; ++r) most = std::max(most, rows.Phase(r).count);
    return filters * PhaseColumns(most);
  }
  index_t Taps() const { return depth.kernel * rows.kernel * cols.kernel; }
  index_t Phases() const { return depth.stride * rows.stride * cols.stride; }
  index_t OutPlane() const { return rows.out * cols.out; }
  index_t WeightSize() const { return groups * Taps() * filters * channels; }
  // Stride 1 on every axis: one phase, whose outputs are the layer's, in order.
  bool SinglePhase() const { return Phases() == 1; }
  // Whether the phases run as tiles of output positions by filters (ops/position_tiles.h):
  // filters per group in whole strips, up to kMaxTileFilters, and kMinTileTapsPerPhase taps
  // per phase or more. Otherwise as products of the taps over the padded input
  // (MultiplySinglePhase, or TiledGemm per phase), which skip no pad rows and whose phases are
  // interleaved into the output afterwards: on an AVX2 core, 64 and 128 filters ran 1.03-1.26
  // times faster by tiles (5x5 kernels, 4x4 of stride 2, 3x3 of stride 2, 3x1), a 1x1 kernel
  // had run 0.7 times as fast. A layer of one output row (a 1-d convolution) takes the
  // product: the tiles have no pad rows to skip there, and the product writes its long rows
  // in place where the tiles' sums are transposed (32 to 128 filters, kernels of 3 and 5, ran
  // 1.02-1.05 times faster so at 1 thread and 1.05-1.29 at 2 on a Zen 4 core).
  template <typename DType>
  bool UsesPositionTiles() const {
    const bool one_output_row = SinglePhase() && depth.out == 1 && rows.out == 1;
    return position_tiles::Serves<DType>(filters) && filters <= kMaxTileFilters &&
           Taps() >= kMinTileTapsPerPhase * Phases() && !one_output_row;
  }
  // Channels the padded image interleaves per column (PadImage): as
  // position_tiles::ChannelInterleave says for the phase with the most taps (residue 0 on
  // every axis; its blocks of depth have the fewest channels) where the tiles read it; none (1)
  // for the products, which read channels' rows.
  template <typename DType>
  index_t ChannelInterleave() const {
    if (!UsesPositionTiles<DType>()) return 1;
    return position_tiles::ChannelInterleave<DType>(PhaseLayer(0, 0, 0, 1));
  }
  // Phase (rd, ry, rx) of one slice of output depth as a stride-1 layer over the padded input,
  // its channels interleaved by `interleave` (ChannelInterleave). Its output row j reads input
  // row py.first + j - t through its kernel row t, and likewise its column j input column
  // px.first + j - t through its row tap t.
  position_tiles::Layer PhaseLayer(index_t rd, index_t ry, index_t rx, index_t interleave) const {
    const AxisPhase pd = depth.Phase(rd), py = rows.Phase(ry), px = cols.Phase(rx);
    position_tiles::Layer l{filters,  channels, pd.taps * py.taps * px.taps,
                            py.count, px.count, cols.padded * interleave};
    l.column_elements = interleave;
    l.depth_taps = pd.taps, l.kernel_rows = py.taps;
    l.in_rows = rows.in, l.row_origin = py.first, l.row_step = 1, l.tap_row_step = -1;
    l.in_cols = cols.in, l.col_origin = px.first, l.tap_col_step = -1;
    return l;
  }
  // The products of one row residue's column phases before they go to the output (none for
  // a single phase, which writes the output directly).
  index_t RowResidueProducts() const { return SinglePhase() ? 0 : cols.stride * PhaseOutputs(); }
  // Per thread, beside the padded image: the position tiles' sums of a group's output where
  // they serve, RowResidueProducts() otherwise.
  template <typename DType>
  index_t PhaseBuffers() const {
    return UsesPositionTiles<DType>() ? filters * OutPlane() : RowResidueProducts();
  }
};

// fn(rd, ry, rx) for every phase, in the order of RepackTaps' taps.
template <typename Fn>
void ForEachPhase(const PhasePlan& p, Fn&& fn) {
  for (index_t rd = 0; rd < p.depth.stride; ++rd) {
    for (index_t ry = 0; ry < p.rows.stride; ++ry) {
      for (index_t rx = 0; rx < p.cols.stride; ++rx) fn(rd, ry, rx);
    }
  }
}

namespace phases_detail {

// The plan of a layer from `data` extents `in` to `out` (per spatial axis of g).
inline PhasePlan Plan(const ConvGeometry& g, const index_t* in, const index_t* out,
                      const index_t* pad, index_t groups, index_t channels, index_t filters) {
  PhasePlan plan;
  PhaseAxis* axes[3] = {&plan.depth, &plan.rows, &plan.cols};
  for (int a = 0; a < g.ndim; ++a) {
    PhaseAxis& axis = *axes[3 - g.ndim + a];
    axis.in = in[a];
    axis.out = out[a];
    axis.kernel = g.kernel[a];
    axis.stride = g.stride[a];
    axis.pad = pad[a];
  }
  for (PhaseAxis* axis : axes) axis->Plan();
  plan.channels = channels;
  plan.filters = filters;
  plan.groups = groups;
  return plan;
}

// Up to three spatial axes, no dilation, and channels per group enough for products
// (depthwise layers such as bilinear UpSampling's keep the column matrix).
template <typename DType>
bool AxesServe(const ConvGeometry& g, index_t channels_per_group) {
  if (g.ndim > 3 || channels_per_group < vec::Full<DType>::kSize) return false;
  for (int a = 0; a < g.ndim; ++a) {
    if (g.dilate[a] != 1) return false;
  }
  return true;
}

}  // namespace phases_detail

// A deconvolution's plan. g: its Geometry() (the equivalent convolution's: `in` is the
// deconvolution's output, `channels` its filters).
inline PhasePlan PlanPhases(const ConvGeometry& g, index_t groups, index_t channels_per_group) {
  return phases_detail::Plan(g, g.out, g.in, g.pad, groups, channels_per_group,
                             g.channels / groups);
}

// A stride-1 convolution's plan (ConvolutionPhasesServe). g: its geometry, `channels` its
// data's.
inline PhasePlan PlanConvolutionPhases(const ConvGeometry& g, index_t groups, index_t filters) {
  index_t pad[ConvGeometry::kMaxSpatial];
  for (int a = 0; a < g.ndim; ++a) pad[a] = g.kernel[a] - 1 - g.pad[a];
  return phases_detail::Plan(g, g.in, g.out, pad, groups, g.channels / groups, filters / groups);
}

// Whether the phase forward serves deconvolution g (its Geometry()) on the CPU: no dilation,
// channels per group enough for products, and a 3-d layer only where the position tiles
// serve it (its phases have no products per phase).
template <typename DType>
bool PhasesServe(const ConvGeometry& g, index_t groups, index_t channels_per_group) {
  return phases_detail::AxesServe<DType>(g, channels_per_group) &&
         (g.ndim < 3 ||
          PlanPhases(g, groups, channels_per_group).template UsesPositionTiles<DType>());
}

// The same for a stride-1 convolution's forward, 1-d or 2-d (3-d layers take
// ops/tile_convolution.h), with pad below its kernel on every axis.
template <typename DType>
bool ConvolutionPhasesServe(const ConvGeometry& g, index_t channels_per_group) {
  if (g.ndim > 2 || !phases_detail::AxesServe<DType>(g, channels_per_group)) return false;
  for (int a = 0; a < g.ndim; ++a) {
    if (g.stride[a] != 1 || g.pad[a] >= g.kernel[a]) return false;
  }
  return true;
}

// The taps in product order: per group, per phase (ForEachPhase's order), a (filters x phase
// taps * channels) matrix, column t * channels + c for the phase's tap t (depth first, columns
// last) and channel c: each phase's products are one product over all its taps.
// weight_at(group, filter, channel, k) reads the layer's weight at kernel tap k, (kd * kh +
// ky) * kw + kx.
template <typename DType, typename WeightAt>
void RepackTaps(const PhasePlan& p, WeightAt weight_at, DType* taps) {
  DType* to = taps;
  for (index_t grp = 0; grp < p.groups; ++grp) {
    ForEachPhase(p, [&](index_t rd, index_t ry, index_t rx) {
      const index_t td_n = p.depth.Phase(rd).taps, ty_n = p.rows.Phase(ry).taps;
      const index_t tx_n = p.cols.Phase(rx).taps, phase_taps = td_n * ty_n * tx_n;
      const index_t depth = phase_taps * p.channels;
      for (index_t f = 0; f < p.filters; ++f) {
        for (index_t t = 0; t < phase_taps; ++t) {
          const index_t kd = rd + p.depth.stride * (t / (ty_n * tx_n));
          const index_t ky = ry + p.rows.stride * (t / tx_n % ty_n);
          const index_t kx = rx + p.cols.stride * (t % tx_n);
          const index_t k = (kd * p.rows.kernel + ky) * p.cols.kernel + kx;
          for (index_t c = 0; c < p.channels; ++c) {
            to[f * depth + t * p.channels + c] = weight_at(grp, f, c, k);
          }
        }
      }
      to += p.filters * depth;
    });
  }
}

// A deconvolution's weight (channels, filters per group, kernel...) as RepackTaps' taps.
template <typename DType>
void RepackDeconvolutionWeight(const PhasePlan& p, const DType* weight, DType* taps) {
  const index_t n_taps = p.Taps();
  RepackTaps(
      p,
      [&](index_t grp, index_t f, index_t c, index_t k) {
        return weight[((grp * p.channels + c) * p.filters + f) * n_taps + k];
      },
      taps);
}

// A convolution's weight (filters, channels per group, kernel...) as the same taps: the
// kernel flipped on every axis.
template <typename DType>
void RepackConvolutionWeight(const PhasePlan& p, const DType* weight, DType* taps) {
  const index_t n_taps = p.Taps();
  RepackTaps(
      p,
      [&](index_t grp, index_t f, index_t c, index_t k) {
        return weight[((grp * p.filters + f) * p.channels + c) * n_taps + n_taps - 1 - k];
      },
      taps);
}

// Per phase (in RepackTaps' order) and row t * channels + c of its product's right operand,
// where that row starts in a group's padded input, its channels interleaved by `interleave`
// (PadImage): channel c shifted by tap t. Phase output (j, i) of its first slice of depth
// reads padded input (first + j - t + lead) on each axis; its next slices lie a padded plane
// further each.
inline std::vector<index_t> PhaseRowOffsets(const PhasePlan& p, index_t interleave) {
  std::vector<index_t> offsets;
  const index_t width = p.cols.padded, plane = p.PaddedPlane();
  const index_t block = interleave * p.PaddedVolume();  // a block of channels
  ForEachPhase(p, [&](index_t rd, index_t ry, index_t rx) {
    const AxisPhase pd = p.depth.Phase(rd), py = p.rows.Phase(ry), px = p.cols.Phase(rx);
    for (index_t td = 0; td < pd.taps; ++td) {
      for (index_t ty = 0; ty < py.taps; ++ty) {
        for (index_t tx = 0; tx < px.taps; ++tx) {
          const index_t shift = (pd.first - td + p.depth.lead) * plane +
                                (py.first - ty + p.rows.lead) * width + px.first - tx + p.cols.lead;
          for (index_t c = 0; c < p.channels; ++c) {
            offsets.push_back(c / interleave * block + shift * interleave + c % interleave);
          }
        }
      }
    }
  });
  return offsets;
}

// Output row `to` (cols.out long) of a layer whose column stride is 2, from the rows of its
// two column phases: output 2m + q is element m of residue (q + pad) mod 2's row (each
// residue's first output is the first of the row with that parity). Written as pairs, which
// the compiler vectorizes into interleaving shuffles and whole-packet stores (one output
// element at a time had been 11% of the forward: every phase went over the whole image).
template <bool kAdd, typename DType>
MSHADOW_CINLINE void InterleaveColumnPhases(const PhasePlan& p, const DType* const* phase_rows,
                                            DType bias, DType* to) {
  const DType* even = phase_rows[p.cols.pad % 2];
  const DType* odd = phase_rows[(p.cols.pad + 1) % 2];
  const index_t pairs = p.cols.out / 2;
  OPS_SIMD_LOOP
  for (index_t m = 0; m < pairs; ++m) {
    to[2 * m] = (kAdd ? to[2 * m] : DType(0)) + even[m] + bias;
    to[2 * m + 1] = (kAdd ? to[2 * m + 1] : DType(0)) + odd[m] + bias;
  }
  if (p.cols.out % 2 != 0) {
    DType& last = to[2 * pairs];
    last = (kAdd ? last : DType(0)) + even[pairs] + bias;
  }
}

// PadImage with `interleave` channels a column: each input row of a block's channels is
// transposed into the padded row's columns.
template <typename DType>
void PadImageInterleaved(const PhasePlan& p, index_t interleave, const DType* x, DType* padded) {
  const index_t plane = p.PaddedPlane() * interleave, width = p.cols.padded * interleave;
  const index_t lead = p.cols.lead * interleave, in_plane = p.rows.in * p.cols.in;
  const index_t in_volume = p.depth.in * in_plane, in_row = p.cols.in * interleave;
  const index_t blocks = p.channels * p.groups / interleave;
  for (index_t s = 0; s < blocks * p.depth.padded; ++s) {
    DType* slice = padded + s * plane;
    const index_t b = s / p.depth.padded, z = s % p.depth.padded - p.depth.lead;
    if (z < 0 || z >= p.depth.in) {
      std::fill(slice, slice + plane, DType(0));
      continue;
    }
    const DType* from = x + b * interleave * in_volume + z * in_plane;
    DType* row = slice + p.rows.lead * width;
    std::fill(slice, row, DType(0));
    for (index_t i = 0; i < p.rows.in; ++i, row += width) {
      std::fill(row, row + lead, DType(0));
      transpose::TransposeBlock<false, false>(from + i * p.cols.in, in_volume, row + lead,
                                              interleave, interleave, p.cols.in);
      std::fill(row + lead + in_row, row + width, DType(0));
    }
    std::fill(row, slice + plane, DType(0));
  }
}

// padded (PaddedImage() long) = the image x (channels, in...) zero-padded, its channels
// interleaved as ChannelInterleave says: blocks of channels, each a padded volume of columns
// of the block's channels. Only the pads are zeroed: the input's rows are copied once, not
// written twice.
template <typename DType>
void PadImage(const PhasePlan& p, const DType* x, DType* padded) {
  const index_t interleave = p.ChannelInterleave<DType>();
  if (interleave > 1) return PadImageInterleaved(p, interleave, x, padded);
  const index_t plane = p.PaddedPlane(), width = p.cols.padded;
  const index_t lead = p.cols.lead, in_plane = p.rows.in * p.cols.in;
  for (index_t s = 0; s < p.channels * p.groups * p.depth.padded; ++s) {
    DType* slice = padded + s * plane;
    const index_t c = s / p.depth.padded, z = s % p.depth.padded - p.depth.lead;
    if (z < 0 || z >= p.depth.in) {
      std::fill(slice, slice + plane, DType(0));
      continue;
    }
    const DType* from = x + (c * p.depth.in + z) * in_plane;
    DType* row = slice + p.rows.lead * width;
    std::fill(slice, row, DType(0));
    for (index_t i = 0; i < p.rows.in; ++i, row += width) {
      std::fill(row, row + lead, DType(0));
      std::memcpy(row + lead, from + i * p.cols.in, static_cast<size_t>(p.cols.in) * sizeof(DType));
      std::fill(row + lead + p.cols.in, row + width, DType(0));
    }
    std::fill(row, slice + plane, DType(0));
  }
}

// One image of a layer of stride 1 (SinglePhase): its one phase's outputs are the layer's, in
// order, so the product's columns are the outputs themselves, read from the padded rows
// without their pad columns (RightOperand::Folded), and it writes y directly, its sums
// starting from the bias (the padded columns had been 12% of a 5x5 layer's products, copying
// the phase to the output 5% of its time, and writing the bias to y first 7% of a 1-d
// layer's). 1-d and 2-d layers (3-d ones run by tiles). y written by streaming stores where
// `stream_output` (fenced before it returns).
template <bool kAdd, typename DType>
void MultiplySinglePhase(const PhasePlan& p, const DType* taps, const index_t* row_offsets,
                         const DType* bias, DType* y, const DType* padded, bool stream_output) {
  using register_gemm::Start;
  const index_t out_plane = p.OutPlane(), depth = p.Taps() * p.channels;
  for (index_t grp = 0; grp < p.groups; ++grp) {
    DType* y_group = y + grp * p.filters * out_plane;
    const DType* group_bias = bias == nullptr ? nullptr : bias + grp * p.filters;
    // Adding to y: the bias first, then the product onto it.
    for (index_t f = 0; kAdd && group_bias != nullptr && f < p.filters; ++f) {
      DType* y_plane = y_group + f * out_plane;
      for (index_t i = 0; i < out_plane; ++i) y_plane[i] += group_bias[f];
    }
    const register_gemm::RightOperand<DType> b{padded + grp * p.channels * p.PaddedVolume(), 0,
                                               row_offsets};
    register_gemm::TiledGemm<DType>(
        p.filters, depth, out_plane, {taps + grp * p.filters * depth, depth, false},
        b.Folded(p.cols.out, p.cols.padded), y_group, out_plane,
        kAdd ? Start<DType>::Accumulating() : Start<DType>{false, group_bias},
        stream_output ? register_gemm::Stores::kStreaming : register_gemm::Stores::kCached);
  }
}

// The position tiles' operands of every phase (position_tiles::Pack), at the places of its
// taps and row offsets, and one thread's scratch for a group's sums.
template <typename DType>
struct PhaseTiles {
  const DType* taps = nullptr;
  const index_t* offsets = nullptr;
  DType* sums = nullptr;
};

// tile_taps (WeightSize()) and tile_offsets (as long as row_offsets): every phase's taps and
// row offsets as position_tiles::Pack orders them.
template <typename DType>
void PackPhaseTiles(const PhasePlan& p, const DType* taps, const std::vector<index_t>& row_offsets,
                    DType* tile_taps, std::vector<index_t>* tile_offsets) {
  tile_offsets->resize(row_offsets.size());
  const index_t interleave = p.ChannelInterleave<DType>();
  index_t at_taps = 0;
  for (index_t grp = 0; grp < p.groups; ++grp) {
    index_t at_offsets = 0;
    ForEachPhase(p, [&](index_t rd, index_t ry, index_t rx) {
      const position_tiles::Layer layer = p.PhaseLayer(rd, ry, rx, interleave);
      position_tiles::Pack(layer, taps + at_taps, row_offsets.data() + at_offsets,
                           tile_taps + at_taps, tile_offsets->data() + at_offsets);
      at_taps += layer.filters * layer.Depth();
      at_offsets += layer.Depth();
    });
  }
}

// One image by position tiles (UsesPositionTiles): y (filters, out...) written (or added,
// kAdd) with the bias (may be null) from the image PadImage wrote to `padded`, per group and
// slice of output depth all phases of its depth residue together
// (position_tiles::ConvolvePhases; stream_output as it takes it).
template <bool kAdd, typename DType>
void DeconvolveImageByTiles(const PhasePlan& p, const PhaseTiles<DType>& tiles, const DType* bias,
                            DType* y, const DType* padded, bool stream_output,
                            position_tiles::StripRange strips = {}) {
  const position_tiles::PhaseGrid grid{p.rows.out, p.cols.out, p.rows.stride, p.cols.stride};
  const index_t out_volume = p.depth.out * grid.Plane();
  const index_t interleave = p.ChannelInterleave<DType>();
  // Per depth residue, its phases (the same for every group but for their taps).
  std::vector<std::vector<position_tiles::Phase<DType>>> residues(p.depth.stride);
  const DType* taps = tiles.taps;
  for (index_t grp = 0; grp < p.groups; ++grp) {
    for (auto& phases : residues) phases.clear();
    const index_t* offsets = tiles.offsets;  // the same for every group
    ForEachPhase(p, [&](index_t rd, index_t ry, index_t rx) {
      const position_tiles::Layer layer = p.PhaseLayer(rd, ry, rx, interleave);
      residues[rd].push_back({layer, taps, offsets,
                              p.rows.Phase(ry).first * p.rows.stride + ry - p.rows.pad,
                              p.cols.Phase(rx).first * p.cols.stride + rx - p.cols.pad});
      taps += layer.filters * layer.Depth();
      offsets += layer.Depth();
    });
    const DType* group_bias = bias == nullptr ? bias : bias + grp * p.filters;
    const DType* padded_group = padded + grp * p.channels * p.PaddedVolume();
    DType* y_group = y + grp * p.filters * out_volume;
    for (index_t rd = 0; rd < p.depth.stride; ++rd) {
      const AxisPhase pd = p.depth.Phase(rd);
      auto& phases = residues[rd];
      for (index_t j = 0; j < pd.count; ++j) {
        const index_t od = (pd.first + j) * p.depth.stride + rd - p.depth.pad;
        // Slice j's depth tap t reads input slice pd.first + j - t.
        for (auto& phase : phases) {
          PositionsReadingInput(pd.first + j, -1, pd.taps, p.depth.in, &phase.depth_begin,
                                &phase.depth_end);
        }
        position_tiles::ConvolvePhases<kAdd>(phases.data(), static_cast<index_t>(phases.size()),
                                             grid, padded_group + j * p.PaddedPlane() * interleave,
                                             group_bias, y_group + od * grid.Plane(), out_volume,
                                             tiles.sums, stream_output, strips);
      }
    }
  }
}

// One image of a 1-d or 2-d layer strided on an axis, by products of the taps (TiledGemm): y as
// DeconvolveImageByTiles writes it. `phases` (RowResidueProducts() long) takes the products of
// one row residue's column phases, written to the output together.
template <bool kAdd, typename DType>
void DeconvolveImageByPhases(const PhasePlan& p, const DType* taps, const index_t* row_offsets,
                             const DType* bias, DType* y, const DType* padded, DType* phases) {
  const index_t volume = p.PaddedVolume(), width = p.cols.padded;
  const index_t out_plane = p.OutPlane();
  const index_t phase_size = p.PhaseOutputs();
  // Every column residue has outputs where cols.stride <= cols.out (each residue's first
  // output is then below cols.out).
  const bool pairs = p.cols.stride == 2 && p.cols.out >= 2;
  const DType* phase_taps = taps;
  for (index_t grp = 0; grp < p.groups; ++grp) {
    const index_t* offsets = row_offsets;
    for (index_t ry = 0; ry < p.rows.stride; ++ry) {
      const AxisPhase py = p.rows.Phase(ry);
      const index_t cols = p.PhaseColumns(py.count);
      for (index_t rx = 0; rx < p.cols.stride; ++rx) {
        const AxisPhase px = p.cols.Phase(rx);
        const index_t depth = py.taps * px.taps * p.channels;
        const DType* a = phase_taps;
        phase_taps += p.filters * depth;
        offsets += depth;
        if (py.count == 0 || px.count == 0) continue;
        const DType* padded_group = padded + grp * p.channels * volume;
        register_gemm::TiledGemm<DType>(
            p.filters, depth, cols, {a, depth, false},
            register_gemm::RightOperand<DType>{padded_group, 0, offsets - depth},
            phases + rx * phase_size, cols, false);
      }
      if (py.count == 0) continue;
      for (index_t f = 0; f < p.filters; ++f) {
        const DType b = bias == nullptr ? DType(0) : bias[grp * p.filters + f];
        DType* y_plane = y + (grp * p.filters + f) * out_plane;
        for (index_t j = 0; j < py.count; ++j) {
          const index_t oy = (py.first + j) * p.rows.stride + ry - p.rows.pad;
          DType* y_row = y_plane + oy * p.cols.out;
          const index_t from = f * cols + j * width;
          if (pairs) {
            const DType* rows[2] = {phases + from, phases + phase_size + from};
            InterleaveColumnPhases<kAdd>(p, rows, b, y_row);
            continue;
          }
          for (index_t rx = 0; rx < p.cols.stride; ++rx) {
            const AxisPhase px = p.cols.Phase(rx);
            const DType* phase_row = phases + rx * phase_size + from;
            DType* to = y_row + px.first * p.cols.stride + rx - p.cols.pad;
            for (index_t i = 0; i < px.count; ++i) {
              DType& out = to[i * p.cols.stride];
              out = kAdd ? out + phase_row[i] + b : phase_row[i] + b;
            }
          }
        }
      }
    }
  }
}

// Scratch for DeconvolveByPhases on `threads` (BatchThreads'): the taps (as long as the
// weight), the position tiles' operands where they serve (as long again), then per thread a
// padded image (with a line's room to move it in, PaddedImageShift) and its PhaseBuffers().
template <typename DType>
index_t PerThreadPhaseSpace(const PhasePlan& p) {
  return p.PaddedImage() + PhasePlan::kColumnQuantum + p.PhaseBuffers<DType>();
}
template <typename DType>
index_t PhaseSpace(const PhasePlan& p, index_t threads) {
  const index_t taps = p.WeightSize() * (p.UsesPositionTiles<DType>() ? 2 : 1);
  return taps + threads * PerThreadPhaseSpace<DType>(p);
}

// Elements past `space` where MultiplySinglePhase's padded image starts: as far into a cache
// line as the image's output y_n, so that where the product's columns are the padded rows in
// order (a 1x1 layer's) and y_n starts off a line (NumPy's arrays start 16 bytes in), the
// strips that stream whole lines of y_n (register_gemm::ColumnsBeforeALine) load whole lines
// of it too, not each across two (docs/benchmarks.md, eightieth session). Under a line's
// elements.
template <typename DType>
index_t PaddedImageShift(const DType* space, const DType* y_n) {
  const uintptr_t apart = reinterpret_cast<uintptr_t>(y_n) - reinterpret_cast<uintptr_t>(space);
  return apart % sizeof(DType) != 0
             ? 0
             : static_cast<index_t>(apart % mshadow::kCacheLineBytes / sizeof(DType));
}

// The batch x (batch, channels, in...) -> y (batch, filters, out...), written (kAdd: added)
// with the bias (may be null). `space` (PhaseSpace(p, threads) long, the thread count taken
// once so that the scratch fits it) starts with the taps, as a Repack*Weight wrote them. The
// images are shared out over `threads` threads in contiguous runs, each with its own part of
// `space`; with one, the products take the library's threads instead.
template <bool kAdd, typename DType>
void DeconvolveByPhases(const PhasePlan& p, index_t batch, index_t threads, const DType* x,
                        const DType* bias, DType* y, DType* space) {
  const DType* taps = space;
  const index_t per_thread = PerThreadPhaseSpace<DType>(p);
  const index_t x_image = p.channels * p.groups * p.depth.in * p.rows.in * p.cols.in;
  const index_t y_image = p.filters * p.groups * p.depth.out * p.OutPlane();
  const std::vector<index_t> row_offsets = PhaseRowOffsets(p, p.ChannelInterleave<DType>());
  // The position tiles' weights after the taps, and their offsets (the same for every group).
  const bool position_tiles = p.UsesPositionTiles<DType>();
  // The output written around the caches where it is far larger than they are: by the tiles'
  // transposes, and by the products' whole lines.
  const index_t y_bytes = batch * y_image * static_cast<index_t>(sizeof(DType));
  const bool stream = !kAdd && transpose::StreamsTransposeOf(y_bytes);
  const bool stream_product = !kAdd && StreamsProductOf(y_bytes);
  DType* tile_taps = space + p.WeightSize();
  std::vector<index_t> tile_offsets;
  if (position_tiles) PackPhaseTiles(p, taps, row_offsets, tile_taps, &tile_offsets);
  DType* scratch = position_tiles ? tile_taps + p.WeightSize() : tile_taps;
  // The tiles' last images by parts of their strips (ForEachImagePart), each thread padding
  // an image it had not padded last.
  const index_t strips = position_tiles ? p.filters / position_tiles::kFilterStrip<DType> : 1;
  const index_t parts = std::min<index_t>(strips, kLastImageParts);
  std::vector<index_t> padded_image(threads, -1);
  ForEachImagePart(batch, threads, parts, [&](index_t t, index_t n, index_t part, index_t of) {
    DType* y_n = y + n * y_image;
    DType* thread_space = scratch + t * per_thread;
    const bool single_product = !position_tiles && p.SinglePhase();
    DType* padded = thread_space + (single_product ? PaddedImageShift(thread_space, y_n) : 0);
    DType* phases = thread_space + p.PaddedImage() + PhasePlan::kColumnQuantum;
    const PhaseTiles<DType> tiles{tile_taps, tile_offsets.data(), phases};
    if (padded_image[t] != n) PadImage(p, x + n * x_image, padded);
    padded_image[t] = n;
    if (position_tiles) {
      DeconvolveImageByTiles<kAdd>(p, tiles, bias, y_n, padded, stream,
                                   {strips * part / of, strips * (part + 1) / of});
    } else if (single_product) {
      MultiplySinglePhase<kAdd>(p, taps, row_offsets.data(), bias, y_n, padded, stream_product);
    } else {
      DeconvolveImageByPhases<kAdd>(p, taps, row_offsets.data(), bias, y_n, padded, phases);
    }
  });
}

// How the layer's weight comes: a deconvolution's (channels, filters per group, kernel...), or a
// stride-1 convolution's (filters, channels per group, kernel...), whose kernel is flipped.
enum class WeightLayout { kDeconvolution, kConvolution };

// The batch x -> y by DeconvolveByPhases, written as `req` says (nothing for kNullOp), on
// BatchThreads(batch) threads; space(size) returns `size` elements of scratch for it.
template <typename DType, typename Space>
void RunByPhases(const PhasePlan& p, index_t batch, WeightLayout layout, const DType* weight,
                 const DType* x, const DType* bias, DType* y, OpReqType req, Space&& space) {
  if (req == kNullOp) return;
  const mshadow::WorkersStayAwake awake;  // through the repacking, for the images' threads
  const index_t threads = BatchThreads(batch);
  DType* scratch = space(PhaseSpace<DType>(p, threads));
  if (layout == WeightLayout::kDeconvolution) {
    RepackDeconvolutionWeight(p, weight, scratch);
  } else {
    RepackConvolutionWeight(p, weight, scratch);
  }
  if (req == kAddTo) {
    DeconvolveByPhases<true>(p, batch, threads, x, bias, y, scratch);
  } else {
    DeconvolveByPhases<false>(p, batch, threads, x, bias, y, scratch);
  }
}

}  // namespace deconvolution
}  // namespace ops

#endif  // OPS_DECONVOLUTION_PHASES_H_
