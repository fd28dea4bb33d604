// ops/resize-inl.h: MXNet 1.9.1's image resizing operators of segmentation and detection
// networks, written once for every device: _contrib_BilinearResize2D (bilinear interpolation
// to a size, a scale, another array's size or the nearest even/odd size) and
// _contrib_AdaptiveAvgPooling2D (the mean of adaptive bins: output row i averages input rows
// [floor(i H / h), ceil((i + 1) H / h))). Images are NCHW.
//
// The CPU takes a plane (one image's channel) per item: the forward interpolates along width
// first, a row at a time; the gradients add each output element back onto the input elements it
// read, serially within the plane, so no two threads write one element. The GPU takes an
// output element per thread and adds atomically.
// resize.cc registers them with FCompute<cpu>, resize.cu adds FCompute<gpu>.
#ifndef OPS_RESIZE_INL_H_
#define OPS_RESIZE_INL_H_

#include <algorithm>
#include <type_traits>
#include <vector>

#include "dmlc/optional.h"
#include "mshadow/parallel.h"
#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace resize {

enum ResizeMode { kSize, kOddScale, kLike, kToEvenDown, kToEvenUp, kToOddDown, kToOddUp };

struct BilinearResizeParam : public dmlc::Parameter<BilinearResizeParam> {
  int height;
  int width;
  dmlc::optional<float> scale_height;
  dmlc::optional<float> scale_width;
  int mode;
  bool align_corners;
  DMLC_DECLARE_PARAMETER(BilinearResizeParam) {
    DMLC_DECLARE_FIELD(height).set_default(1).set_lower_bound(1).describe(
        "The output height (mode size, unless scale_height is given).");
    DMLC_DECLARE_FIELD(width).set_default(1).set_lower_bound(1).describe(
        "The output width (mode size, unless scale_width is given).");
    DMLC_DECLARE_FIELD(scale_height)
        .set_default(dmlc::optional<float>())
        .describe("The height's scale (modes size and odd_scale).");
    DMLC_DECLARE_FIELD(scale_width)
        .set_default(dmlc::optional<float>())
        .describe("The width's scale (modes size and odd_scale).");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("size", kSize)
        .add_enum("odd_scale", kOddScale)
        .add_enum("like", kLike)
        .add_enum("to_even_down", kToEvenDown)
        .add_enum("to_even_up", kToEvenUp)
        .add_enum("to_odd_down", kToOddDown)
        .add_enum("to_odd_up", kToOddUp)
        .set_default(kSize)
        .describe(
            "The output's height and width: size, height and width (or the input's times "
            "the scales); odd_scale, (x - 1) * scale + 1 for an odd extent x, x * scale for "
            "an even one; like, the second input's; to_even_down/up, to_odd_down/up, the "
            "nearest even or odd extent below or above an extent that is not.");
    DMLC_DECLARE_FIELD(align_corners)
        .set_default(true)
        .describe(
            "Map the corners' centres onto each other (scale (in - 1) / (out - 1)), instead of "
            "the corners themselves (scale in / out, positions at pixel centres).");
  }
};

struct AdaptiveAvgPoolingParam : public dmlc::Parameter<AdaptiveAvgPoolingParam> {
  TShape output_size;
  DMLC_DECLARE_PARAMETER(AdaptiveAvgPoolingParam) {
    DMLC_DECLARE_FIELD(output_size)
        .set_default(TShape())
        .describe("The output's (height, width), or one extent for both; () is (1, 1).");
  }
};

// Along one axis of `in` input positions sampled at `out` output positions: output position o
// reads inputs `first` and `first + step` (step 0 at the last input), the second with weight
// `lambda`.
template <typename DType>
struct BilinearAxis {
  index_t in, out;
  DType scale;
  bool align_corners;

  MSHADOW_XINLINE void Taps(index_t o, index_t* first, index_t* step, DType* lambda) const {
    DType real = scale * DType(o);
    if (!align_corners) {
      real = scale * (DType(o) + DType(0.5)) - DType(0.5);
      if (real < DType(0)) real = DType(0);
    }
    *first = static_cast<index_t>(real);
    *step = *first < in - 1 ? 1 : 0;
    *lambda = real - DType(*first);
  }
};

template <typename DType>
BilinearAxis<DType> AxisOf(index_t in, index_t out, bool align_corners) {
  DType scale = DType(in) / DType(out);
  if (align_corners) scale = out > 1 ? DType(in - 1) / DType(out - 1) : DType(0);
  return {in, out, scale, align_corners};
}

