// ops/depthwise_convolution.h: 2-D depthwise convolutions on the CPU (MobileNet's layers:
// num_group = channels = num_filter, one kernel per channel), a plane at a time. Through the
// column matrix each such layer had been a product of one row by KernelSize() columns per
// group, 0.1-0.6x MXNet 1.9.1 (docs/benchmarks.md, fifty-sixth session).
//
//   if (depthwise::Serves(g, groups, filters))
//     depthwise::Forward(g, batch, data, weight, bias, req, out);
//
// Each plane is first copied into the thread's scratch with its padding as zeros and its
// columns split by the stride's phase (column t of a row at phase t % stride, position
// t / stride), so that every tap of an output row reads contiguous inputs, and a packet of
// outputs sums all its taps in a register. The backward pass goes to the threads by channel:
// a channel's weight gradient sums over the batch without atomics; its data gradient is
// gathered, each input row a phase of its columns at a time (the columns of one phase are
// reached by the same taps, from consecutive outputs), from a zero-padded copy of the output
// gradient: at stride 1 the forward convolution by the flipped kernel.
#ifndef OPS_DEPTHWISE_CONVOLUTION_H_
#define OPS_DEPTHWISE_CONVOLUTION_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"
#include "ops/conv_geometry.h"
#include "ops/kernel_launch.h"
#include "ops/op_types.h"
#include "ops/position_lanes.h"
#include "ops/register_gemm.h"
#include "ops/vector_loop.h"

namespace ops {
namespace depthwise {

using mshadow::index_t;

// A plane (rows x cols) padded with zeros (pad_rows above and below, pad_cols each side), its
// padded rows' columns split into `phases` runs by column modulo phases.
struct PaddedPlane {
  index_t rows, cols, pad_rows, pad_cols, phases, phase_width;
  PaddedPlane(index_t rows_, index_t cols_, index_t pad_rows_, index_t pad_cols_, index_t phases_)
      : rows(rows_),
        cols(cols_),
        pad_rows(pad_rows_),
        pad_cols(pad_cols_),
        phases(phases_),
        phase_width((cols_ + 2 * pad_cols_ + phases_ - 1) / phases_) {}
  index_t Pitch() const { return phases * phase_width; }
  // Elements, and slack past them: a row's last outputs read lanes they drop.
  static constexpr index_t kSlack = 64;
  index_t Size() const { return (rows + 2 * pad_rows) * Pitch() + kSlack; }
  // Where column t of padded row r lies (the next columns of its phase follow it).
  index_t At(index_t r, index_t t) const {
    return r * Pitch() + (t % phases) * phase_width + t / phases;
  }

  // The positions [*first, *past) of `phase` that hold input columns (the others hold
  // padding): position m holds padded column phase + m * phases, input column that minus
  // pad_cols.
  void InputPositions(index_t phase, index_t* first, index_t* past) const {
    *first = phase >= pad_cols ? 0 : (pad_cols - phase + phases - 1) / phases;
    *past =
        std::max(*first, std::min(phase_width, (pad_cols + cols - phase + phases - 1) / phases));
  }

  // The columns of one input row (cols of them, at `from`) at their places in the padded row
  // `row`: input column e + i * phases at position i of its phase. Stride 2 pairs each even
  // column with the next odd one, a loop the compiler vectorizes (one phase at a time, the
  // strided loads had been scalar and the plane's copy most of a stride-2 layer's time).
  template <typename DType>
  void SplitRow(const DType* from, DType* row) const {
    if (phases == 1) {
      CopyRow(from, cols, row + pad_cols);
    } else if (phases == 2) {
      DType* even = row + At(0, pad_cols);
      DType* odd = row + At(0, pad_cols + 1);
      const index_t pairs = cols / 2;
      OPS_SIMD_LOOP
      for (index_t i = 0; i < pairs; ++i) {
        even[i] = from[2 * i];
        odd[i] = from[2 * i + 1];
      }
      if (cols % 2) even[pairs] = from[cols - 1];
    } else {
      for (index_t e = 0; e < phases && e < cols; ++e) {
        DType* to = row + At(0, pad_cols + e);
        for (index_t i = 0; e + i * phases < cols; ++i) to[i] = from[e + i * phases];
      }
    }
  }

