// ops/position_lanes.h: the CPU's forward of a 1-d or 2-d convolution with few channels per
// group (an image's first layer: 1 to 4 colour channels) with output positions along the
// vector lanes. A tile takes a few packets of consecutive outputs of a row and a few filters;
// per channel and tap it loads each packet's inputs (consecutive, from the zero-padded input
// split by column residue of the stride) and multiplies them into the filters' weights,
// broadcast. Each filter's sums are then a run of its output row: stored in place, no
// transpose. Position tiles (ops/position_tiles.h) broadcast inputs into strips of filters
// and transpose their sums into the output, which for a layer of a few dozen products per
// output cost as much as the products (a 3x3 layer of 3 channels ran at 0.4 of MXNet's
// oneDNN; docs/benchmarks.md, sixty-fourth session). The same tiles take the data gradient of
// a stride-1 layer onto its few channels, a convolution of the output gradient, and so a
// stride-1 Deconvolution's forward onto few channels (strided ones: ops/phase_lanes.h).
//
//   if (position_lanes::Serves(g, groups))
//     position_lanes::Forward(g, groups, filters, batch, data, weight, bias, req, y, space);
//   if (position_lanes::ServesDataGradient(g, groups))  // dx: og's deconvolution, no bias
//     position_lanes::Deconvolve(g, groups, filters, batch, og, weight, nullptr, req, dx, space);
#ifndef OPS_POSITION_LANES_H_
#define OPS_POSITION_LANES_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__AVX512F__) && !defined(__CUDACC__)
#include "mshadow/immintrin.h"
#define OPS_POSITION_LANES_AVX512 1
#else
#define OPS_POSITION_LANES_AVX512 0
#endif

#include "mshadow/base.h"
#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"
#include "ops/conv_geometry.h"
#include "ops/deinterleave.h"
#include "ops/op_types.h"
#include "ops/register_gemm.h"
#include "ops/tap_gradient.h"
#include "ops/vector_loop.h"

namespace ops {
namespace position_lanes {

// Channels per group up to which the lanes serve a layer (grey, RGB, RGBA images).
constexpr index_t kMaxChannels = 4;

// A tile's packets of positions and filters: its sums, its packets of inputs and a broadcast
// weight in the vector registers (AVX-512: 24 + 3 + 1 of 32; AVX2: 8 + 2 + 1 of 16). Layers
// of at most kNarrowFilters filters per group (a data gradient onto an image's colour
// channels) take tiles of fewer filters (AVX-512: 16 + 4 + 1), so that no tile's products
// are mostly for filters past the last. On AVX-512 the wide tile's 24 sums ran networks'
// first layers faster than 4 x 4's 16, though its 8 filters' stores, to planes a multiple of
// 4 KiB apart, fall in one L1 set as 2 x 8's did (docs/benchmarks.md, sixty-fifth and
// seventieth sessions, has the figures).
template <int kPacketCount, int kFilterCount>
struct TileShape {
  static constexpr int kPackets = kPacketCount, kFilters = kFilterCount;
};
constexpr bool kWide = MSHADOW_DEFAULT_PACKET == mshadow::packet::kAVX512;
using WideTile = TileShape<kWide ? 3 : 2, kWide ? 8 : 4>;
using NarrowTile = TileShape<4, kWide ? 4 : 2>;
constexpr index_t kNarrowFilters = NarrowTile::kFilters;
// Layers of 3 filters per group (a data gradient onto RGB) take tiles of exactly 3 (AVX-512:
// 18 sums + 6 inputs + 1; AVX2: 9 + 3 + 1), where 4 x 4's (or two of 4 x 2) left a quarter
// of their products to a filter past the last.
using TripleTile = TileShape<kWide ? 6 : 3, 3>;

// fn(tile) with the tile for a layer of `filters_per_group` (at most kNarrowFilters): 3
// filters TripleTile, others NarrowTile.
template <typename Fn>
void WithNarrowTile(index_t filters_per_group, Fn&& fn) {
  if (filters_per_group == TripleTile::kFilters) return fn(TripleTile{});
  fn(NarrowTile{});
}

// Whether the lanes serve convolution g in `groups` groups: 1-d or 2-d, at most kMaxChannels
// channels per group.
inline bool Serves(const ConvGeometry& g, index_t groups) {
  return g.ndim <= 2 && g.channels / groups <= kMaxChannels;
}

// A group's padded input as the tiles read it: per channel, per column residue r of the
// stride (sx of them), the padded rows' columns r, r + sx, ... (`pitch` of them per row), so
// that the inputs of consecutive outputs are consecutive. Output (oy, ox) reads tap (ky, kx)
// of channel c at (c * sx + kx * dx % sx) * Residue() + (oy * sy + ky * dy) * pitch + ox +
// kx * dx / sx.
struct SplitInput {
  tap_gradient::TapLayer t;
  index_t pitch;  // columns per row of a residue