// The plane's output element (oy, ox) calls fn(input offset, weight) for the four inputs it
// interpolates.
template <typename DType, typename Fn>
MSHADOW_XINLINE void ForEachTap(const BilinearAxis<DType>& ay, const BilinearAxis<DType>& ax,
                                index_t oy, index_t ox, Fn&& fn) {
  index_t y, dy, x, dx;
  DType ly, lx;
  ay.Taps(oy, &y, &dy, &ly);
  ax.Taps(ox, &x, &dx, &lx);
  const index_t row0 = y * ax.in, row1 = (y + dy) * ax.in;
  fn(row0 + x, (DType(1) - ly) * (DType(1) - lx));
  fn(row0 + x + dx, (DType(1) - ly) * lx);
  fn(row1 + x, ly * (DType(1) - lx));
  fn(row1 + x + dx, ly * lx);
}

// GPU forward item: output element i.
template <int kReq>
struct bilinear_resize {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* in, BilinearAxis<DType> ay,
                                  BilinearAxis<DType> ax) {
    const index_t plane = i / (ay.out * ax.out), at = i % (ay.out * ax.out);
    const DType* image = in + plane * ay.in * ax.in;
    DType sum = 0;
    ForEachTap(ay, ax, at / ax.out, at % ax.out, [&](index_t k, DType w) { sum += w * image[k]; });
    AssignReq<kReq>(out + i, sum);
  }
};

// The CPU's taps along one axis for a call: output position o blends inputs first[o] and
// second[o] (the same at the last input) with weights keep[o] = 1 - lambda and take[o] =
// lambda, computed once instead of for every element.
template <typename DType>
struct BilinearTaps {
  std::vector<index_t> first, second;
  std::vector<DType> keep, take;

  explicit BilinearTaps(const BilinearAxis<DType>& axis) {
    for (index_t o = 0; o < axis.out; ++o) {
      index_t at, step;
      DType lambda;
      axis.Taps(o, &at, &step, &lambda);
      first.push_back(at);
      second.push_back(at + step);
      keep.push_back(DType(1) - lambda);
      take.push_back(lambda);
    }
  }
};

// CPU forward item: plane p. Each input row an output row reads is interpolated along width
// once (kept while the next output row reads it too), then each output row blends its two
// such rows, a vector loop: the order of MXNet's CPU kernel, width first. Element by element
// (the GPU's item), two integer divisions and the taps' arithmetic per element had taken 10
// ns an element (docs/benchmarks.md, seventy-eighth session).
template <int kReq>
struct bilinear_resize_plane {
  template <typename DType>
  static void Map(index_t p, DType* out, const DType* in, index_t in_h, index_t in_w,
                  const BilinearTaps<DType>* ty, const BilinearTaps<DType>* tx) {
    const index_t out_h = static_cast<index_t>(ty->first.size());
    const index_t out_w = static_cast<index_t>(tx->first.size());
    const DType* image = in + p * in_h * in_w;
    DType* plane = out + p * out_h * out_w;
    const index_t* x0 = tx->first.data();
    const index_t* x1 = tx->second.data();
    const DType* keep = tx->keep.data();
    const DType* take = tx->take.data();
    DType* upper = static_cast<DType*>(
        mshadow::ThreadScratch(2 * static_cast<size_t>(out_w) * sizeof(DType)));
    DType* lower = upper + out_w;
    index_t upper_row = -1, lower_row = -1;  // the input rows they hold
    const auto along_width = [&](index_t y, DType* row) {
      const DType* src = image + y * in_w;
      OPS_SIMD_LOOP
      for (index_t ox = 0; ox < out_w; ++ox) {
        row[ox] = keep[ox] * src[x0[ox]] + take[ox] * src[x1[ox]];
      }
    };
    for (index_t oy = 0; oy < out_h; ++oy) {
      const index_t y0 = ty->first[oy], y1 = ty->second[oy];
      if (lower_row == y0) {  // the last row's lower input is this one's upper
        std::swap(upper, lower);
        std::swap(upper_row, lower_row);
      }
      if (upper_row != y0) {
        along_width(y0, upper);
        upper_row = y0;
      }
      if (lower_row != y1 && y1 != y0) {
        along_width(y1, lower);
        lower_row = y1;
      }
      const DType* below = y1 == y0 ? upper : lower;
      const DType a = ty->keep[oy], b = ty->take[oy];
      DType* y = plane + oy * out_w;
      OPS_SIMD_LOOP
      for (index_t ox = 0; ox < out_w; ++ox) {
        AssignReq<kReq>(y + ox, a * upper[ox] + b * below[ox]);
      }
    }
  }
};