  // The padding positions of `padded` zeroed (and its slack): what FillInside leaves alone,
  // so that planes filled one after another into the same scratch zero it once.
  template <typename DType>
  void ZeroPadding(DType* padded) const {
    const index_t pitch = Pitch();
    std::fill(padded, padded + pad_rows * pitch, DType(0));
    for (index_t r = 0; r < rows; ++r) {
      DType* row = padded + (r + pad_rows) * pitch;
      for (index_t phase = 0; phase < phases; ++phase) {
        DType* to = row + phase * phase_width;
        index_t first, past;
        InputPositions(phase, &first, &past);
        std::fill(to, to + first, DType(0));
        std::fill(to + past, to + phase_width, DType(0));
      }
    }
    std::fill(padded + (rows + pad_rows) * pitch, padded + Size(), DType(0));
  }

  // The input positions of `padded` = plane, a row at a time as SplitRow lays it out.
  template <typename DType>
  void FillInside(const DType* plane, DType* padded) const {
    for (index_t r = 0; r < rows; ++r)
      SplitRow(plane + r * cols, padded + (r + pad_rows) * Pitch());
  }

  // padded = plane, laid out as above, no element written twice.
  template <typename DType>
  void Fill(const DType* plane, DType* padded) const {
    ZeroPadding(padded);
    FillInside(plane, padded);
  }

