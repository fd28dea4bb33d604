// ops/phase_lanes.h: the CPU's data gradient of a strided 1-d or 2-d convolution onto a few
// channels per group (an image's first layer: ResNet's 7x7 stride-2 stem), by output phase
// over position lanes; the same deconvolution for a strided Deconvolution's forward onto a few
// channels (an image generator's last layer), with its bias.
//
// The data gradient is the deconvolution of the output gradient og by the weight; each of its
// output phases (a residue of the stride on each axis: ops/deconvolution_phases.h) is a
// stride-1 correlation of og with that phase's taps, flipped. Within a phase consecutive
// outputs of a row read consecutive inputs, so ops/position_lanes.h's tiles take them: their
// filters are the data's few channels, their channels og's many. An image runs as bands of
// og's rows: a band of every og channel is copied, zero-padded, to a thread's scratch sized to
// stay in the L2 cache, every phase's tiles read it there, and their sums, the band's rows of
// each phase, are interleaved into dx. The phases as products of 3 rows reading og in place
// (deconvolution::RunByPhases) had waited on og's planes from the L3 cache.
//
//   if (phase_lanes::Serves(g, groups))  // dx: og's deconvolution, no bias
//     phase_lanes::Deconvolve(g, groups, filters, batch, og, weight, nullptr, req, dx, space);
//   if (phase_lanes::Serves(g, groups))  // g: the Deconvolution's equivalent convolution
//     phase_lanes::Deconvolve(g, groups, filters, batch, x, weight, bias, req, y, space);
#ifndef OPS_PHASE_LANES_H_
#define OPS_PHASE_LANES_H_

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "mshadow/parallel.h"
#include "ops/conv_geometry.h"
#include "ops/deconvolution_phases.h"
#include "ops/op_types.h"
#include "ops/position_lanes.h"
#include "ops/vector_loop.h"

namespace ops {
namespace phase_lanes {

// Whether the phases serve the data gradient of convolution g in `groups` groups: 1-d or 2-d,
// stride above 1 on some axis and a kernel at least the stride on each (every phase has taps),
// no dilation, at most position_lanes::kNarrowFilters channels per group.
inline bool Serves(const ConvGeometry& g, index_t groups) {
  if (g.ndim > 2 || g.channels / groups > position_lanes::kNarrowFilters) return false;
  bool strided = false;
  for (int a = 0; a < g.ndim; ++a) {
    if (g.dilate[a] != 1 || g.kernel[a] < g.stride[a]) return false;
    strided = strided || g.stride[a] > 1;
  }
  return strided;
}

// og's rows a band copies, as close to this many bytes as whole rows allow: a quarter of an
// L2 cache of 2 MiB, with the band's sums and the tiles' reach into the next band's rows.
constexpr index_t kBandBytes = 512 * 1024;

// The layer's phases and the scratch a thread runs a band in.
struct BandPlan {
  deconvolution::PhasePlan p;  // rows and cols: in = og's extent, out = dx's
  index_t first_q = 0, end_q = 0;  // the band rows' range: og rows the phases' outputs start at
  index_t band_q = 1;              // og rows per band
  index_t pitch = 0;               // a split row: lead columns, og's columns, zeros
  index_t split_rows = 0;          // a band's rows of one og channel: band_q + lead
  index_t phase_width = 0;         // the widest column phase's outputs

