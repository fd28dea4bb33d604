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
// a channel's weight gradient sums over the batch without atomics; its data gradient is the
// forward convolution of the output gradient by the flipped kernel where the layer has
// stride 1, else the taps' passes run in reverse into a padded plane.
#ifndef OPS_DEPTHWISE_CONVOLUTION_H_
#define OPS_DEPTHWISE_CONVOLUTION_H_

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "mshadow/parallel.h"
#include "ops/conv_geometry.h"
#include "ops/kernel_launch.h"
#include "ops/op_types.h"
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

  // padded = plane, laid out as above: each padded row's phases written whole (zeros where
  // they fall in the padding), no element twice.
  template <typename DType>
  void Fill(const DType* plane, DType* padded) const {
    const index_t pitch = Pitch();
    std::fill(padded, padded + pad_rows * pitch, DType(0));
    for (index_t r = 0; r < rows; ++r) {
      DType* row = padded + (r + pad_rows) * pitch;
      for (index_t phase = 0; phase < phases; ++phase) {
        DType* to = row + phase * phase_width;
        index_t first, past;
        InputPositions(phase, &first, &past);
        std::fill(to, to + first, DType(0));
        const DType* from = plane + r * cols + phase + first * phases - pad_cols;
        if (phases == 1) {
          std::copy(from, from + (past - first), to + first);
        } else {
          for (index_t m = 0; m < past - first; ++m) to[first + m] = from[m * phases];
        }
        std::fill(to + past, to + phase_width, DType(0));
      }
    }
    std::fill(padded + (rows + pad_rows) * pitch, padded + Size(), DType(0));
  }

  // plane = padded's inside, written as kReq says.
  template <int kReq, typename DType>
  void Unpad(const DType* padded, DType* plane) const {
    for (index_t r = 0; r < rows; ++r) {
      const DType* row = padded + (r + pad_rows) * Pitch();
      for (index_t phase = 0; phase < phases; ++phase) {
        index_t first, past;
        InputPositions(phase, &first, &past);
        const DType* from = row + phase * phase_width + first;
        DType* to = plane + r * cols + phase + first * phases - pad_cols;
        for (index_t m = 0; m < past - first; ++m) AssignReq<kReq>(to + m * phases, from[m]);
      }
    }
  }
};

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