// GPU gradient item: output gradient element i added onto the four inputs it read.
struct bilinear_resize_grad_atomic {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* og, BilinearAxis<DType> ay,
                                  BilinearAxis<DType> ax) {
    const index_t plane = i / (ay.out * ax.out), at = i % (ay.out * ax.out);
    DType* image = grad + plane * ay.in * ax.in;
    const DType g = og[i];
    ForEachTap(ay, ax, at / ax.out, at % ax.out, [&](index_t k, DType w) {
#ifdef __CUDA_ARCH__
      atomicAdd(image + k, w * g);
#else
      image[k] += w * g;
#endif
    });
  }
};

// CPU gradient item: plane p, every output gradient element of it added onto its inputs.
struct bilinear_resize_grad_plane {
  template <typename DType>
  static void Map(index_t p, DType* grad, const DType* og, BilinearAxis<DType> ay,
                  BilinearAxis<DType> ax) {
    DType* image = grad + p * ay.in * ax.in;
    const DType* g = og + p * ay.out * ax.out;
    for (index_t oy = 0; oy < ay.out; ++oy) {
      for (index_t ox = 0; ox < ax.out; ++ox) {
        const DType v = g[oy * ax.out + ox];
        ForEachTap(ay, ax, oy, ox, [&](index_t k, DType w) { image[k] += w * v; });
      }
    }
  }
};

// An adaptive bin along one axis: output position o averages inputs [Begin(o), End(o)).
struct AdaptiveAxis {
  index_t in, out;
  MSHADOW_XINLINE index_t Begin(index_t o) const { return o * in / out; }
  MSHADOW_XINLINE index_t End(index_t o) const { return ((o + 1) * in + out - 1) / out; }
};

// GPU forward item: output element i, the mean of its bin.
template <int kReq>
struct adaptive_avg_pool {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* in, AdaptiveAxis ay,
                                  AdaptiveAxis ax) {
    const index_t plane = i / (ay.out * ax.out), at = i % (ay.out * ax.out);
    const index_t oy = at / ax.out, ox = at % ax.out;
    const DType* image = in + plane * ay.in * ax.in;
    const index_t y0 = ay.Begin(oy), y1 = ay.End(oy), x0 = ax.Begin(ox), x1 = ax.End(ox);
    DType sum = 0;
    for (index_t y = y0; y < y1; ++y) {
      for (index_t x = x0; x < x1; ++x) sum += image[y * ax.in + x];
    }
    AssignReq<kReq>(out + i, sum / DType((y1 - y0) * (x1 - x0)));
  }
};

// GPU gradient item: output gradient element i spread evenly over its bin, atomically
// (neighbouring bins overlap when the extents do not divide).
struct adaptive_avg_pool_grad {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* og, AdaptiveAxis ay,
                                  AdaptiveAxis ax) {
    const index_t plane = i / (ay.out * ax.out), at = i % (ay.out * ax.out);
    const index_t oy = at / ax.out, ox = at % ax.out;
    DType* image = grad + plane * ay.in * ax.in;
    const index_t y0 = ay.Begin(oy), y1 = ay.End(oy), x0 = ax.Begin(ox), x1 = ax.End(ox);
    const DType share = og[i] / DType((y1 - y0) * (x1 - x0));
    for (index_t y = y0; y < y1; ++y) {
      for (index_t x = x0; x < x1; ++x) {
#ifdef __CUDA_ARCH__
        atomicAdd(image + y * ax.in + x, share);
#else
        image[y * ax.in + x] += share;
#endif
      }
    }
  }
};

// CPU items: plane p, every bin in turn. The GPU's element items divide five times for their
// coordinates: per element, that had made the forward 0.87x MXNet (docs/benchmarks.md).
template <typename Fn>
void ForEachBin(const AdaptiveAxis& ay, const AdaptiveAxis& ax, Fn&& fn) {
  for (index_t oy = 0; oy < ay.out; ++oy) {
    const index_t y0 = ay.Begin(oy), y1 = ay.End(oy);
    for (index_t ox = 0; ox < ax.out; ++ox) {
      fn(oy * ax.out + ox, y0, y1, ax.Begin(ox), ax.End(ox));
    }
  }
}