  index_t SplitChannel() const { return split_rows * pitch; }
  // A band of every og channel (all groups), and a packet of slack: a row's last run reads up
  // to a packet past it.
  template <typename DType>
  index_t SplitSize() const {
    return p.groups * p.channels * SplitChannel() + vec::Full<DType>::kSize;
  }
  // A band's sums of one dx channel: per dx row, its column phases side by side.
  index_t SumRow() const { return p.cols.stride * phase_width; }
  index_t SumPlane() const { return band_q * p.rows.stride * SumRow(); }
  index_t SumSize() const { return p.groups * p.filters * SumPlane(); }
  index_t Bands() const { return (end_q - first_q + band_q - 1) / band_q; }
};

template <typename DType>
BandPlan PlanBands(const ConvGeometry& g, index_t groups, index_t filters) {
  BandPlan b;
  b.p = deconvolution::PlanPhases(g, groups, filters / groups);
  const deconvolution::PhaseAxis &rows = b.p.rows, &cols = b.p.cols;
  b.first_q = rows.in + rows.lead;
  index_t cols_end = cols.in;
  for (index_t r = 0; r < rows.stride; ++r) {
    const deconvolution::AxisPhase py = rows.Phase(r);
    b.first_q = std::min(b.first_q, py.first);
    b.end_q = std::max(b.end_q, py.first + py.count);
  }
  for (index_t r = 0; r < cols.stride; ++r) {
    const deconvolution::AxisPhase px = cols.Phase(r);
    cols_end = std::max(cols_end, px.first + px.count);
    b.phase_width = std::max(b.phase_width, px.count);
  }
  b.pitch = cols.lead + cols_end;
  const index_t row_bytes = filters * b.pitch * static_cast<index_t>(sizeof(DType));
  b.band_q = std::clamp<index_t>(kBandBytes / std::max<index_t>(1, row_bytes) - rows.lead, 1,
                                 std::max<index_t>(1, b.end_q - b.first_q));
  b.split_rows = b.band_q + rows.lead;
  return b;
}

// The split of og rows [q0 - lead, q0 - lead + split_rows) of every channel of image `image`
// (channels, og_rows, og_cols): a row's og columns at lead..., rows outside og zero. The
// columns around them are zeros already (the split was zeroed once).
template <typename DType>
void CopyBand(const BandPlan& b, const DType* image, index_t q0, DType* split) {
  const index_t channels = b.p.groups * b.p.channels, og_rows = b.p.rows.in;
  const index_t og_cols = b.p.cols.in, first_row = q0 - b.p.rows.lead;
  for (index_t c = 0; c < channels; ++c) {
    for (index_t r = 0; r < b.split_rows; ++r) {
      DType* to = split + c * b.SplitChannel() + r * b.pitch + b.p.cols.lead;
      const index_t row = first_row + r;
      if (row >= 0 && row < og_rows) {
        std::memcpy(to, image + (c * og_rows + row) * og_cols,
                    static_cast<size_t>(og_cols) * sizeof(DType));
      } else {
        std::fill(to, to + og_cols, DType(0));
      }
    }
  }
}

// One phase's tiles: its weights packed (position_lanes::PackWeights, per group) and the
// offsets of its taps in a band's split (og channel f's tap (uy, ux) at f's rows uy, column
// ux). Tap u of a phase with T taps on an axis reads og at q - (T - 1) + u through kernel tap
// r + stride * (T - 1 - u).
template <typename Tile, typename DType>
struct PhaseTiles {
  deconvolution::AxisPhase py, px;
  index_t ry = 0, rx = 0;
  std::vector<index_t> offsets;
  std::vector<std::vector<DType>> packed;  // per group
  // The runs of a band's row i (og row q0 + i) of this phase's outputs, row after row: inputs
  // in the band's split, outputs in the band's sums (dx row i * sy + ry, column phase rx).
  // Relative to the band, so the same for every band.
  std::vector<position_lanes::Run> band_runs;
  index_t runs_per_row = 0;

  PhaseTiles(const BandPlan& b, index_t phase_ry, index_t phase_rx,
             const GroupedWeight<DType>& weight)
      : py(b.p.rows.Phase(phase_ry)), px(b.p.cols.Phase(phase_rx)), ry(phase_ry), rx(phase_rx) {
    const index_t taps = py.taps * px.taps, kw = b.p.cols.kernel;
    const index_t sy = b.p.rows.stride, sx = b.p.cols.stride;
    offsets.resize(b.p.channels * taps);
    for (index_t f = 0; f < b.p.channels; ++f) {
      for (index_t uy = 0; uy < py.taps; ++uy) {
        for (index_t ux = 0; ux < px.taps; ++ux) {
          offsets[(f * py.taps + uy) * px.taps + ux] = f * b.SplitChannel() + uy * b.pitch + ux;
        }
      }
    }
    for (index_t grp = 0; grp < b.p.groups; ++grp) {
      packed.push_back(position_lanes::PackWeights<Tile::kFilters, DType>(
          [&](index_t c, index_t f, index_t tap) {
            const index_t uy = tap / px.taps, ux = tap % px.taps;
            const index_t ky = ry + sy * (py.taps - 1 - uy), kx = rx + sx * (px.taps - 1 - ux);
            return weight(grp, f, c, ky * kw + kx);
          },
          b.p.filters, b.p.channels, taps));
    }
    PlanRuns(b);
  }

