// ops/deconvolution_phases.h: the CPU's Deconvolution forward for 1-d and 2-d kernels without
// dilation, by output phase (the sub-pixel decomposition) instead of a column matrix.
//
// Along an axis, output o receives input i through kernel tap k when o + pad = i * stride + k.
// The outputs of one residue r = (o + pad) mod stride receive only the taps k = r + stride * t
// (t = 0, 1, ...), from inputs i = q - t, where q = (o + pad) div stride. So per phase (a
// residue on each axis) the layer is a stride-1 correlation of the input with that phase's
// taps: a sum over taps of weight_tap (filters x channels) times the input shifted by the tap.
// On the input zero-padded and flattened, a shift is an offset, so every product reads the
// padded input in place (ops/register_gemm.h); a phase's rows come out as wide as the padded
// rows, of which the first `count` on the last axis are outputs. Then each phase is written to
// every stride-th output with the bias. No column matrix is written, and nothing is folded
// back (col2im had been half of the forward).
#ifndef OPS_DECONVOLUTION_PHASES_H_
#define OPS_DECONVOLUTION_PHASES_H_

#include <algorithm>
#include <cstring>

#include "mshadow/parallel.h"
#include "ops/conv_geometry.h"
#include "ops/register_gemm.h"
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

// One spatial axis of the layer (a 1-d layer's other axis is a unit one).
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

// The layer as two axes (rows, columns) and the sizes of its buffers.
struct PhasePlan {
  PhaseAxis rows, cols;
  index_t channels = 0;  // data channels per group
  index_t filters = 0;   // output channels per group
  index_t groups = 1;

  // The padded image, one extra row: a phase's last wide row reads past the padded width.
  index_t PaddedPlane() const { return (rows.padded + 1) * cols.padded; }
  index_t PaddedImage() const { return channels * groups * PaddedPlane(); }
  index_t PhaseOutputs() const {
    index_t most = 0;
    for (index_t r = 0; r < rows.stride; ++r) most = std::max(most, rows.Phase(r).count);
    return filters * most * cols.padded;
  }
  index_t Taps() const { return rows.kernel * cols.kernel; }
};

// Whether the phase forward serves this layer on the CPU: 1 or 2 spatial axes, no dilation,
// and channels per group enough for products (depthwise layers such as bilinear
// UpSampling's keep the column matrix).
template <typename DType>
bool PhasesServe(const ConvGeometry& g, index_t channels_per_group) {
  if (g.ndim > 2 || channels_per_group < vec::Full<DType>::kSize) return false;
  for (int a = 0; a < g.ndim; ++a) {
    if (g.dilate[a] != 1) return false;
  }
  return true;
}

// g: Geometry()'s (the equivalent convolution's: `in` is the deconvolution's output).
inline PhasePlan PlanPhases(const ConvGeometry& g, index_t groups, index_t channels_per_group) {
  PhasePlan plan;
  PhaseAxis* axes[2] = {&plan.rows, &plan.cols};
  for (int a = 0; a < g.ndim; ++a) {
    PhaseAxis& axis = *axes[2 - g.ndim + a];
    axis.in = g.out[a];
    axis.out = g.in[a];
    axis.kernel = g.kernel[a];
    axis.stride = g.stride[a];
    axis.pad = g.pad[a];
  }
  plan.rows.Plan();
  plan.cols.Plan();
  plan.channels = channels_per_group;
  plan.filters = g.channels / groups;
  plan.groups = groups;
  return plan;
}

// weight (channels, filters per group, kernel...) as, per group and tap, a (filters x
// channels per group) matrix: the tap's products' left operand.
template <typename DType>
void RepackWeight(const PhasePlan& p, const DType* weight, DType* taps) {
  const index_t n_taps = p.Taps();
  for (index_t grp = 0; grp < p.groups; ++grp) {
    for (index_t c = 0; c < p.channels; ++c) {
      const DType* from = weight + (grp * p.channels + c) * p.filters * n_taps;
      DType* to = taps + grp * n_taps * p.filters * p.channels + c;
      for (index_t f = 0; f < p.filters; ++f) {
        for (index_t k = 0; k < n_taps; ++k) {
          to[(k * p.filters + f) * p.channels] = from[f * n_taps + k];
        }
      }
    }
  }
}