  explicit SplitInput(const tap_gradient::TapLayer& layer)
      : t(layer), pitch((layer.Pitch() + layer.sx - 1) / layer.sx) {}
  index_t Rows() const { return t.in_h + 2 * t.pad_h; }
  index_t Residue() const { return Rows() * pitch; }
  index_t Channel() const { return t.sx * Residue(); }
  // The columns of residue r's rows that are input columns (the rest are pad).
  index_t ColumnBegin(index_t r) const { return (t.pad_w - r + t.sx - 1) / t.sx; }
  index_t ColumnEnd(index_t r) const {
    return std::min<index_t>(pitch, (t.in_w + t.pad_w - r + t.sx - 1) / t.sx);
  }
  // Elements of an image's split input and the slack after it: the lanes of a row's last
  // packet past its outputs read up to a packet beyond the row (their sums are not stored).
  template <typename DType>
  index_t Size() const {
    return t.groups * t.channels * Channel() + vec::Full<DType>::kSize;
  }
  // Where channel c's tap (ky, kx) starts for output (0, 0).
  index_t TapOffset(index_t c, index_t ky, index_t kx) const {
    const index_t column = kx * t.dx;
    return (c * t.sx + column % t.sx) * Residue() + ky * t.dy * pitch + column / t.sx;
  }

  // A split's pads (pad rows, pad columns, the slack) zeroed: the whole split, once per
  // scratch. Copy writes only the input's places, so a thread's split keeps its pads across
  // its images (zeroing them with every image, a few small fills a row, had cost as much as
  // the copy).
  template <typename DType>
  void ZeroPads(DType* split) const {
    std::fill(split, split + Size<DType>(), DType(0));
  }

  // The input's places of split (ZeroPads' before) = the image (groups * channels, in_h,
  // in_w) split by column residue.
  template <typename DType>
  void Copy(const DType* image, DType* split) const {
    CopyRows(image, split, 0, t.in_h);
  }

  // Copy's input rows [begin, end) of every channel.
  template <typename DType>
  void CopyRows(const DType* image, DType* split, index_t begin, index_t end) const {
    const index_t channels = t.groups * t.channels;
    for (index_t c = 0; c < channels; ++c) {
      const DType* plane = image + c * t.in_h * t.in_w;
      DType* rows = split + c * Channel() + t.pad_h * pitch;  // residue 0's first input row
      if (t.sx == 1) {
        for (index_t i = begin; i < end; ++i) {
          std::memcpy(rows + i * pitch + t.pad_w, plane + i * t.in_w,
                      static_cast<size_t>(t.in_w) * sizeof(DType));
        }
      } else if (t.sx == 2) {
        for (index_t i = begin; i < end; ++i) {
          SplitPairs(plane + i * t.in_w, rows + i * pitch, rows + Residue() + i * pitch);
        }
      } else {
        // Columns [ColumnBegin(r), ColumnEnd(r)) of residue r's rows (padded columns r + j *
        // sx) are input columns r + j * sx - pad_w.
        for (index_t r = 0; r < t.sx; ++r) {
          const index_t first = ColumnBegin(r), last = ColumnEnd(r);
          for (index_t i = begin; i < end; ++i) {
            DType* to = rows + r * Residue() + i * pitch;
            const DType* column = plane + i * t.in_w + r - t.pad_w;
            for (index_t j = first; j < last; ++j) to[j] = column[j * t.sx];
          }
        }
      }
    }
  }