  // Band q0's runs: those of its rows whose og rows q hold this phase's outputs.
  std::pair<const position_lanes::Run*, index_t> Runs(const BandPlan& b, index_t q0) const {
    const index_t begin = std::max(q0, py.first);
    const index_t end = std::min(q0 + b.band_q, py.first + py.count);
    if (end <= begin) return {nullptr, 0};
    return {band_runs.data() + (begin - q0) * runs_per_row, (end - begin) * runs_per_row};
  }

 private:
  void PlanRuns(const BandPlan& b) {
    constexpr index_t kLanes = vec::Full<DType>::kSize;
    runs_per_row = (px.count + kLanes - 1) / kLanes;
    for (index_t i = 0; i < b.band_q; ++i) {
      const index_t input_row = (i + b.p.rows.lead - (py.taps - 1)) * b.pitch;
      const index_t sum_row = (i * b.p.rows.stride + ry) * b.SumRow() + rx * b.phase_width;
      for (index_t j = 0; j < px.count; j += kLanes) {
        band_runs.push_back({input_row + px.first + j + b.p.cols.lead - (px.taps - 1),
                             sum_row + j, std::min(kLanes, px.count - j)});
      }
    }
  }
};

// A dx row (`out` columns) from its column phases' sums, phase rx's at sums + rx * width: dx
// column s * m + a is the m-th sum of phase (a + pad) mod s, whose first output is column a.
// Stride 2 zips two phases' rows, a pair of columns at a time (a loop vectorized into
// shuffles); written or added as kAdd says.
template <bool kAdd, typename DType>
void InterleaveRow(const deconvolution::PhaseAxis& cols, const DType* sums, index_t width,
                   DType* __restrict to) {
  const index_t s = cols.stride, out = cols.out;
  auto put = [](DType& at, DType value) { at = kAdd ? at + value : value; };
  if (s == 2) {
    const DType* __restrict even = sums + cols.pad % 2 * width;
    const DType* __restrict odd = sums + (cols.pad + 1) % 2 * width;
    const index_t pairs = out / 2;
    OPS_SIMD_LOOP
    for (index_t m = 0; m < pairs; ++m) {
      put(to[2 * m], even[m]);
      put(to[2 * m + 1], odd[m]);
    }
    if (out % 2 == 1) put(to[out - 1], even[pairs]);
    return;
  }
  for (index_t a = 0; a < std::min(s, out); ++a) {
    const DType* __restrict from = sums + (a + cols.pad) % s * width;
    for (index_t m = 0; a + s * m < out; ++m) put(to[a + s * m], from[m]);
  }
}

// dx's rows of band q0 (dx (channels, rows, cols) of one image) from the band's sums: dx row
// o is sum row o + pad - q0 * sy (InterleaveRow).
template <bool kAdd, typename DType>
void InterleaveBand(const BandPlan& b, const DType* sums, index_t q0, DType* dx) {
  const deconvolution::PhaseAxis &rows = b.p.rows, &cols = b.p.cols;
  const index_t begin = std::max<index_t>(0, q0 * rows.stride - rows.pad);
  const index_t end = std::min(rows.out, (q0 + b.band_q) * rows.stride - rows.pad);
  const index_t channels = b.p.groups * b.p.filters;
  for (index_t c = 0; c < channels; ++c) {
    for (index_t o = begin; o < end; ++o) {
      InterleaveRow<kAdd>(
          cols, sums + c * b.SumPlane() + (o + rows.pad - q0 * rows.stride) * b.SumRow(),
          b.phase_width, dx + (c * rows.out + o) * cols.out);
    }
  }
}

// y (batch, channels, in...) = (or +=, as req says) bias (null: none) + the deconvolution of
// x (batch, filters, out...) by convolution g's weight (filters, channels per group,
// kernel...), g Serves, in `groups` groups: the data gradient of g from output gradient x.
// The bands of the batch's images go to the library's threads, each with its split and sums
// (space(size) returns `size` elements of scratch); by tiles of Tile's shape.
template <typename Tile, typename DType, typename Space>
void DeconvolveByTiles(const ConvGeometry& g, index_t groups, index_t filters, index_t batch,
                       const DType* x, const DType* weight, const DType* bias, OpReqType req,
                       DType* y, Space&& space) {
  if (req == kNullOp) return;
  constexpr int kPackets = Tile::kPackets, kFilters = Tile::kFilters;
  const mshadow::WorkersStayAwake awake;  // through the packing, for the bands' threads
  const BandPlan b = PlanBands<DType>(g, groups, filters);
  const GroupedWeight<DType> grouped(weight, g, groups, filters);
  std::vector<PhaseTiles<Tile, DType>> phases;
  for (index_t ry = 0; ry < b.p.rows.stride; ++ry) {
    for (index_t rx = 0; rx < b.p.cols.stride; ++rx) phases.emplace_back(b, ry, rx, grouped);
  }
  const index_t bands = b.Bands(), items = batch * bands;
  const index_t threads = BatchThreads(items);
  const index_t own = b.SplitSize<DType>() + b.SumSize();
  DType* scratch = space(threads * own);
  std::vector<char> zeroed(threads, 0);  // per thread: whether its split's pads are zero
  const index_t x_image = filters * b.p.rows.in * b.p.cols.in;
  const index_t y_image = g.channels * b.p.rows.out * b.p.cols.out;
  ForEachImage(items, threads, [&](index_t th, index_t item) {
    DType* split = scratch + th * own;
    DType* sums = split + b.SplitSize<DType>();
    if (!zeroed[th]) std::fill(split, split + b.SplitSize<DType>(), DType(0));
    zeroed[th] = 1;
    const index_t n = item / bands, q0 = b.first_q + item % bands * b.band_q;
    CopyBand(b, x + n * x_image, q0, split);
    for (const PhaseTiles<Tile, DType>& phase : phases) {
      const auto [runs, count] = phase.Runs(b, q0);
      const index_t depth = b.p.channels * phase.py.taps * phase.px.taps;
      for (index_t grp = 0; grp < b.p.groups; ++grp) {
        position_lanes::MultiplyBands<kPackets, kFilters, false, false>(
            split + grp * b.p.channels * b.SplitChannel(), runs, count, phase.offsets.data(),
            depth, phase.packed[grp].data(), bias == nullptr ? nullptr : bias + grp * b.p.filters,
            b.p.filters, sums + grp * b.p.filters * b.SumPlane(), b.SumPlane());
      }
    }
    if (req == kAddTo) {
      InterleaveBand<true>(b, sums, q0, y + n * y_image);
    } else {
      InterleaveBand<false>(b, sums, q0, y + n * y_image);
    }
  });
}

// DeconvolveByTiles with the tiles that suit the output's channels per group (a
// Deconvolution's forward onto 1 to 4 channels per group, g its equivalent convolution).
template <typename DType, typename Space>
void Deconvolve(const ConvGeometry& g, index_t groups, index_t filters, index_t batch,
                const DType* x, const DType* weight, const DType* bias, OpReqType req, DType* y,
                Space&& space) {
  position_lanes::WithNarrowTile(g.channels / groups, [&](auto tile) {
    DeconvolveByTiles<decltype(tile)>(g, groups, filters, batch, x, weight, bias, req, y, space);
  });
}

}  // namespace phase_lanes
}  // namespace ops

#endif  // OPS_PHASE_LANES_H_