// Output row oh of g (one plane, written as kReq says) from `padded` (InputPlane(g), taps at
// `offsets`): four packets of outputs at a time, each summing the taps w (row-major) in a
// register of its own (one register's chain of additions had left the loop waiting on their
// latency); lanes past the row are computed from the next row's inputs and dropped.
template <int kReq, typename DType>
void ForwardRow(const ConvGeometry& g, const PaddedPlane& p, const index_t* offsets,
                const DType* padded, index_t oh, const DType* w, DType bias, DType* y) {
  using P = vec::Full<DType>;
  constexpr index_t kLanes = P::kSize, kBlock = 4 * kLanes;
  static_assert(kBlock <= PaddedPlane::kSlack, "a block's lanes past the plane");
  const index_t width = g.out[1], taps = g.KernelSize();
  const DType* row = padded + oh * g.stride[0] * p.Pitch();
  for (index_t ow = 0; ow < width; ow += kBlock) {
    P acc0 = P::Fill(bias), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    for (index_t k = 0; k < taps; ++k) {
      const P wk = P::Fill(w[k]);
      const DType* x = row + offsets[k] + ow;
      acc0 = acc0 + wk * P::LoadUnAligned(x);
      acc1 = acc1 + wk * P::LoadUnAligned(x + kLanes);
      acc2 = acc2 + wk * P::LoadUnAligned(x + 2 * kLanes);
      acc3 = acc3 + wk * P::LoadUnAligned(x + 3 * kLanes);
    }
    if (ow + kBlock <= width) {
      vec::Store<kReq == kAddTo>(y + ow, acc0);
      vec::Store<kReq == kAddTo>(y + ow + kLanes, acc1);
      vec::Store<kReq == kAddTo>(y + ow + 2 * kLanes, acc2);
      vec::Store<kReq == kAddTo>(y + ow + 3 * kLanes, acc3);
    } else {
      DType lanes[kBlock];
      acc0.StoreUnAligned(lanes);
      acc1.StoreUnAligned(lanes + kLanes);
      acc2.StoreUnAligned(lanes + 2 * kLanes);
      acc3.StoreUnAligned(lanes + 3 * kLanes);
      for (index_t l = 0; ow + l < width; ++l) AssignReq<kReq>(y + ow + l, lanes[l]);
    }
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
    ForwardRow<kReq>(g, p, offsets, padded, oh, w, bias, y + oh * g.out[1]);
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

// The geometry whose forward convolution by the flipped kernel is g's data gradient: g's
// output as input, its input as output. Only where g has stride 1 and its padding is at most
// the dilated kernel's reach (else `ok` is false).
inline ConvGeometry FlippedGeometry(const ConvGeometry& g, bool* ok) {
  ConvGeometry t = g;
  *ok = true;
  for (int a = 0; a < 2; ++a) {
    t.in[a] = g.out[a];
    t.out[a] = g.in[a];
    t.pad[a] = g.dilate[a] * (g.kernel[a] - 1) - g.pad[a];
    *ok = *ok && g.stride[a] == 1 && t.pad[a] >= 0;
  }
  return t;
}

// fn(std::integral_constant<int, r>()) with r = kNullOp, kWriteTo (also for kWriteInplace) or
// kAddTo as req says.
template <typename Fn>
void WithReqOrNone(OpReqType req, Fn&& fn) {
  if (req == kNullOp) return fn(std::integral_constant<int, kNullOp>());
  if (req == kAddTo) return fn(std::integral_constant<int, kAddTo>());
  fn(std::integral_constant<int, kWriteTo>());
}

// CPU item: channel c's data gradient (every image's plane, written as kDataReq) and weight
// gradient (summed over the batch, written as kWeightReq; kNullOp: not computed).
template <int kDataReq, int kWeightReq>
struct BackwardChannel {
  template <typename DType>
  static void Map(index_t c, const ConvGeometry g, index_t batch, const DType* out_grad,
                  const DType* data, const DType* weight, DType* data_grad, DType* weight_grad) {
    constexpr bool kData = kDataReq != kNullOp, kWeight = kWeightReq != kNullOp;
    const PaddedPlane p = InputPlane(g);
    bool flipped = false;
    const ConvGeometry t = FlippedGeometry(g, &flipped);
    const PaddedPlane pt = InputPlane(t);
    auto* padded = static_cast<DType*>(
        mshadow::ThreadScratch((p.Size() + std::max(p.Size(), pt.Size())) * sizeof(DType)));
    DType* grad = padded + p.Size();  // the padded data gradient, or the padded out_grad
    const DType* w = weight + c * g.KernelSize();
    DType flipped_w[kMaxTaps];
    for (index_t k = 0; k < g.KernelSize(); ++k) flipped_w[k] = w[g.KernelSize() - 1 - k];
    index_t offsets[kMaxTaps];
    TapOffsets(g, p, offsets);
    using P = vec::Full<DType>;
    constexpr index_t kLanes = P::kSize;
    DType taps[kMaxTaps];  // the kernel's gradient: taps + the lanes of tap_sums
    P tap_sums[kMaxTaps];
    std::fill(taps, taps + g.KernelSize(), DType(0));
    std::fill(tap_sums, tap_sums + g.KernelSize(), P::Fill(DType(0)));
    const index_t width = g.out[1];
    for (index_t n = 0; n < batch; ++n) {
      const index_t plane = n * g.channels + c;
      const DType* og = out_grad + plane * g.OutSize();
      DType* dx = data_grad + plane * g.InSize();
      if (kWeight) {
        p.Fill(data + plane * g.InSize(), padded);
        // Each tap's products summed on packets over the plane, reduced once at the end
        // (a reduction per row had cost more than its products).
        for (index_t k = 0; k < g.KernelSize(); ++k) {
          P acc = P::Fill(DType(0));
          DType tail = 0;
          for (index_t oh = 0; oh < g.out[0]; ++oh) {
            const DType* dy = og + oh * width;
            const DType* x = padded + oh * g.stride[0] * p.Pitch() + offsets[k];
            index_t ow = 0;
            for (; ow + kLanes <= width; ow += kLanes) {
              acc = acc + P::LoadUnAligned(dy + ow) * P::LoadUnAligned(x + ow);
            }
            for (; ow < width; ++ow) tail += dy[ow] * x[ow];
          }
          tap_sums[k] = tap_sums[k] + acc;
          taps[k] += tail;
        }
      }
      if (kData && flipped) {
        ForwardPlane<kDataReq>(t, og, flipped_w, DType(0), grad, dx);
      } else if (kData) {
        std::fill(grad, grad + p.Size(), DType(0));
        for (index_t oh = 0; oh < g.out[0]; ++oh) {
          const DType* dy = og + oh * width;
          for (index_t k = 0; k < g.KernelSize(); ++k) {
            const DType wt = w[k];
            DType* to = grad + oh * g.stride[0] * p.Pitch() + offsets[k];
            OPS_SIMD_LOOP
            for (index_t ow = 0; ow < width; ++ow) to[ow] += wt * dy[ow];
          }
        }
        p.Unpad<kDataReq>(grad, dx);
      }
    }
    if (kWeight) {
      DType* dw = weight_grad + c * g.KernelSize();
      for (index_t k = 0; k < g.KernelSize(); ++k) {
        AssignReq<kWeightReq>(dw + k, taps[k] + tap_sums[k].Sum());
      }
    }
  }
};

// data_grad and weight_grad of Forward's layer from out_grad, written as their reqs say
// (kNullOp: left alone), for a layer Serves(...).
template <typename DType>
void Backward(const ConvGeometry& g, index_t batch, const DType* out_grad, const DType* data,
              const DType* weight, OpReqType data_req, DType* data_grad, OpReqType weight_req,
              DType* weight_grad) {
  WithReqOrNone(data_req, [&](auto data_mode) {
    WithReqOrNone(weight_req, [&](auto weight_mode) {
      constexpr int kData = decltype(data_mode)::value, kWeight = decltype(weight_mode)::value;
      if constexpr (kData != kNullOp || kWeight != kNullOp) {
        Kernel<BackwardChannel<kData, kWeight>, cpu>::LaunchItems(
            nullptr, g.channels, batch * g.OutSize() * g.KernelSize(), g, batch, out_grad, data,
            weight, data_grad, weight_grad);
      }
    });
  });
}

}  // namespace depthwise
}  // namespace ops

#endif  // OPS_DEPTHWISE_CONVOLUTION_H_