// The forward sums each output row's bin of input rows first (whole rows, packets), then each
// bin of that sum's columns: a sum per bin element had been a chain of dependent scalar
// additions (1.1x MXNet; docs/benchmarks.md).
template <int kReq>
struct adaptive_avg_pool_plane {
  template <typename DType>
  static void Map(index_t p, DType* out, const DType* in, AdaptiveAxis ay, AdaptiveAxis ax) {
    const DType* image = in + p * ay.in * ax.in;
    DType* o = out + p * ay.out * ax.out;
    if (ax.out == 1) {  // each bin whole rows, one contiguous run (global pooling among them)
      for (index_t oy = 0; oy < ay.out; ++oy) {
        const index_t y0 = ay.Begin(oy), y1 = ay.End(oy);
        const DType* run = image + y0 * ax.in;
        const DType sum = vec::Sum<DType>((y1 - y0) * ax.in, [&](index_t i, auto tag) {
          return vec::PacketOf<decltype(tag)>::LoadUnAligned(run + i);
        });
        AssignReq<kReq>(o + oy, sum / DType((y1 - y0) * ax.in));
      }
      return;
    }
    auto* rows = static_cast<DType*>(mshadow::ThreadScratch(ax.in * sizeof(DType)));
    for (index_t oy = 0; oy < ay.out; ++oy) {
      const index_t y0 = ay.Begin(oy), y1 = ay.End(oy);
      std::copy(image + y0 * ax.in, image + (y0 + 1) * ax.in, rows);
      for (index_t y = y0 + 1; y < y1; ++y) {
        const DType* row = image + y * ax.in;
        OPS_SIMD_LOOP
        for (index_t x = 0; x < ax.in; ++x) rows[x] += row[x];
      }
      for (index_t ox = 0; ox < ax.out; ++ox) {
        const index_t x0 = ax.Begin(ox), x1 = ax.End(ox);
        DType sum = 0;
        for (index_t x = x0; x < x1; ++x) sum += rows[x];
        AssignReq<kReq>(o + oy * ax.out + ox, sum / DType((y1 - y0) * (x1 - x0)));
      }
    }
  }
};

// fn(image, share, y0, y1, x0, x1) for each bin of gradient plane p: its share of the output
// gradient and its extent in the plane `image`.
template <typename DType, typename Fn>
void ForEachBinShare(index_t p, DType* grad, const DType* og, AdaptiveAxis ay, AdaptiveAxis ax,
                     Fn&& fn) {
  DType* image = grad + p * ay.in * ax.in;
  const DType* g = og + p * ay.out * ax.out;
  ForEachBin(ay, ax, [&](index_t j, index_t y0, index_t y1, index_t x0, index_t x1) {
    fn(image, g[j] / DType((y1 - y0) * (x1 - x0)), y0, y1, x0, x1);
  });
}

// The gradient's CPU item where bins overlap: each bin's share added to a zeroed plane.
struct adaptive_avg_pool_grad_plane {
  template <typename DType>
  static void Map(index_t p, DType* grad, const DType* og, AdaptiveAxis ay, AdaptiveAxis ax) {
    ForEachBinShare(p, grad, og, ay, ax,
                    [&](DType* image, DType share, index_t y0, index_t y1, index_t x0, index_t x1) {
                      for (index_t y = y0; y < y1; ++y) {
                        for (index_t x = x0; x < x1; ++x) image[y * ax.in + x] += share;
                      }
                    });
  }
};

// dst[0, n) = value, or += value.
template <bool kAdd, typename DType>
void FillRun(DType* dst, index_t n, DType value) {
  vec::ForEach<DType>(n, [&](index_t i, auto tag) {
    using P = vec::PacketOf<decltype(tag)>;
    vec::Store<kAdd>(dst + i, P::Fill(value));
  });
}

// The gradient where the bins tile the plane (each input extent a multiple of the output's):
// every element belongs to one bin and is written its share once, with no zeroing pass before
// the scatter (for global pooling that pass and the scatter's reads had made it three passes
// over the gradient instead of one).
template <bool kAdd>
struct adaptive_avg_pool_grad_tiles {
  template <typename DType>
  static void Map(index_t p, DType* grad, const DType* og, AdaptiveAxis ay, AdaptiveAxis ax) {
    ForEachBinShare(p, grad, og, ay, ax,
                    [&](DType* image, DType share, index_t y0, index_t y1, index_t x0, index_t x1) {
                      if (ax.out == 1) {
                        return FillRun<kAdd>(image + y0 * ax.in, (y1 - y0) * ax.in, share);
                      }
                      for (index_t y = y0; y < y1; ++y) {
                        FillRun<kAdd>(image + y * ax.in + x0, x1 - x0, share);
                      }
                    });
  }
};