  // The input rows [first, end) that output rows [oy_begin, oy_end) read.
  std::pair<index_t, index_t> InputRowsOf(index_t oy_begin, index_t oy_end) const {
    const auto clamp = [&](index_t row) { return std::clamp<index_t>(row, 0, t.in_h); };
    return {clamp(oy_begin * t.sy - t.pad_h),
            clamp((oy_end - 1) * t.sy + (t.kh - 1) * t.dy - t.pad_h + 1)};
  }

 private:
  // A row of stride 2 into its two residues (`even` and `odd`: padded columns 2j and 2j + 1
  // at j), packets of pairs of input columns at a time (the residues one at a time, by scalar
  // strided loads, had been 13% of a 5x5 stride-2 layer's time).
  template <typename DType>
  void SplitPairs(const DType* __restrict from, DType* __restrict even,
                  DType* __restrict odd) const {
    index_t c = 0;                         // input column c is padded column c + pad_w
    if (t.pad_w % 2 == 1 && t.in_w > 0) {  // input column 0 is odd
      odd[t.pad_w / 2] = from[0];
      c = 1;
    }
    // Input columns c + 2m (even padded columns) and c + 2m + 1 (odd) at j0 + m.
    const index_t j0 = (c + t.pad_w) / 2, pairs = (t.in_w - c) / 2;
    Deinterleave(from + c, pairs, even + j0, odd + j0);
    if (c + 2 * pairs < t.in_w) even[j0 + pairs] = from[c + 2 * pairs];
  }
};

// One packet of a row's outputs: where its inputs start (output (oy, ox)'s in the split
// input, tap (0, 0) of channel 0), where its outputs go (filter 0's), how many are outputs.
struct Run {
  index_t input, output, count;
};

// The runs of an image's output plane, row by row, a packet of positions each (a row's last
// one shorter where the row is not whole packets); each row's first `lead` positions (below a
// packet) a run of their own.
template <typename DType>
std::vector<Run> RunsOf(const SplitInput& s, index_t lead = 0) {
  constexpr index_t kLanes = vec::Full<DType>::kSize;
  const tap_gradient::TapLayer& t = s.t;
  std::vector<Run> runs;
  for (index_t oy = 0; oy < t.out_h; ++oy) {
    const index_t input = oy * t.sy * s.pitch, output = oy * t.out_w;
    index_t ox = 0;
    if (lead > 0) {
      ox = std::min(lead, t.out_w);
      runs.push_back({input, output, ox});
    }
    for (; ox < t.out_w; ox += kLanes) {
      runs.push_back({input + ox, output + ox, std::min(kLanes, t.out_w - ox)});
    }
  }
  return runs;
}

// The most multiply-adds per output of a row that a lead's extra run may add (LeadToLines):
// a 3x3 layer on RGB rows of 224 adds 2 and gained much; the 7x7 stem on rows of 112 would
// add 21 and gained nothing steadily (docs/benchmarks.md, seventy-ninth session).
constexpr index_t kLeadMaxProducts = 8;

// Positions before the first of a row that starts a cache line, in an output y of rows of
// out_w positions in planes of `plane`, where those rows and planes are whole lines (so that
// every row starts at the same place in a line) and y starts off a line at an element: runs
// from there stream (RunsOf's `lead`), for one extra run a row of `depth` products a position
// (at most kLeadMaxProducts per output of the row). NumPy's arrays start 16 bytes into a
// line. 0 where y starts a line, the rows start at different places or the run costs more.
template <typename DType>
index_t LeadToLines(const DType* y, index_t out_w, index_t plane, index_t depth) {
  constexpr index_t kLanes = vec::Full<DType>::kSize;
  if (out_w % kLanes != 0 || plane % kLanes != 0 || depth * kLanes > kLeadMaxProducts * out_w) {
    return 0;
  }
  // Up to the next packet boundary (a line on AVX-512, half of one on AVX2).
  return mshadow::ElementsBeforeALine(y) % kLanes;
}

// y[0, count) = (or += where kAdd) the first `count` lanes of sum (count below a packet): by
// a masked store on AVX-512 (RunsOf's leads end two runs a row).
template <bool kAdd, typename DType, typename P>
MSHADOW_CINLINE void StoreFirstLanes(P sum, DType* y, index_t count) {
#if OPS_POSITION_LANES_AVX512
  if constexpr (std::is_same_v<P, mshadow::packet::Packet<float, mshadow::packet::kAVX512>>) {
    const auto mask = static_cast<__mmask16>((1u << count) - 1);
    const __m512 v = kAdd ? _mm512_add_ps(sum.data_, _mm512_maskz_loadu_ps(mask, y)) : sum.data_;
    return _mm512_mask_storeu_ps(y, mask, v);
  } else if constexpr (std::is_same_v<P,
                                      mshadow::packet::Packet<double, mshadow::packet::kAVX512>>) {
    const auto mask = static_cast<__mmask8>((1u << count) - 1);
    const __m512d v = kAdd ? _mm512_add_pd(sum.data_, _mm512_maskz_loadu_pd(mask, y)) : sum.data_;
    return _mm512_mask_storeu_pd(y, mask, v);
  }
#endif
  DType lanes[P::kSize];
  sum.StoreUnAligned(lanes);
  for (index_t i = 0; i < count; ++i) y[i] = kAdd ? y[i] + lanes[i] : lanes[i];
}

// The sums of a tile's packet: stored whole (by streaming stores where kStream and the run
// starts a line; added where kAdd), or its first `count` lanes.
template <bool kAdd, bool kStream, typename DType, typename P>
MSHADOW_CINLINE void StoreRun(P sum, DType* y, index_t count) {
  if (count == P::kSize) {
    if constexpr (kStream && !kAdd) {
      if (reinterpret_cast<uintptr_t>(y) % sizeof(P) == 0) return sum.StoreStreaming(y);
    }
    return vec::Store<kAdd>(y, sum);
  }
  StoreFirstLanes<kAdd>(sum, y, count);
}

// Packet sums[f] to y + f * y_plane for each of kFilters filters: by streaming stores where
// kStream and every one starts a line, added where kAdd.
template <bool kAdd, bool kStream, int kFilters, typename DType, typename P>
MSHADOW_CINLINE void StorePackets(const P (&sums)[kFilters], DType* y, index_t y_plane) {
  if constexpr (kStream && !kAdd) {
    const bool lines = reinterpret_cast<uintptr_t>(y) % sizeof(P) == 0 &&
                       y_plane * sizeof(DType) % sizeof(P) == 0;
    if (lines) {
      OPS_UNROLL_FULLY
      for (int f = 0; f < kFilters; ++f) sums[f].StoreStreaming(y + f * y_plane);
      return;
    }
  }
  OPS_UNROLL_FULLY
  for (int f = 0; f < kFilters; ++f) vec::Store<kAdd>(y + f * y_plane, sums[f]);
}

// The outputs of runs[0, kPackets) for kFilters filters (the first `filters` of them stored;
// filter f's outputs y_plane after f - 1's): the products over `depth` channels and taps,
// input at split[run.input + offsets[k]] and weights w[k * kFilters + f], plus bias[f] (null:
// none; kFilters of them, zeros past `filters`).
template <int kPackets, int kFilters, bool kAdd, bool kStream, typename DType>
MSHADOW_CINLINE void MultiplyTile(const DType* split, const Run* runs, const index_t* offsets,
                                  index_t depth, const DType* w, const DType* bias,
                                  index_t filters, DType* y, index_t y_plane) {
  using P = vec::Full<DType>;
  P sum[kPackets][kFilters];
  const DType* x[kPackets];
  OPS_UNROLL_FULLY
  for (int p = 0; p < kPackets; ++p) x[p] = split + runs[p].input;
  // Channel-tap k's products, which start the sums where `first` is true: a zero or a bias
  // copied into each sum first cost the FMA ports a move a sum (docs/benchmarks.md,
  // seventy-ninth session).
  auto multiply = [&](index_t k, auto first) MSHADOW_CINLINE_LAMBDA {
    const index_t offset = offsets[k];
    P xk[kPackets];
    OPS_UNROLL_FULLY
    for (int p = 0; p < kPackets; ++p) xk[p] = P::LoadUnAligned(x[p] + offset);
    // A weight at a time: the tile's sums and inputs and one broadcast in registers.
    OPS_UNROLL_FULLY
    for (int f = 0; f < kFilters; ++f) {
      const P wf = P::Fill(w[k * kFilters + f]);
      OPS_UNROLL_FULLY
      for (int p = 0; p < kPackets; ++p) {
        sum[p][f] = decltype(first)::value ? xk[p] * wf
                                           : register_gemm::MultiplyAdd(xk[p], wf, sum[p][f]);
      }
    }
  };
  multiply(0, std::true_type{});
  for (index_t k = 1; k < depth; ++k) multiply(k, std::false_type{});
  if (bias != nullptr) {
    OPS_UNROLL_FULLY
    for (int f = 0; f < kFilters; ++f) {
      const P b = P::Fill(bias[f]);
      OPS_UNROLL_FULLY
      for (int p = 0; p < kPackets; ++p) sum[p][f] = sum[p][f] + b;
    }
  }
  bool whole = filters == kFilters;
  OPS_UNROLL_FULLY
  for (int p = 0; p < kPackets; ++p) whole = whole && runs[p].count == P::kSize;
  if (whole) {
    // Every run a whole packet for every filter (rows of a multiple of the lanes): a branch a
    // run instead of two a packet (docs/benchmarks.md, seventy-ninth session).
    OPS_UNROLL_FULLY
    for (int p = 0; p < kPackets; ++p) {
      StorePackets<kAdd, kStream>(sum[p], y + runs[p].output, y_plane);
    }
    return;
  }
  OPS_UNROLL_FULLY
  for (int f = 0; f < kFilters; ++f) {
    OPS_UNROLL_FULLY
    for (int p = 0; p < kPackets; ++p) {
      if (f < filters) {
        StoreRun<kAdd, kStream>(sum[p][f], y + f * y_plane + runs[p].output, runs[p].count);
      }
    }
  }
}

// Run groups (kPackets runs each) a band takes: MultiplyBand's filter tiles each cover a
// band's runs in turn. A tile's stores then follow its filters' planes for a band's lines
// rather than leave each of the layer's planes after one tile's (a run group at a time was
// 3-4% slower on CIFAR's first layer: docs/benchmarks.md); the band's inputs stay in L1.
constexpr index_t kBandRunGroups = 8;

// What MultiplyBands does besides its tiles: nothing.
struct NothingAhead {
  void BeforeBand(const Run*, index_t, const Run*, index_t, index_t) {}
  MSHADOW_CINLINE void AfterTile() {}
};

// MultiplyTile, for each tile of kFilters of a group's `filters` filters, of runs[0, count)
// (kPackets at a time, a last few one at a time): weights w (PackWeights), bias (null:
// none), filter f's outputs y + f * y_plane; ahead.AfterTile() after each tile of kPackets
// runs. Not inlined: inlined into the loops over runs, GCC kept one to three of the sums on
// the stack (1.3x slower).
template <int kPackets, int kFilters, bool kAdd, bool kStream, typename DType, typename Ahead>
[[gnu::noinline]] void MultiplyBand(const DType* split, const Run* runs, index_t count,
                                    const index_t* offsets, index_t depth, const DType* w,
                                    const DType* bias, index_t filters, DType* y,
                                    index_t y_plane, Ahead& ahead) {
  for (index_t f0 = 0; f0 < filters; f0 += kFilters) {
    const DType* tile_w = w + f0 * depth;
    const index_t tile_filters = std::min<index_t>(kFilters, filters - f0);
    DType padded_bias[kFilters] = {};  // the tile's bias, zeros past the last filter
    if (bias != nullptr) std::copy(bias + f0, bias + f0 + tile_filters, padded_bias);
    const DType* tile_bias = bias == nullptr ? nullptr : padded_bias;
    DType* tile_y = y + f0 * y_plane;
    index_t j = 0;
    for (; j + kPackets <= count; j += kPackets) {
      MultiplyTile<kPackets, kFilters, kAdd, kStream>(split, runs + j, offsets, depth, tile_w,
                                                      tile_bias, tile_filters, tile_y, y_plane);
      ahead.AfterTile();
    }
    for (; j < count; ++j) {
      MultiplyTile<1, kFilters, kAdd, kStream>(split, runs + j, offsets, depth, tile_w,
                                               tile_bias, tile_filters, tile_y, y_plane);
    }
  }
}

// MultiplyBand over runs[0, count), kBandRunGroups run groups at a time, each band after
// ahead.BeforeBand(band, its runs, the next band, its runs, the band's tiles that call
// AfterTile).
template <int kPackets, int kFilters, bool kAdd, bool kStream, typename DType,
          typename Ahead = NothingAhead>
void MultiplyBands(const DType* split, const Run* runs, index_t count, const index_t* offsets,
                   index_t depth, const DType* w, const DType* bias, index_t filters, DType* y,
                   index_t y_plane, Ahead&& ahead = {}) {
  constexpr index_t kBand = kBandRunGroups * kPackets;
  const index_t filter_tiles = (filters + kFilters - 1) / kFilters;
  for (index_t i = 0; i < count; i += kBand) {
    const index_t band = std::min(kBand, count - i);
    ahead.BeforeBand(runs + i, band, runs + i + band, std::min(kBand, count - i - band),
                     filter_tiles * (band / kPackets));
    MultiplyBand<kPackets, kFilters, kAdd, kStream>(split, runs + i, band, offsets, depth, w,
                                                    bias, filters, y, y_plane, ahead);
  }
}

// An image's split made as its bands come to need it: before a band, the input rows it
// reads that are not split yet; then, a few rows after each of its tiles, the rows the next
// band adds, so that the copying overlaps the tiles' products instead of running by itself
// (docs/benchmarks.md, seventy-seventh session). Bands come in the order of their rows (a
// thread's parts of an image too).
template <typename DType>
class SplitAhead {
 public:
  // Image's input into split, whose rows [0, split_rows) are split already (the rest hold
  // anything: rows an earlier image left).
  SplitAhead(const SplitInput& s, const DType* image, DType* split, index_t split_rows)
      : s_(s), image_(image), split_(split), done_(split_rows), target_(split_rows) {}

