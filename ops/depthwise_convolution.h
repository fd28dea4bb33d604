// ops/depthwise_convolution.h: 2-D depthwise convolutions on the CPU (MobileNet's layers:
// num_group = channels = num_filter, one kernel per channel), a plane at a time. Through the
// column matrix each such layer was a product of one row by KernelSize() columns per group:
// 0.1-0.6x MXNet 1.9.1 (docs/benchmarks.md, fifty-sixth session).
//
//   if (depthwise::Serves(g, groups, filters))
//     depthwise::Forward(g, batch, data, weight, bias, req, out);
//
// Each plane is first copied into the thread's scratch with its padding as zeros, so that
// every tap of every output row is one contiguous (stride 1) or strided pass of
// multiply-adds over a row of that copy, with no edge cases. The backward pass goes to the
// threads by channel: a channel's weight gradient sums over the batch without atomics, and
// its data gradient is built in a padded scratch plane by the same passes run in reverse.
#ifndef OPS_DEPTHWISE_CONVOLUTION_H_
#define OPS_DEPTHWISE_CONVOLUTION_H_

#include <algorithm>
#include <cstddef>

#include "mshadow/parallel.h"
#include "ops/conv_geometry.h"
#include "ops/kernel_launch.h"
#include "ops/op_types.h"
#include "ops/vector_loop.h"