// One image: x (channels, in...) -> y (filters, out...), written (or added, kAdd) with the
// bias (may be null). `padded` and `phase` are PaddedImage() and PhaseOutputs() long.
template <bool kAdd, typename DType>
void DeconvolveImageByPhases(const PhasePlan& p, const DType* x, const DType* taps,
                             const DType* bias, DType* y, DType* padded, DType* phase) {
  const index_t plane = p.PaddedPlane(), width = p.cols.padded;
  std::fill(padded, padded + p.PaddedImage(), DType(0));
  for (index_t c = 0; c < p.channels * p.groups; ++c) {
    for (index_t i = 0; i < p.rows.in; ++i) {
      const DType* from = x + (c * p.rows.in + i) * p.cols.in;
      std::memcpy(padded + c * plane + (i + p.rows.lead) * width + p.cols.lead, from,
                  static_cast<size_t>(p.cols.in) * sizeof(DType));
    }
  }
  const index_t out_plane = p.rows.out * p.cols.out;
  for (index_t grp = 0; grp < p.groups; ++grp) {
    const DType* x_group = padded + grp * p.channels * plane;
    const DType* tap_group = taps + grp * p.Taps() * p.filters * p.channels;
    for (index_t ry = 0; ry < p.rows.stride; ++ry) {
      const AxisPhase py = p.rows.Phase(ry);
      if (py.count == 0) continue;
      for (index_t rx = 0; rx < p.cols.stride; ++rx) {
        const AxisPhase px = p.cols.Phase(rx);
        if (px.count == 0) continue;
        const index_t cols = py.count * width;
        bool written = false;
        for (index_t ty = 0; ty < py.taps; ++ty) {
          for (index_t tx = 0; tx < px.taps; ++tx) {
            const index_t k = (ry + p.rows.stride * ty) * p.cols.kernel + rx + p.cols.stride * tx;
            // Phase output (j, i) reads padded input (first + j - t + lead) on each axis.
            const index_t offset = (py.first - ty + p.rows.lead) * width + px.first - tx +
                                   p.cols.lead;
            register_gemm::TiledGemm<DType>(
                p.filters, p.channels, cols,
                {tap_group + k * p.filters * p.channels, p.channels, false}, x_group + offset,
                plane, phase, cols, written);
            written = true;
          }
        }
        if (!written) std::fill(phase, phase + p.filters * cols, DType(0));
        for (index_t f = 0; f < p.filters; ++f) {
          const DType b = bias == nullptr ? DType(0) : bias[grp * p.filters + f];
          DType* y_plane = y + (grp * p.filters + f) * out_plane;
          for (index_t j = 0; j < py.count; ++j) {
            const index_t oy = (py.first + j) * p.rows.stride + ry - p.rows.pad;
            DType* to = y_plane + oy * p.cols.out + px.first * p.cols.stride + rx - p.cols.pad;
            const DType* from = phase + f * cols + j * width;
            for (index_t i = 0; i < px.count; ++i) {
              DType& out = to[i * p.cols.stride];
              out = kAdd ? out + from[i] + b : from[i] + b;
            }
          }
        }
      }
    }
  }
}

// Threads that take a run of images each (one: the products take the threads instead).
inline index_t PhaseThreads(index_t batch) {
  return std::max<index_t>(1, std::min<index_t>(mshadow::GetNumThreads(), batch));
}

// Scratch for DeconvolveByPhases: the repacked weight (weight_size), then per thread a padded
// image and a phase's outputs.
inline index_t PhaseSpace(const PhasePlan& p, index_t batch, index_t weight_size) {
  return weight_size + PhaseThreads(batch) * (p.PaddedImage() + p.PhaseOutputs());
}

// The batch x (batch, channels, in...) -> y (batch, filters, out...), written (kAdd: added)
// with the bias (may be null). The images are shared out over the library's threads in
// contiguous runs, one per thread, each with its own part of `space` (PhaseSpace() long), or
// for fewer images than threads, one at a time with threaded products.
template <bool kAdd, typename DType>
void DeconvolveByPhases(const PhasePlan& p, index_t batch, const DType* x, const DType* weight,
                        index_t weight_size, const DType* bias, DType* y, DType* space) {
  DType* taps = space;
  RepackWeight(p, weight, taps);
  const index_t threads = PhaseThreads(batch);
  const index_t per_thread = p.PaddedImage() + p.PhaseOutputs();
  const index_t x_image = p.channels * p.groups * p.rows.in * p.cols.in;
  const index_t y_image = p.filters * p.groups * p.rows.out * p.cols.out;
  auto run = [&](index_t t) {
    DType* padded = space + weight_size + t * per_thread;
    const index_t begin = batch * t / threads, end = batch * (t + 1) / threads;
    for (index_t n = begin; n < end; ++n) {
      DeconvolveImageByPhases<kAdd>(p, x + n * x_image, taps, bias, y + n * y_image, padded,
                                    padded + p.PaddedImage());
    }
  };
  if (threads == 1) return run(0);
  mshadow::ParallelFor(threads, static_cast<int>(threads), run);
}

}  // namespace deconvolution
}  // namespace ops

#endif  // OPS_DECONVOLUTION_PHASES_H_