  // Rows up to which the image is split (every row before is, or no band reads it).
  index_t Done() const { return done_; }

  void BeforeBand(const Run* band, index_t count, const Run* next, index_t next_count,
                  index_t tiles) {
    const auto [first, end] = RowsOf(band, count);
    if (done_ < first) done_ = first;  // rows before no band of this thread reads
    Split(end);
    target_ = next_count > 0 ? RowsOf(next, next_count).second : done_;
    rows_per_tile_ = PerTile(target_ - done_, tiles);
  }

  MSHADOW_CINLINE void AfterTile() {
    if (done_ < target_) Split(std::min(target_, done_ + rows_per_tile_));
  }

 private:
  // `amount` spread over three quarters of `tiles`, so that it is done before the band is.
  static index_t PerTile(index_t amount, index_t tiles) {
    const index_t spread = std::max<index_t>(1, tiles * 3 / 4);
    return (std::max<index_t>(0, amount) + spread - 1) / spread;
  }

  // The input rows that runs[0, count) read (runs of a band: in order of their rows).
  std::pair<index_t, index_t> RowsOf(const Run* runs, index_t count) const {
    const index_t out_w = s_.t.out_w;
    return s_.InputRowsOf(runs[0].output / out_w, runs[count - 1].output / out_w + 1);
  }