namespace ops {
namespace depthwise {

using mshadow::index_t;

// Whether the layer is depthwise in 2-D: one group per channel, one filter per group.
inline bool Serves(const ConvGeometry& g, index_t groups, index_t filters) {
  return g.ndim == 2 && groups == g.channels && filters == g.channels;
}

// A plane's padded copy: rows of the input's width plus both pads.
struct PaddedPlane {
  index_t rows, width;
  explicit PaddedPlane(const ConvGeometry& g)
      : rows(g.in[0] + 2 * g.pad[0]), width(g.in[1] + 2 * g.pad[1]) {}
  index_t Size() const { return rows * width; }
};

// padded = plane with zeros around it (pad[0] rows above and below, pad[1] columns each side).
template <typename DType>
void CopyPadded(const ConvGeometry& g, const PaddedPlane& p, const DType* plane, DType* padded) {
  std::fill(padded, padded + g.pad[0] * p.width, DType(0));
  for (index_t r = 0; r < g.in[0]; ++r) {
    DType* row = padded + (r + g.pad[0]) * p.width;
    std::fill(row, row + g.pad[1], DType(0));
    std::copy(plane + r * g.in[1], plane + (r + 1) * g.in[1], row + g.pad[1]);
    std::fill(row + g.pad[1] + g.in[1], row + p.width, DType(0));
  }
  std::fill(padded + (g.pad[0] + g.in[0]) * p.width, padded + p.Size(), DType(0));
}

// fn(std::integral_constant<index_t, s>()) for the strides 1 and 2 along width, whose loops
// then have a constant stride; fn(0) (the run-time stride) otherwise.
template <typename Fn>
void WithWidthStride(index_t stride, Fn&& fn) {
  if (stride == 1) return fn(std::integral_constant<index_t, 1>());
  if (stride == 2) return fn(std::integral_constant<index_t, 2>());
  fn(std::integral_constant<index_t, 0>());
}

// fn(row, tap) for each output row and tap: `row` the output row, `tap` = (kh, kw), `offset`
// where the tap's first input lies in the padded plane (the next ones every stride[1]).
template <typename Fn>
void ForEachRowTap(const ConvGeometry& g, const PaddedPlane& p, Fn&& fn) {
  for (index_t oh = 0; oh < g.out[0]; ++oh) {
    for (index_t kh = 0; kh < g.kernel[0]; ++kh) {
      const index_t row = (oh * g.stride[0] + kh * g.dilate[0]) * p.width;
      for (index_t kw = 0; kw < g.kernel[1]; ++kw) {
        fn(oh, kh * g.kernel[1] + kw, row + kw * g.dilate[1]);
      }
    }
  }
}

// CPU item: plane i = (image, channel) of the output.
template <int kReq>
struct ForwardPlane {
  template <typename DType>
  static void Map(index_t i, const ConvGeometry g, const DType* data, const DType* weight,
                  const DType* bias, DType* out) {
    const index_t c = i % g.channels, width = g.out[1];
    const PaddedPlane p(g);
    auto* padded = static_cast<DType*>(
        mshadow::ThreadScratch((p.Size() + g.OutSize()) * sizeof(DType)));
    DType* sum = padded + p.Size();  // the plane's outputs before the write mode
    CopyPadded(g, p, data + i * g.InSize(), padded);
    std::fill(sum, sum + g.OutSize(), bias ? bias[c] : DType(0));
    const DType* w = weight + c * g.KernelSize();
    WithWidthStride(g.stride[1], [&](auto constant) {
      const index_t stride = constant.value ? constant.value : g.stride[1];
      ForEachRowTap(g, p, [&](index_t oh, index_t tap, index_t offset) {
        const DType wt = w[tap];
        const DType* x = padded + offset;
        DType* y = sum + oh * width;
        OPS_SIMD_LOOP
        for (index_t ow = 0; ow < width; ++ow) y[ow] += wt * x[ow * stride];
      });
    });
    DType* y = out + i * g.OutSize();
    OPS_SIMD_LOOP
    for (index_t at = 0; at < g.OutSize(); ++at) AssignReq<kReq>(y + at, sum[at]);
  }
};

// out (batch, channels, out...) = the depthwise convolution of data (batch, channels, in...)
// by weight (channels, 1, kernel...), plus bias (channels; may be null), written as req says.
template <typename DType>
void Forward(const ConvGeometry& g, index_t batch, const DType* data, const DType* weight,
             const DType* bias, OpReqType req, DType* out) {
  OPS_REQ_SWITCH(req, Req, {
    Kernel<ForwardPlane<Req>, cpu>::LaunchItems(nullptr, batch * g.channels,
                                                g.OutSize() * g.KernelSize(), g, data, weight,
                                                bias, out);
  });
}

// The largest kernel (taps) Backward takes.
constexpr index_t kMaxBackwardTaps = 64;

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
                  const DType* data, const DType* weight, DType* data_grad,
                  DType* weight_grad) {
    constexpr bool kData = kDataReq != kNullOp, kWeight = kWeightReq != kNullOp;
    const PaddedPlane p(g);
    auto* padded = static_cast<DType*>(mshadow::ThreadScratch(2 * p.Size() * sizeof(DType)));
    DType* grad = padded + p.Size();  // the padded plane's gradient
    const DType* w = weight + c * g.KernelSize();
    DType taps[kMaxBackwardTaps];  // the kernel's gradient
    std::fill(taps, taps + g.KernelSize(), DType(0));
    const index_t width = g.out[1];
    for (index_t n = 0; n < batch; ++n) {
      const index_t plane = n * g.channels + c;
      const DType* og = out_grad + plane * g.OutSize();
      if (kWeight) CopyPadded(g, p, data + plane * g.InSize(), padded);
      if (kData) std::fill(grad, grad + p.Size(), DType(0));
      WithWidthStride(g.stride[1], [&](auto constant) {
        const index_t stride = constant.value ? constant.value : g.stride[1];
        ForEachRowTap(g, p, [&](index_t oh, index_t tap, index_t offset) {
          const DType* dy = og + oh * width;
          if (kData) {
            const DType wt = w[tap];
            DType* dx = grad + offset;
            OPS_SIMD_LOOP
            for (index_t ow = 0; ow < width; ++ow) dx[ow * stride] += wt * dy[ow];
          }
          if (kWeight) {
            const DType* x = padded + offset;
            DType dot = 0;
            OPS_SIMD_SUM(dot)
            for (index_t ow = 0; ow < width; ++ow) dot += dy[ow] * x[ow * stride];
            taps[tap] += dot;
          }
        });
      });
      if (kData) {
        DType* dx = data_grad + plane * g.InSize();
        for (index_t r = 0; r < g.in[0]; ++r) {
          const DType* from = grad + (r + g.pad[0]) * p.width + g.pad[1];
          DType* to = dx + r * g.in[1];
          OPS_SIMD_LOOP
          for (index_t x = 0; x < g.in[1]; ++x) AssignReq<kDataReq>(to + x, from[x]);
        }
      }
    }
    if (kWeight) {
      DType* dw = weight_grad + c * g.KernelSize();
      for (index_t k = 0; k < g.KernelSize(); ++k) AssignReq<kWeightReq>(dw + k, taps[k]);
    }
  }
};

// data_grad and weight_grad of Forward's layer from out_grad, written as their reqs say
// (kNullOp: left alone). Serves(...) and KernelSize() <= kMaxBackwardTaps.
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