// The forward operators: out[0] (N, C, h, w) from in[0] (N, C, H, W).
template <typename xpu, bool kBilinear>
void ResizeCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape &x = in[0].shape_, &y = out[0].shape_;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      if constexpr (kBilinear) {
        const bool align = GetParam<BilinearResizeParam>(attrs).align_corners;
        const auto ay = AxisOf<DType>(x[2], y[2], align), ax = AxisOf<DType>(x[3], y[3], align);
        if constexpr (std::is_same_v<xpu, cpu>) {
          const BilinearTaps<DType> ty(ay), tx(ax);
          Kernel<bilinear_resize_plane<Req>, cpu>::LaunchItems(
              s, x[0] * x[1], y[2] * y[3] + x[2] * x[3], out[0].dptr<DType>(),
              in[0].dptr<DType>(), x[2], x[3], &ty, &tx);
        } else {
          Kernel<bilinear_resize<Req>, xpu>::Launch(s, out[0].Size(), out[0].dptr<DType>(),
                                                    in[0].dptr<DType>(), ay, ax);
        }
      } else if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<adaptive_avg_pool_plane<Req>, cpu>::LaunchItems(
            s, x[0] * x[1], x[2] * x[3], out[0].dptr<DType>(), in[0].dptr<DType>(),
            AdaptiveAxis{x[2], y[2]}, AdaptiveAxis{x[3], y[3]});
      } else {
        Kernel<adaptive_avg_pool<Req>, xpu>::Launch(s, out[0].Size(), out[0].dptr<DType>(),
                                                    in[0].dptr<DType>(), AdaptiveAxis{x[2], y[2]},
                                                    AdaptiveAxis{x[3], y[3]});
      }
    });
  });
}

// The gradients. Inputs: the output gradient; outputs: the data's gradient (and like's zeros).
template <typename xpu, bool kBilinear>
void ResizeGradCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape &x = out[0].shape_, &y = in[0].shape_;
  const index_t planes = x[0] * x[1];
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    for (size_t i = 1; i < out.size(); ++i) WriteZeroGradient<xpu, DType>(out[i], req[i], s);
    if (req[0] == kNullOp) return;
    DType* grad = out[0].dptr<DType>();
    const DType* og = in[0].dptr<DType>();
    const index_t per_plane = y[2] * y[3];
    if constexpr (!kBilinear && std::is_same_v<xpu, cpu>) {
      if (x[2] % y[2] == 0 && x[3] % y[3] == 0) {
        return vec::WithReq(req[0], [&](auto add) {
          Kernel<adaptive_avg_pool_grad_tiles<decltype(add)::value>, cpu>::LaunchItems(
              s, planes, x[2] * x[3], grad, og, AdaptiveAxis{x[2], y[2]}, AdaptiveAxis{x[3], y[3]});
        });
      }
    }
    WriteZeroGradient<xpu, DType>(out[0], req[0], s);  // the scatters add
    if constexpr (kBilinear) {
      const bool align = GetParam<BilinearResizeParam>(attrs).align_corners;
      const auto ay = AxisOf<DType>(x[2], y[2], align), ax = AxisOf<DType>(x[3], y[3], align);
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<bilinear_resize_grad_plane, cpu>::LaunchItems(s, planes, 4 * per_plane, grad, og, ay,
                                                             ax);
      } else {
        Kernel<bilinear_resize_grad_atomic, xpu>::Launch(s, in[0].Size(), grad, og, ay, ax);
      }
    } else {
      const AdaptiveAxis ay{x[2], y[2]}, ax{x[3], y[3]};
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<adaptive_avg_pool_grad_plane, cpu>::LaunchItems(s, planes, x[2] * x[3] + per_plane,
                                                               grad, og, ay, ax);
      } else {
        Kernel<adaptive_avg_pool_grad, xpu>::Launch(s, in[0].Size(), grad, og, ay, ax);
      }
    }
  });
}

// Adds FCompute<xpu> to the two operators and their backward operators.
template <typename xpu>
void SetResizeCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  const auto set = [attr_name](const char* name, FCompute compute) {
    RegisterOp(name).set_attr<FCompute>(attr_name, compute);
  };
  set("_contrib_BilinearResize2D", ResizeCompute<xpu, true>);
  set("_backward_contrib_BilinearResize2D", ResizeGradCompute<xpu, true>);
  set("_contrib_AdaptiveAvgPooling2D", ResizeCompute<xpu, false>);
  set("_backward_contrib_AdaptiveAvgPooling2D", ResizeGradCompute<xpu, false>);
}

}  // namespace resize
}  // namespace ops

#endif  // OPS_RESIZE_INL_H_