  void Split(index_t end) {
    if (done_ >= end) return;
    s_.CopyRows(image_, split_, done_, end);
    done_ = end;
  }

  const SplitInput& s_;
  const DType* image_;
  DType* split_;
  index_t done_, target_, rows_per_tile_ = 0;
};

// A group's weights as the tiles read them: per tile of kFilters filters, per channel and
// tap k (c * taps + (ky * kw + kx)), the tile's filters' weights weight_at(f, c, tap)
// consecutively, zeros past the group's last filter.
template <int kFilters, typename DType, typename WeightAt>
std::vector<DType> PackWeights(WeightAt weight_at, index_t filters, index_t channels,
                               index_t taps) {
  const index_t tiles = (filters + kFilters - 1) / kFilters, depth = channels * taps;
  std::vector<DType> packed(tiles * depth * kFilters, DType(0));
  for (index_t f = 0; f < filters; ++f) {
    for (index_t c = 0; c < channels; ++c) {
      for (index_t tap = 0; tap < taps; ++tap) {
        const index_t k = c * taps + tap;
        packed[(f / kFilters * depth + k) * kFilters + f % kFilters] = weight_at(f, c, tap);
      }
    }
  }
  return packed;
}

// y (batch, filters, out...) = (or +=, as req says) bias (null: none) + convolution g (1-d
// or 2-d) of data (batch, channels, in...) by the weight weight_at(group, filter, channel,
// tap) returns (tap ky * kw + kx), in `groups` groups, by tiles of Tile's shape. The images go
// to the library's threads, each with its own split input (space(size) returns `size`
// elements of scratch); a batch smaller than the threads shares each image's runs out
// instead.
template <typename Tile, typename DType, typename WeightAt, typename Space>
void ConvolveByLanes(const ConvGeometry& g, index_t groups, index_t filters, index_t batch,
                     const DType* data, WeightAt weight_at, const DType* bias, OpReqType req,
                     DType* y, Space&& space) {
  if (req == kNullOp) return;
  const mshadow::WorkersStayAwake awake;  // through the packing, for the images' threads
  constexpr int kPackets = Tile::kPackets, kFilters = Tile::kFilters;
  const tap_gradient::TapLayer t = tap_gradient::TapLayerOf(g, groups, filters);
  const SplitInput split{t};
  const index_t taps = t.Taps(), depth = t.channels * taps, out_plane = t.OutPlane();
  std::vector<index_t> offsets(depth);
  for (index_t c = 0; c < t.channels; ++c) {
    for (index_t ky = 0; ky < t.kh; ++ky) {
      for (index_t kx = 0; kx < t.kw; ++kx) {
        offsets[(c * t.kh + ky) * t.kw + kx] = split.TapOffset(c, ky, kx);
      }
    }
  }
  std::vector<std::vector<DType>> packed(groups);
  for (index_t grp = 0; grp < groups; ++grp) {
    packed[grp] = PackWeights<kFilters, DType>(
        [&](index_t f, index_t c, index_t tap) { return weight_at(grp, f, c, tap); }, t.filters,
        t.channels, taps);
  }
  const bool stream = req != kAddTo && StreamsProductOf(batch * filters * out_plane *
                                                        static_cast<index_t>(sizeof(DType)));
  const std::vector<Run> runs =
      RunsOf<DType>(split, stream ? LeadToLines(y, t.out_w, out_plane, depth) : 0);
  const index_t run_count = static_cast<index_t>(runs.size());
  // Runs [begin, end) of image n's output from its split input, every group and filter,
  // `ahead` (SplitAhead, or NothingAhead for a split made whole) making the split as they go.
  auto convolve = [&](const DType* image_split, index_t n, index_t begin, index_t end,
                      auto& ahead) {
    auto tiles = [&](auto add, auto streamed) {
      constexpr bool kAdd = decltype(add)::value, kStream = decltype(streamed)::value;
      for (index_t grp = 0; grp < groups; ++grp) {
        const DType* group_split = image_split + grp * t.channels * split.Channel();
        DType* y_group = y + (n * filters + grp * t.filters) * out_plane;
        const DType* w = packed[grp].data();
        const DType* b = bias == nullptr ? nullptr : bias + grp * t.filters;
        MultiplyBands<kPackets, kFilters, kAdd, kStream>(group_split, &runs[begin], end - begin,
                                                         offsets.data(), depth, w, b, t.filters,
                                                         y_group, out_plane, ahead);
      }
    };
    if (req == kAddTo) {
      tiles(std::true_type{}, std::false_type{});
    } else if (stream) {
      tiles(std::false_type{}, std::true_type{});
    } else {
      tiles(std::false_type{}, std::false_type{});
    }
  };
  const index_t image = t.groups * t.channels * t.in_h * t.in_w;
  const index_t threads = BatchThreads(batch);
  const index_t split_size = split.template Size<DType>();
  DType* scratch = space(threads * split_size);
  if (batch >= mshadow::GetNumThreads()) {
    // The last images by parts of their runs (ForEachImagePart), each thread splitting the
    // rows of its images as its runs come to need them.
    const index_t run_groups = (run_count + kPackets - 1) / kPackets;
    std::vector<index_t> held(threads, -1);  // the image in thread th's split (-1: none yet)
    std::vector<index_t> split_rows(threads, 0);  // the rows split of it (SplitAhead::Done)
    ForEachImagePart(batch, threads, std::min(run_groups, kLastImageParts),
                     [&](index_t th, index_t n, index_t part, index_t parts) {
                       DType* own = scratch + th * split_size;
                       if (held[th] < 0) split.ZeroPads(own);
                       if (held[th] != n) split_rows[th] = 0;
                       held[th] = n;
                       const auto run = [&](index_t p) {
                         return std::min(run_count, run_groups * p / parts * kPackets);
                       };
                       SplitAhead<DType> ahead(split, data + n * image, own, split_rows[th]);
                       convolve(own, n, run(part), run(part + 1), ahead);
                       split_rows[th] = ahead.Done();
                     });
  } else {
    // The image split whole before its runs go to the threads.
    split.ZeroPads(scratch);
    for (index_t n = 0; n < batch; ++n) {
      split.Copy(data + n * image, scratch);
      ParallelRows(run_count, vec::Full<DType>::kSize * depth * filters,
                   [&](index_t begin, index_t end) {
                     NothingAhead split_already;
                     convolve(scratch, n, begin, end, split_already);
                   });
    }
  }
  // This thread's streaming stores (ParallelFor fences its workers').
  if (stream) mshadow::FenceStreamingStores();
}

// ConvolveByLanes with the tiles that suit `filters_per_group`.
template <typename DType, typename WeightAt, typename Space>
void ConvolveByLanesOf(const ConvGeometry& g, index_t groups, index_t filters, index_t batch,
                       const DType* data, WeightAt weight_at, const DType* bias, OpReqType req,
                       DType* y, Space&& space) {
  if (filters / groups <= kNarrowFilters) {
    WithNarrowTile(filters / groups, [&](auto tile) {
      ConvolveByLanes<decltype(tile)>(g, groups, filters, batch, data, weight_at, bias, req, y,
                                      space);
    });
  } else {
    ConvolveByLanes<WideTile>(g, groups, filters, batch, data, weight_at, bias, req, y, space);
  }
}

// y = (or +=) bias (null: none) + convolution g (Serves) of data by weight (filters, channels
// per group, kernel...) in `groups` groups.
template <typename DType, typename Space>
void Forward(const ConvGeometry& g, index_t groups, index_t filters, index_t batch,
             const DType* data, const DType* weight, const DType* bias, OpReqType req, DType* y,
             Space&& space) {
  ConvolveByLanesOf(g, groups, filters, batch, data,
                    GroupedWeight<DType>(weight, g, groups, filters), bias, req, y, space);
}

// Whether the lanes serve the data gradient of convolution g: 1-d or 2-d, stride 1, pad at
// most dilate * (kernel - 1) on each axis, at most kNarrowFilters channels per group (the
// gradient's filters: an image's colour channels).
inline bool ServesDataGradient(const ConvGeometry& g, index_t groups) {
  return g.ndim <= 2 && g.channels / groups <= kNarrowFilters && DataGradientIsConvolution(g);
}

// y (batch, channels, in...) = (or +=, as req says) bias (null: none) + the deconvolution of
// x (batch, filters, out...) by convolution g's weight, g ServesDataGradient: at stride 1 the
// convolution of x, padded by dilate * (kernel - 1) - pad, with the kernels flipped and their
// channels and filters swapped. (A Deconvolution's forward onto 1 to 4 channels per group,
// g its equivalent convolution.)
template <typename DType, typename Space>
void Deconvolve(const ConvGeometry& g, index_t groups, index_t filters, index_t batch,
                const DType* x, const DType* weight, const DType* bias, OpReqType req, DType* y,
                Space&& space) {
  ConvolveByLanesOf(DataGradientGeometry(g, filters), groups, g.channels, batch, x,
                    FlippedWeight<DType>(weight, g, groups, filters), bias, req, y, space);
}

}  // namespace position_lanes
}  // namespace ops

#endif  // OPS_POSITION_LANES_H_