 private:
  // to[0, n) = from[0, n) a packet at a time, the last packet ending at n (rewriting lanes with
  // the values they hold): a library call per row had cost more than the copies.
  template <typename DType>
  static void CopyRow(const DType* from, index_t n, DType* to) {
    using P = vec::Full<DType>;
    constexpr index_t kLanes = P::kSize;
    if (n < kLanes) {
      for (index_t i = 0; i < n; ++i) to[i] = from[i];
      return;
    }
    for (index_t i = 0; i + kLanes < n; i += kLanes)
      P::LoadUnAligned(from + i).StoreUnAligned(to + i);
    P::LoadUnAligned(from + n - kLanes).StoreUnAligned(to + n - kLanes);
  }
};

// y[0, cols) (written as kReq says) from its columns split into `phases` runs (SplitRow's
// order without padding): column e + i * phases from split[e * pitch + i]. Stride 2 as one
// loop of pairs, which the compiler vectorizes.
template <int kReq, typename DType>
void JoinPhases(const DType* split, index_t pitch, index_t phases, index_t cols, DType* y) {
  if (phases == 2) {
    const DType* even = split;
    const DType* odd = split + pitch;
    const index_t pairs = cols / 2;
    OPS_SIMD_LOOP
    for (index_t i = 0; i < pairs; ++i) {
      AssignReq<kReq>(y + 2 * i, even[i]);
      AssignReq<kReq>(y + 2 * i + 1, odd[i]);
    }
    if (cols % 2) AssignReq<kReq>(y + cols - 1, even[pairs]);
    return;
  }
  for (index_t e = 0; e < phases && e < cols; ++e) {
    for (index_t i = 0; e + i * phases < cols; ++i) {
      AssignReq<kReq>(y + e + i * phases, split[e * pitch + i]);
    }
  }
}

inline PaddedPlane InputPlane(const ConvGeometry& g) {
  return PaddedPlane(g.in[0], g.in[1], g.pad[0], g.pad[1], g.stride[1]);
}

// The largest kernel (taps) the kernels take.
constexpr index_t kMaxTaps = 64;

// Whether the layer is depthwise in 2-D (one group per channel, one filter per group) with
// at most kMaxTaps taps.
inline bool Serves(const ConvGeometry& g, index_t groups, index_t filters) {
  return g.ndim == 2 && groups == g.channels && filters == g.channels && g.KernelSize() <= kMaxTaps;
}

// offsets[k] = where tap k's first input of output row 0 lies in p; output row oh's lie
// oh * stride[0] rows further (the divisions of PaddedPlane::At out of the loops).
inline void TapOffsets(const ConvGeometry& g, const PaddedPlane& p, index_t* offsets) {
  for (index_t kh = 0; kh < g.kernel[0]; ++kh) {
    for (index_t kw = 0; kw < g.kernel[1]; ++kw) {
      offsets[kh * g.kernel[1] + kw] = p.At(kh * g.dilate[0], kw * g.dilate[1]);
    }
  }
}

// y[i] for i in [at, min(n, at + kPackets packets)) (written as kReq says) = init + the sum
// over taps k of w[k] * src[offsets[k] + i]: each packet sums the taps in a register of its own
// (one register's chain of additions had left the loop waiting on their latency); lanes past
// n are computed from what follows the row and dropped.
template <int kReq, int kPackets, typename P, typename DType>
MSHADOW_CINLINE void SumTapsPackets(const DType* src, const index_t* offsets, const DType* w,
                                    index_t taps, DType init, index_t at, index_t n, DType* y) {
  constexpr index_t kLanes = P::kSize;
  P acc[kPackets];
  OPS_UNROLL_FULLY
  for (int j = 0; j < kPackets; ++j) acc[j] = P::Fill(init);
  for (index_t k = 0; k < taps; ++k) {
    const P wk = P::Fill(w[k]);
    const DType* x = src + offsets[k] + at;
    OPS_UNROLL_FULLY
    for (int j = 0; j < kPackets; ++j) acc[j] = acc[j] + wk * P::LoadUnAligned(x + j * kLanes);
  }
  OPS_UNROLL_FULLY
  for (int j = 0; j < kPackets; ++j) {
    const index_t i = at + j * kLanes;
    if (i + kLanes <= n) {
      vec::Store<kReq == kAddTo>(y + i, acc[j]);
    } else if (i < n && kReq != kNullOp) {
      // A masked store on AVX-512: the lanes copied from a stack array had become a call to
      // memmove per row (docs/benchmarks.md, eighty-second session).
      position_lanes::StoreFirstLanes<kReq == kAddTo>(acc[j], y + i, n - i);
    }
  }
}

// y[i] for i < n (written as kReq says) = init + the sum over taps k of w[k] * src[offsets[k] +
// i], four packets at a time, the rest of the row as one, two or four packets at once. src
// holds PaddedPlane::kSlack readable elements past every tap's row.
template <int kReq, typename DType>
void SumTaps(const DType* src, const index_t* offsets, const DType* w, index_t taps, DType init,
             index_t n, DType* y) {
  using P = vec::Full<DType>;
  constexpr index_t kLanes = P::kSize, kBlock = 4 * kLanes;
  static_assert(kBlock <= PaddedPlane::kSlack, "a block's lanes past the plane");
  index_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    SumTapsPackets<kReq, 4, P>(src, offsets, w, taps, init, i, n, y);
  }
  if (i == n) return;
  if (n - i <= kLanes) {
    SumTapsPackets<kReq, 1, P>(src, offsets, w, taps, init, i, n, y);
  } else if (n - i <= 2 * kLanes) {
    SumTapsPackets<kReq, 2, P>(src, offsets, w, taps, init, i, n, y);
  } else {
    SumTapsPackets<kReq, 4, P>(src, offsets, w, taps, init, i, n, y);
  }
}

// One plane of g's output (written as kReq says) from one plane of its input, `padded` the
// scratch for InputPlane(g).
template <int kReq, typename DType>
void ForwardPlane(const ConvGeometry& g, const DType* plane, const DType* w, DType bias,
                  DType* padded, DType* y) {
  const PaddedPlane p = InputPlane(g);
  index_t offsets[kMaxTaps];
  TapOffsets(g, p, offsets);
  p.Fill(plane, padded);
  for (index_t oh = 0; oh < g.out[0]; ++oh) {
    SumTaps<kReq>(padded + oh * g.stride[0] * p.Pitch(), offsets, w, g.KernelSize(), bias, g.out[1],
                  y + oh * g.out[1]);
  }
}

// CPU item: plane i = (image, channel) of the output.
template <int kReq>
struct ForwardItem {
  template <typename DType>
  static void Map(index_t i, const ConvGeometry g, const DType* data, const DType* weight,
                  const DType* bias, DType* out) {
    const index_t c = i % g.channels;
    auto* padded =
        static_cast<DType*>(mshadow::ThreadScratch(InputPlane(g).Size() * sizeof(DType)));
    ForwardPlane<kReq>(g, data + i * g.InSize(), weight + c * g.KernelSize(),
                       bias ? bias[c] : DType(0), padded, out + i * g.OutSize());
  }
};

// out (batch, channels, out...) = the depthwise convolution of data (batch, channels, in...)
// by weight (channels, 1, kernel...), plus bias (channels; may be null), written as req says.
template <typename DType>
void Forward(const ConvGeometry& g, index_t batch, const DType* data, const DType* weight,
             const DType* bias, OpReqType req, DType* out) {
  OPS_REQ_SWITCH(req, Req, {
    Kernel<ForwardItem<Req>, cpu>::LaunchItems(
        nullptr, batch * g.channels, g.OutSize() * g.KernelSize(), g, data, weight, bias, out);
  });
}

// The data gradient's gather. Input column e + i * stride[1] (phase e, position i) of input
// row ih receives tap (kh, kw) from output (oh, i + shift) where ih + pad[0] = oh * stride[0] +
// kh * dilate[0] and e + pad[1] = shift * stride[1] + kw * dilate[1]: each kw reaches one
// phase, every position of it from the same shift.
struct ColumnTap {
  index_t phase, shift;
};

inline ColumnTap ColumnTapOf(const ConvGeometry& g, index_t kw) {
  const index_t reach = g.pad[1] - kw * g.dilate[1], s = g.stride[1];
  const index_t phase = ((-reach) % s + s) % s;
  return {phase, (phase + reach) / s};  // exact, also below zero
}

// Phases of the input columns that hold columns (stride[1] of them, fewer in narrow planes).
inline index_t ColumnPhases(const ConvGeometry& g) { return std::min(g.stride[1], g.in[1]); }

// Input columns of phase e.
inline index_t PhaseColumns(const ConvGeometry& g, index_t e) {
  return (g.in[1] - e + g.stride[1] - 1) / g.stride[1];
}

// The output gradient's plane padded with as many zero columns either side as the shifts
// reach past it (so that every tap's positions read inside its row), no zero rows.
inline PaddedPlane OutputGradientPlane(const ConvGeometry& g) {
  index_t pad = 0;
  for (index_t kw = 0; kw < g.kernel[1]; ++kw) {
    const ColumnTap t = ColumnTapOf(g, kw);
    if (t.phase >= ColumnPhases(g)) continue;
    pad = std::max({pad, -t.shift, PhaseColumns(g, t.phase) - 1 + t.shift - (g.out[1] - 1)});
  }
  return PaddedPlane(g.out[0], g.out[1], 0, pad, 1);
}

// The planes of the next image a backward channel works on (its output gradient, input and
// data gradient), fetched into the L2 cache a few lines for each input row of this image's
// data gradient: a channel's planes of consecutive images lie a whole image apart, a jump
// the hardware prefetchers do not take ahead of the loads (docs/benchmarks.md, eighty-third
// session).
class NextPlanes {
 public:
  NextPlanes() = default;  // fetches nothing
  // data may be null (not read: no weight gradient).
  template <typename DType>
  NextPlanes(const ConvGeometry& g, const DType* grad, const DType* data, const DType* dx)
      : grad_(grad, g.OutSize() * sizeof(DType), 0, 1),
        data_(data, data ? g.InSize() * sizeof(DType) : 0, 0, 1),
        dx_(dx, g.InSize() * sizeof(DType), 0, 1) {
    const index_t lines = LinesOf(grad, g.OutSize() * sizeof(DType)) +
                          (data ? LinesOf(data, g.InSize() * sizeof(DType)) : 0) +
                          LinesOf(dx, g.InSize() * sizeof(DType));
    lines_per_row_ = (lines + g.in[0] - 1) / g.in[0];
  }

  // Fetches the lines of one input row's share (every line once Row has been called for each
  // input row).
  void Row() {
    for (index_t l = 0; l < lines_per_row_; ++l) {
      if (grad_.NextLine() != nullptr) {
        grad_.Next();
      } else if (data_.NextLine() != nullptr) {
        data_.Next();
      } else {
        dx_.Next();
      }
    }
  }

  bool Done() const {
    return grad_.NextLine() == nullptr && data_.NextLine() == nullptr && dx_.NextLine() == nullptr;
  }

 private:
  static index_t LinesOf(const void* first, size_t bytes) {
    constexpr uintptr_t kLine = mshadow::kCacheLineBytes;
    const auto at = reinterpret_cast<uintptr_t>(first);
    return static_cast<index_t>((at + bytes + kLine - 1) / kLine - at / kLine);
  }

  index_t lines_per_row_ = 0;
  register_gemm::LinePrefetcher grad_, data_, dx_;
};

// One plane's data gradient dx (written as kReq says) from `padded`, its output gradient
// copied as OutputGradientPlane(g) = q, by the channel's kernel w; `split` holds an input row
// split by phase (ColumnPhases(g) runs of PhaseColumns(g, 0)) where stride[1] > 1. The taps
// reaching each row and phase are listed before the loops, which have no division (finding
// them a row at a time had cost as much as the sums).
template <int kReq, typename DType>
void DataGradientPlane(const ConvGeometry& g, const PaddedPlane& q, const DType* padded,
                       const DType* w, DType* split, DType* dx, NextPlanes* next) {
  const index_t phases = ColumnPhases(g), pitch = PhaseColumns(g, 0);
  // The columns' taps grouped by phase: phase reached[j] (reached_columns[j] columns) from
  // taps [first[j], first[j + 1]).
  index_t reached[kMaxTaps], reached_columns[kMaxTaps], first[kMaxTaps + 1];
  index_t column_kw[kMaxTaps], column_shift[kMaxTaps];
  index_t groups = 0, listed = 0;
  for (index_t e = 0; e < phases; ++e) {
    const index_t start = listed;
    for (index_t kw = 0; kw < g.kernel[1]; ++kw) {
      const ColumnTap t = ColumnTapOf(g, kw);
      if (t.phase != e) continue;
      column_kw[listed] = kw;
      column_shift[listed++] = q.pad_cols + t.shift;
    }
    if (listed > start) {
      reached[groups] = e;
      reached_columns[groups] = PhaseColumns(g, e);
      first[groups++] = start;
    }
  }
  first[groups] = listed;
  if (groups == 0) {  // no tap reaches an input column (a stride past a narrow plane's width)
    for (index_t i = 0; i < g.InSize(); ++i) AssignReq<kReq>(dx + i, DType(0));
    return;
  }
  // Phases no tap reaches hold zeros in every row.
  if (groups < phases) std::fill(split, split + phases * pitch, DType(0));
  // ih + pad[0] - kh * dilate[0] = row_out[kh] * stride[0] + row_rest[kh], 0 <= rest < stride.
  index_t row_out[kMaxTaps], row_rest[kMaxTaps];
  const index_t sh = g.stride[0];
  for (index_t kh = 0; kh < g.kernel[0]; ++kh) {
    const index_t reach = g.pad[0] - kh * g.dilate[0];
    row_rest[kh] = (reach % sh + sh) % sh;
    row_out[kh] = (reach - row_rest[kh]) / sh;
  }
  index_t offsets[kMaxTaps];
  DType weights[kMaxTaps];
  for (index_t ih = 0; ih < g.in[0]; ++ih) {
    DType* row = dx + ih * g.in[1];
    for (index_t j = 0; j < groups; ++j) {
      index_t taps = 0;
      for (index_t kh = 0; kh < g.kernel[0]; ++kh) {
        if (row_rest[kh] != 0 || row_out[kh] < 0 || row_out[kh] >= g.out[0]) continue;
        const index_t row_start = row_out[kh] * q.Pitch();
        for (index_t t = first[j]; t < first[j + 1]; ++t) {
          offsets[taps] = row_start + column_shift[t];
          weights[taps++] = w[kh * g.kernel[1] + column_kw[t]];
        }
      }
      if (phases == 1) {
        SumTaps<kReq>(padded, offsets, weights, taps, DType(0), g.in[1], row);
      } else {
        SumTaps<kWriteTo>(padded, offsets, weights, taps, DType(0), reached_columns[j],
                          split + reached[j] * pitch);
      }
    }
    if (phases > 1) JoinPhases<kReq>(split, pitch, phases, g.in[1], row);
    next->Row();
    for (index_t kh = 0; kh < g.kernel[0]; ++kh) {
      if (++row_rest[kh] == sh) {
        row_rest[kh] = 0;
        ++row_out[kh];
      }
    }
  }
}

// tap_sums[k] += the products of the output gradient (dy rows dy_pitch apart, width wide)
// with tap k's inputs (x + offsets[k], rows x_pitch apart), for kTaps taps at once: each
// packet of the output gradient loaded once for all of them, each tap's sum in a register of
// its own (summing one tap at a time, one register's chain of additions had held the loop).
// A row's last packet is masked to its lanes (x holds a packet readable past each row; the
// products there are dropped, whatever they are).
template <int kTaps, typename DType, typename P>
MSHADOW_CINLINE void AddTapProducts(const DType* dy, index_t dy_pitch, const DType* x,
                                    index_t x_pitch, index_t rows, index_t width,
                                    const index_t* offsets, P* tap_sums) {
  constexpr index_t kLanes = P::kSize;
  DType lane_index[kLanes];
  for (index_t l = 0; l < kLanes; ++l) lane_index[l] = DType(l);
  const P lanes = P::LoadUnAligned(lane_index), zero = P::Fill(DType(0));
  const index_t full = width - width % kLanes;
  const P in_row = P::Fill(DType(width - full));
  P acc[kTaps];
  OPS_UNROLL_FULLY
  for (int k = 0; k < kTaps; ++k) acc[k] = zero;
  for (index_t r = 0; r < rows; ++r) {
    const DType* d = dy + r * dy_pitch;
    const DType* xr = x + r * x_pitch;
    for (index_t i = 0; i < full; i += kLanes) {
      const P grad = P::LoadUnAligned(d + i);
      OPS_UNROLL_FULLY
      for (int k = 0; k < kTaps; ++k) {
        acc[k] = acc[k] + grad * P::LoadUnAligned(xr + offsets[k] + i);
      }
    }
    if (full < width) {
      const P grad = P::LoadUnAligned(d + full);
      OPS_UNROLL_FULLY
      for (int k = 0; k < kTaps; ++k) {
        const P product = grad * P::LoadUnAligned(xr + offsets[k] + full);
        acc[k] = acc[k] + SelectLess(lanes, in_row, product, zero);
      }
    }
  }
  OPS_UNROLL_FULLY
  for (int k = 0; k < kTaps; ++k) tap_sums[k] = tap_sums[k] + acc[k];
}

// The weight gradient's sums for one plane: tap_sums[k] += the products of the output
// gradient (`grad`, copied as q) with tap k's inputs (`padded`, copied as p, taps at
// `offsets`), on packets, reduced once for the whole batch by the caller. The taps go nine
// at a time (a 3x3 kernel's), the rest four, two and one at a time.
template <typename DType, typename P>
void AddWeightGradient(const ConvGeometry& g, const PaddedPlane& p, const PaddedPlane& q,
                       const index_t* offsets, const DType* padded, const DType* grad,
                       P* tap_sums) {
  const index_t x_pitch = g.stride[0] * p.Pitch(), dy_pitch = q.Pitch();
  const index_t rows = g.out[0], width = g.out[1], taps = g.KernelSize();
  const DType* dy = grad + q.pad_cols;
  index_t k = 0;
  for (; k + 9 <= taps; k += 9) {
    AddTapProducts<9>(dy, dy_pitch, padded, x_pitch, rows, width, offsets + k, tap_sums + k);
  }
  for (; k + 4 <= taps; k += 4) {
    AddTapProducts<4>(dy, dy_pitch, padded, x_pitch, rows, width, offsets + k, tap_sums + k);
  }
  for (; k + 2 <= taps; k += 2) {
    AddTapProducts<2>(dy, dy_pitch, padded, x_pitch, rows, width, offsets + k, tap_sums + k);
  }
  for (; k < taps; ++k) {
    AddTapProducts<1>(dy, dy_pitch, padded, x_pitch, rows, width, offsets + k, tap_sums + k);
  }
}

// fn(std::integral_constant<int, r>()) with r = kNullOp, kWriteTo (also for kWriteInplace) or
// kAddTo as req says.
template <typename Fn>
void WithReqOrNone(OpReqType req, Fn&& fn) {
  if (req == kNullOp) return fn(std::integral_constant<int, kNullOp>());
  if (req == kAddTo) return fn(std::integral_constant<int, kAddTo>());
  fn(std::integral_constant<int, kWriteTo>());
}

// CPU item: channel c's data gradient (every image's plane, written as kDataReq), weight
// gradient (summed over the batch, written as kWeightReq; kNullOp: not computed) and bias
// gradient (written as bias_req; not computed where bias_grad is null), the last from the
// output gradient's planes while they are in the cache (a pass of its own had read them all
// again from memory).
template <int kDataReq, int kWeightReq>
struct BackwardChannel {
  template <typename DType>
  static void Map(index_t c, const ConvGeometry g, index_t batch, const DType* out_grad,
                  const DType* data, const DType* weight, DType* data_grad, DType* weight_grad,
                  OpReqType bias_req, DType* bias_grad) {
    constexpr bool kData = kDataReq != kNullOp, kWeight = kWeightReq != kNullOp;
    const PaddedPlane p = InputPlane(g), q = OutputGradientPlane(g);
    auto* padded = static_cast<DType*>(mshadow::ThreadScratch(
        (p.Size() + q.Size() + ColumnPhases(g) * PhaseColumns(g, 0)) * sizeof(DType)));
    DType* padded_grad = padded + p.Size();
    DType* split = padded_grad + q.Size();
    index_t offsets[kMaxTaps];
    TapOffsets(g, p, offsets);
    using P = vec::Full<DType>;
    P tap_sums[kMaxTaps];  // the kernel's gradient, summed on packets over the batch
    std::fill(tap_sums, tap_sums + g.KernelSize(), P::Fill(DType(0)));
    DType bias_sum = 0;
    q.ZeroPadding(padded_grad);
    if (kWeight) p.ZeroPadding(padded);
    for (index_t n = 0; n < batch; ++n) {
      const index_t plane = n * g.channels + c;
      NextPlanes next;
      if (n + 1 < batch && kData) {
        const index_t ahead = plane + g.channels;
        next = NextPlanes(g, out_grad + ahead * g.OutSize(),
                          kWeight ? data + ahead * g.InSize() : nullptr,
                          data_grad + ahead * g.InSize());
      }
      q.FillInside(out_grad + plane * g.OutSize(), padded_grad);
      if (bias_grad) {  // the padding columns add zeros
        bias_sum += vec::Sum<DType>(q.rows * q.Pitch(), [&](index_t i, auto tag) {
          return vec::PacketOf<decltype(tag)>::LoadUnAligned(padded_grad + i);
        });
      }
      if (kWeight) {
        p.FillInside(data + plane * g.InSize(), padded);
        AddWeightGradient(g, p, q, offsets, padded, padded_grad, tap_sums);
      }
      if (kData) {
        DataGradientPlane<kDataReq>(g, q, padded_grad, weight + c * g.KernelSize(), split,
                                    data_grad + plane * g.InSize(), &next);
      }
    }
    if (kWeight) {
      DType* dw = weight_grad + c * g.KernelSize();
      for (index_t k = 0; k < g.KernelSize(); ++k) {
        AssignReq<kWeightReq>(dw + k, tap_sums[k].Sum());
      }
    }
    if (bias_grad) AssignReq(bias_grad + c, bias_sum, bias_req);
  }
};

// data_grad, weight_grad and bias_grad (null: the layer has no bias) of Forward's layer from
// out_grad, written as their reqs say (kNullOp: left alone), for a layer Serves(...).
template <typename DType>
void Backward(const ConvGeometry& g, index_t batch, const DType* out_grad, const DType* data,
              const DType* weight, OpReqType data_req, DType* data_grad, OpReqType weight_req,
              DType* weight_grad, OpReqType bias_req, DType* bias_grad) {
  if (bias_req == kNullOp) bias_grad = nullptr;
  if (data_req == kNullOp && weight_req == kNullOp && bias_grad == nullptr) return;
  WithReqOrNone(data_req, [&](auto data_mode) {
    WithReqOrNone(weight_req, [&](auto weight_mode) {
      constexpr int kData = decltype(data_mode)::value, kWeight = decltype(weight_mode)::value;
      Kernel<BackwardChannel<kData, kWeight>, cpu>::LaunchItems(
          nullptr, g.channels, batch * g.OutSize() * g.KernelSize(), g, batch, out_grad, data,
          weight, data_grad, weight_grad, bias_req, bias_grad);
    });
  });
}

}  // namespace depthwise
}  // namespace ops

#endif  // OPS_DEPTHWISE_CONVOLUTION_H_
