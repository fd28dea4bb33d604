// ops/pooling-inl.h: Pooling (max, avg, sum, lp over 1, 2 or 3 spatial axes; global_pool;
// valid and full conventions; count_include_pad) and its backward operator, written once for
// every device. pooling.cc registers them with FCompute<cpu> and shape inference, pooling.cu
// adds FCompute<gpu>.
//
// As in ops/im2col.h, the CPU's items are whole planes (one image's channel): max, avg and
// sum pool them one spatial axis at a time (vectorized passes; their gradients too), lp
// window by window. The GPU's items are single elements, and each input element gathers the
// gradient of the windows that hold it, so no two threads write one element; max pooling's
// run on tiles of a plane (pooling.cu).
#ifndef OPS_POOLING_INL_H_
#define OPS_POOLING_INL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/conv_geometry.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/max_pool_window.h"
#include "ops/vector_loop.h"

namespace ops {
namespace pooling {

enum PoolType { kMax = 0, kAvg = 1, kSum = 2, kLp = 3 };
enum Convention { kValid = 0, kFull = 1, kSame = 2 };

struct PoolingParam : public dmlc::Parameter<PoolingParam> {
  TShape kernel;
  int pool_type;
  bool global_pool;
  bool cudnn_off;
  int pooling_convention;
  TShape stride;
  TShape pad;
  dmlc::optional<int> p_value;
  dmlc::optional<bool> count_include_pad;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(PoolingParam) {
    DMLC_DECLARE_FIELD(kernel).set_default(TShape()).describe(
        "Window size: (w,), (h, w) or (d, h, w); ignored with global_pool.");
    DMLC_DECLARE_FIELD(pool_type)
        .set_default(kMax)
        .add_enum("max", kMax)
        .add_enum("avg", kAvg)
        .add_enum("sum", kSum)
        .add_enum("lp", kLp)
        .describe("Reduction over each window.");
    DMLC_DECLARE_FIELD(global_pool).set_default(false).describe(
        "Pool over every spatial position (kernel, stride and pad ignored).");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false).describe(
        "Accepted for MXNet compatibility; ignored.");
    DMLC_DECLARE_FIELD(pooling_convention)
        .set_default(kValid)
        .add_enum("valid", kValid)
        .add_enum("full", kFull)
        .add_enum("same", kSame)
        .describe("Output extent: valid floor((x + 2 * pad - kernel) / stride) + 1, full "
                  "ceil(...) + 1. same is not supported (MXNet 1.9.1 fails on it too).");
    DMLC_DECLARE_FIELD(stride).set_default(TShape()).describe(
        "Stride per spatial axis; () is 1 on every axis.");
    DMLC_DECLARE_FIELD(pad).set_default(TShape()).describe(
        "Padding on both sides of each spatial axis; () is 0 on every axis.");
    DMLC_DECLARE_FIELD(p_value).set_default(dmlc::optional<int>()).describe(
        "p of lp pooling: 1, 2 or 3, (sum over the window of x^p)^(1/p).");
    DMLC_DECLARE_FIELD(count_include_pad).set_default(dmlc::optional<bool>()).describe(
        "Whether avg divides by the window size with its padding (None: true) or by the "
        "number of input elements in it.");
    DMLC_DECLARE_FIELD(layout)
        .add_enum("NCW", 0)
        .add_enum("NCHW", 1)
        .add_enum("NCDHW", 2)
        .add_enum("NWC", 3)
        .add_enum("NHWC", 4)
        .add_enum("NDHWC", 5)
        .set_default(dmlc::optional<int>())
        .describe("Data layout; only the channel-first layouts (NCW, NCHW, NCDHW) are "
                  "supported. None: channel-first.");
  }
};

// What a window reduction needs besides the geometry (plain data for kernels).
struct PoolSpec {
  int type;
  int p;  // lp's p
  bool count_include_pad;
};

inline PoolSpec SpecOf(const PoolingParam& param) {
  return {param.pool_type, param.p_value.has_value() ? param.p_value.value() : 0,
          !param.count_include_pad.has_value() || param.count_include_pad.value()};
}

// The geometry of pooling `data` (batch, channels, spatial...), output extents included; a
// dmlc::Error for parameters that do not fit it.
inline ConvGeometry Geometry(const PoolingParam& param, const TShape& data) {
  CheckChannelFirst(param.layout, "Pooling");
  if (param.pooling_convention == kSame) {
    throw dmlc::Error("pooling_convention 'same' is not supported; valid: 'valid', 'full'");
  }
  if (param.pool_type == kLp) {
    const int p = param.p_value.has_value() ? param.p_value.value() : 0;
    if (p < 1 || p > 3) {
      std::ostringstream os;
      os << "lp pooling takes p_value 1, 2 or 3, given " << param.p_value;
      throw dmlc::Error(os.str());
    }
  }
  ConvGeometry g;
  if (param.global_pool) {
    if (data.ndim() < 3 || data.ndim() > 2 + ConvGeometry::kMaxSpatial) {
      std::ostringstream os;
      os << "global Pooling takes data of rank 3 to 5 (batch, channel, spatial...) but the "
            "data is "
         << data;
      throw dmlc::Error(os.str());
    }
    g.ndim = data.ndim() - 2;
    g.channels = data[1];
    for (int a = 0; a < g.ndim; ++a) {
      g.in[a] = g.kernel[a] = data[2 + a];
      g.stride[a] = g.dilate[a] = g.out[a] = 1;
    }
    return g;
  }
  if (param.kernel.ndim() == 0) {
    throw dmlc::Error("Pooling needs a kernel unless global_pool is true");
  }
  SetSpatialInput(param.kernel, data, "Pooling", &g);
  ExpandSpatial(param.stride, g.ndim, 1, 1, "stride", g.stride);
  ExpandSpatial(param.pad, g.ndim, 0, 0, "pad", g.pad);
  for (int a = 0; a < g.ndim; ++a) {
    g.dilate[a] = 1;
    const index_t padded = g.in[a] + 2 * g.pad[a];
    if (g.kernel[a] > padded) {
      std::ostringstream os;
      os << "the kernel " << param.kernel << " (" << g.kernel[a] << " on spatial axis " << a
         << ") is larger than the padded input (" << padded << ") of data " << data;
      throw dmlc::Error(os.str());
    }
    const index_t span = padded - g.kernel[a];
    g.out[a] = (param.pooling_convention == kFull ? (span + g.stride[a] - 1) : span) /
                   g.stride[a] +
               1;
  }
  return g;
}

// The geometry with 3 spatial axes, unit axes in front of the real ones: the flat layout of
// planes is unchanged, and the kernels below are plain loops over depth, height and width.
inline ConvGeometry As3D(const ConvGeometry& g) {
  ConvGeometry g3 = g;
  const int shift = ConvGeometry::kMaxSpatial - g.ndim;
  g3.ndim = ConvGeometry::kMaxSpatial;
  for (int a = ConvGeometry::kMaxSpatial - 1; a >= 0; --a) {
    const bool real = a >= shift;
    g3.in[a] = real ? g.in[a - shift] : 1;
    g3.out[a] = real ? g.out[a - shift] : 1;
    g3.kernel[a] = real ? g.kernel[a - shift] : 1;
    g3.stride[a] = real ? g.stride[a - shift] : 1;
    g3.dilate[a] = 1;
    g3.pad[a] = real ? g.pad[a - shift] : 0;
  }
  return g3;
}

// The window of output position o on one axis: input positions [begin, end), and its length
// with the padding (cut where the padded input ends, for the full convention).
struct AxisWindow {
  index_t begin, end, padded;
};

MSHADOW_XINLINE AxisWindow WindowOn(const ConvGeometry& g, int a, index_t o) {
  const index_t start = o * g.stride[a] - g.pad[a];
  const index_t limit = g.in[a] + g.pad[a];
  const index_t stop = start + g.kernel[a] < limit ? start + g.kernel[a] : limit;
  return {start < 0 ? 0 : start, stop < g.in[a] ? stop : g.in[a], stop - start};
}

// A window over the three axes of a 3-D geometry.
struct Window {
  AxisWindow d, h, w;
  // avg's divisor: the window's size with or without its padding.
  MSHADOW_XINLINE index_t Divisor(bool count_include_pad) const {
    return count_include_pad ? d.padded * h.padded * w.padded
                             : (d.end - d.begin) * (h.end - h.begin) * (w.end - w.begin);
  }
};

MSHADOW_XINLINE Window WindowAt(const ConvGeometry& g, index_t od, index_t oh, index_t ow) {
  return {WindowOn(g, 0, od), WindowOn(g, 1, oh), WindowOn(g, 2, ow)};
}

// x^p for lp's p = 1, 2, 3, and its inverse.
template <typename DType>
MSHADOW_XINLINE DType PowerP(DType x, int p) {
  return p == 1 ? x : (p == 2 ? x * x : x * x * x);
}
template <typename DType>
MSHADOW_XINLINE DType RootP(DType x, int p) {
  return p == 1 ? x : (p == 2 ? sqrt(x) : cbrt(x));
}

// max's identity: the lowest finite value, as MXNet's (a window of NaN or -inf only, or one
// wholly outside the input, gives it).
template <int kType, typename DType>
MSHADOW_XINLINE DType FoldIdentity() {
  return kType == kMax ? std::numeric_limits<DType>::lowest() : DType(0);
}

// The pooled value of one window of a plane (3-D geometry); with kArgmax (max only), also the
// plane offset of its first maximum, as MXNet's backward takes the first element equal to the
// output (-1 for an empty window: its gradient goes nowhere). NaN is skipped, as MXNet does.
// Selects, not branches: on real data the comparisons are unpredictable.
template <int kType, bool kArgmax = false, typename DType>
MSHADOW_XINLINE DType PoolWindow(const ConvGeometry& g, const PoolSpec& spec, const Window& win,
                                 const DType* plane, index_t* argmax = nullptr) {
  const index_t height = g.in[1], width = g.in[2];
  DType acc = FoldIdentity<kType, DType>();
  index_t where = (win.d.begin * height + win.h.begin) * width + win.w.begin;
  for (index_t d = win.d.begin; d < win.d.end; ++d) {
    for (index_t h = win.h.begin; h < win.h.end; ++h) {
      const index_t row = (d * height + h) * width;
      for (index_t w = win.w.begin; w < win.w.end; ++w) {
        const DType v = plane[row + w];
        if constexpr (kType == kMax) {
          if constexpr (kArgmax) where = v > acc ? row + w : where;
          acc = v > acc ? v : acc;
        } else if constexpr (kType == kLp) {
          acc += PowerP(v, spec.p);
        } else {
          acc += v;
        }
      }
    }
  }
  if constexpr (kArgmax) {
    // A window past the input (full convention) begins after it ends.
    const bool empty =
        win.d.begin >= win.d.end || win.h.begin >= win.h.end || win.w.begin >= win.w.end;
    *argmax = empty ? -1 : where;
  }
  if constexpr (kType == kAvg) acc /= DType(win.Divisor(spec.count_include_pad));
  if constexpr (kType == kLp) acc = RootP(acc, spec.p);
  return acc;
}

// The gradient an input element x of a window with output y and output gradient og gets
// (max: the caller gives og to the window's first maximum only).
template <int kType, typename DType>
MSHADOW_XINLINE DType ElementGradient(const PoolSpec& spec, const Window& win, DType og, DType y,
                                      DType x) {
  if constexpr (kType == kAvg) return og / DType(win.Divisor(spec.count_include_pad));
  if constexpr (kType == kLp) {  // d/dx (sum x^p)^(1/p) = (x / y)^(p-1)
    return spec.p == 1 ? og : (spec.p == 2 ? og * x / y : og * x * x / (y * y));
  }
  return og;
}

// Runs fn(std::integral_constant<int, type>) for the run-time pool type.
template <typename Fn>
void PoolTypeSwitch(int type, Fn&& fn) {
  switch (type) {
    case kMax:
      return fn(std::integral_constant<int, kMax>());
    case kAvg:
      return fn(std::integral_constant<int, kAvg>());
    case kSum:
      return fn(std::integral_constant<int, kSum>());
    default:
      return fn(std::integral_constant<int, kLp>());
  }
}

// CPU item: plane i (image, channel), every output position, window by window (lp; the
// other types go one axis at a time, below).
template <int kType, int kReq>
struct PoolPlaneForward {
  template <typename DType>
  static void Map(index_t i, const ConvGeometry g, const PoolSpec spec, const DType* in,
                  DType* out) {
    const DType* plane = in + i * g.InSize();
    DType* y = out + i * g.OutSize();
    for (index_t od = 0; od < g.out[0]; ++od) {
      for (index_t oh = 0; oh < g.out[1]; ++oh) {
        for (index_t ow = 0; ow < g.out[2]; ++ow) {
          AssignReq<kReq>(y++, PoolWindow<kType>(g, spec, WindowAt(g, od, oh, ow), plane));
        }
      }
    }
  }
};

// Max pooling's outputs: the maxima and, hidden, the plane offset of each window's first
// maximum (int32), which the backward operator reads instead of searching the window again.
inline uint32_t NumOutputs(const PoolingParam& param) { return param.pool_type == kMax ? 2 : 1; }

// a / b for a >= 0 and b > 0, in 32 bits where both fit: a GPU divides 64-bit integers in
// software, several times slower, and its pooling items are bound by their index arithmetic.
MSHADOW_XINLINE index_t DivideNonNegative(index_t a, index_t b) {
  if (a <= index_t{UINT32_MAX} && b <= index_t{UINT32_MAX}) {
    return static_cast<index_t>(static_cast<uint32_t>(a) / static_cast<uint32_t>(b));
  }
  return a / b;
}

// Flat index i of planes of `extent` (three axes) as (plane, d, h, w).
struct PlanePosition {
  index_t plane, d, h, w;
};
MSHADOW_XINLINE PlanePosition PositionOf(index_t i, const index_t* extent) {
  const index_t q2 = DivideNonNegative(i, extent[2]);
  const index_t q1 = DivideNonNegative(q2, extent[1]);
  const index_t q0 = DivideNonNegative(q1, extent[0]);
  return {q0, q1 - q0 * extent[0], q2 - q1 * extent[1], i - q2 * extent[2]};
}

// GPU item: output element i.
template <int kType, int kReq>
struct PoolElementForward {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, const ConvGeometry g, const PoolSpec spec,
                                  const DType* in, DType* out) {
    const PlanePosition at = PositionOf(i, g.out);
    AssignReq<kReq>(out + i, PoolWindow<kType>(g, spec, WindowAt(g, at.d, at.h, at.w),
                                               in + at.plane * g.InSize()));
  }
};

// CPU item: plane i of the input gradient, written (kReq) with every window's gradient
// scattered onto it (lp; the other types go one axis at a time, below).
template <int kType, int kReq>
struct PoolPlaneBackward {
  template <typename DType>
  static void Map(index_t i, const ConvGeometry g, const PoolSpec spec, const DType* og,
                  const DType* in, const DType* out, DType* in_grad) {
    const DType* plane = in + i * g.InSize();
    DType* grad = in_grad + i * g.InSize();
    if (kReq != kAddTo) {
      for (index_t x = 0; x < g.InSize(); ++x) grad[x] = DType(0);
    }
    const index_t height = g.in[1], width = g.in[2];
    index_t at = i * g.OutSize();
    for (index_t od = 0; od < g.out[0]; ++od) {
      for (index_t oh = 0; oh < g.out[1]; ++oh) {
        for (index_t ow = 0; ow < g.out[2]; ++ow, ++at) {
          const Window win = WindowAt(g, od, oh, ow);
          for (index_t d = win.d.begin; d < win.d.end; ++d) {
            for (index_t h = win.h.begin; h < win.h.end; ++h) {
              const index_t row = (d * height + h) * width;
              for (index_t w = win.w.begin; w < win.w.end; ++w) {
                grad[row + w] += ElementGradient<kType>(spec, win, og[at], out[at], plane[row + w]);
              }
            }
          }
        }
      }
    }
  }
};

// The CPU's max, avg and sum pooling and their gradients, one spatial axis at a time: a box
// window's reduction is the reduction along depth of reductions along height of reductions
// along width. Each pass is a 1-D pooling: along width over strided elements of a row, along
// height and depth over whole rows (contiguous, so the loops vectorize). That is kernel[0] +
// kernel[1] + kernel[2] loads per output instead of their product, and no window arithmetic
// in the inner loops. Sums add in another order than PoolWindow's (a rounding difference);
// max's first maximum is the same: the first row whose maximum exceeds the rows' before it,
// and in that row the first column.

// acc (op) v for the separable pool types; max's select skips NaN, as PoolWindow's does.
template <int kType, typename DType>
inline DType Fold(DType acc, DType v) {
  if constexpr (kType == kMax) {
    return v > acc ? v : acc;
  } else {
    return acc + v;
  }
}

// Whether axis a is a unit axis that pooling leaves alone (the axes As3D puts in front).
inline bool IsIdentityAxis(const ConvGeometry& g, int a) {
  return g.in[a] == 1 && g.out[a] == 1 && g.kernel[a] == 1 && g.pad[a] == 0;
}

// Whether the plane's only window is the whole plane (global pooling): the plane is then
// reduced in one contiguous pass.
inline bool PoolsWholePlane(const ConvGeometry& g) {
  for (int a = 0; a < ConvGeometry::kMaxSpatial; ++a) {
    const AxisWindow win = WindowOn(g, a, 0);
    if (g.out[a] != 1 || win.begin != 0 || win.end != g.in[a]) return false;
  }
  return true;
}

// avg's divisor where the plane is the only window (PoolsWholePlane).
template <typename DType>
DType WholePlaneDivisor(const ConvGeometry& g, const PoolSpec& spec) {
  return DType(WindowAt(g, 0, 0, 0).Divisor(spec.count_include_pad));
}

// The outputs along width whose windows lie inside the row: [*lo, *hi).
inline void InteriorOfWidth(const ConvGeometry& g, index_t* lo, index_t* hi) {
  const index_t in = g.in[2], out = g.out[2], stride = g.stride[2], pad = g.pad[2];
  *lo = std::min(out, (pad + stride - 1) / stride);
  const index_t fit = in + pad >= g.kernel[2] ? (in + pad - g.kernel[2]) / stride + 1 : 0;
  *hi = std::max(*lo, std::min(out, fit));
}

// fn(std::integral_constant<index_t, s>()) for the strides 1 and 2, whose loops then have a
// constant stride; fn(0) (the run-time stride) otherwise.
template <typename Fn>
inline void WithConstantStride(index_t stride, Fn&& fn) {
  if (stride == 1) return fn(std::integral_constant<index_t, 1>());
  if (stride == 2) return fn(std::integral_constant<index_t, 2>());
  fn(std::integral_constant<index_t, 0>());
}

// dst[r][o] = the fold over o's window along width of src[r], for `rows` rows of g.in[2]
// elements into rows of g.out[2]. With kArg (max), arg[r][o] = the offset in src of the
// window's first maximum (-1 for an empty window).
template <int kType, bool kArg = false, typename DType, typename Offset = index_t>
void PoolAlongWidth(const ConvGeometry& g, const DType* src, index_t rows, DType* dst,
                    Offset* arg = nullptr) {
  const index_t in = g.in[2], out = g.out[2], pad = g.pad[2];
  index_t lo, hi;
  InteriorOfWidth(g, &lo, &hi);
  WithConstantStride(g.stride[2], [&](auto constant) {
    const index_t stride = constant.value ? constant.value : g.stride[2];
    // Outputs [begin, end) of rows laid end to end, each reading its taps at o * stride - pad
    // + k of src: a pass per tap (the first starts the fold). With kArg the passes keep the
    // tap of the maximum (a constant per pass, cheap to select); one pass afterwards turns
    // taps into offsets.
    auto interior = [&](const DType* x, DType* y, Offset* where, index_t begin, index_t end) {
      for (index_t k = 0; k < g.kernel[2]; ++k) {
        const DType* tap = x - pad + k;
        if (k == 0) {
          OPS_SIMD_LOOP
          for (index_t o = begin; o < end; ++o) {
            y[o] = Fold<kType>(FoldIdentity<kType, DType>(), tap[o * stride]);
            if constexpr (kArg) where[o] = 0;
          }
        } else if constexpr (kArg) {
          const Offset tap_index = static_cast<Offset>(k);
          OPS_SIMD_LOOP
          for (index_t o = begin; o < end; ++o) {
            const DType v = tap[o * stride];
            where[o] = v > y[o] ? tap_index : where[o];
            y[o] = v > y[o] ? v : y[o];
          }
        } else {
          OPS_SIMD_LOOP
          for (index_t o = begin; o < end; ++o) y[o] = Fold<kType>(y[o], tap[o * stride]);
        }
      }
      if constexpr (kArg) {  // window o starts at o * stride - pad in x
        const Offset start = static_cast<Offset>(x - src - pad), step = static_cast<Offset>(stride);
        OPS_SIMD_LOOP
        for (index_t o = begin; o < end; ++o) where[o] += start + static_cast<Offset>(o) * step;
      }
    };
    // The windows at a row's ends, which the padding cuts: one at a time.
    auto edges = [&](index_t r) {
      const DType* x = src + r * in;
      DType* y = dst + r * out;
      Offset* where = kArg ? arg + r * out : nullptr;
      auto edge = [&](index_t o) {
        const AxisWindow win = WindowOn(g, 2, o);
        DType acc = FoldIdentity<kType, DType>();
        Offset first = static_cast<Offset>(win.begin < win.end ? r * in + win.begin : -1);
        for (index_t i = win.begin; i < win.end; ++i) {
          if constexpr (kArg) first = x[i] > acc ? static_cast<Offset>(r * in + i) : first;
          acc = Fold<kType>(acc, x[i]);
        }
        y[o] = acc;
        if constexpr (kArg) where[o] = first;
      };
      for (index_t o = 0; o < lo; ++o) edge(o);
      for (index_t o = hi; o < out; ++o) edge(o);
    };
    if (in == out * stride && lo < hi) {
      // Rows end to end are one row: output r * out + o reads r * in + o * stride - pad + k.
      // One long pass (no short remainder loop per row) from the first row's interior to the
      // last row's; the outputs between two rows' interiors are then redone as edges.
      interior(src, dst, arg, lo, (rows - 1) * out + hi);
      for (index_t r = 0; r < rows; ++r) edges(r);
      return;
    }
    for (index_t r = 0; r < rows; ++r) {
      interior(src + r * in, dst + r * out, kArg ? arg + r * out : nullptr, lo, hi);
      edges(r);
    }
  });
}

// dst[p][q][:] = the fold over q's window along axis a (0 or 1) of the rows src[p][.][:], for
// `outer` blocks of g.in[a] rows of `inner` elements into blocks of g.out[a] rows. With kArg
// (max), arg_dst takes the arg_src entry of the row that gave each maximum (the window's
// first row by default; -1 for an empty window).
template <int kType, bool kArg = false, typename DType, typename Offset = index_t>
void PoolAlongRows(const ConvGeometry& g, int a, const DType* src, index_t outer,
                   index_t inner, DType* dst, const Offset* arg_src = nullptr,
                   Offset* arg_dst = nullptr) {
  for (index_t p = 0; p < outer; ++p) {
    for (index_t q = 0; q < g.out[a]; ++q) {
      const AxisWindow win = WindowOn(g, a, q);
      const index_t out_row = (p * g.out[a] + q) * inner, in_block = p * g.in[a] * inner;
      DType* y = dst + out_row;
      Offset* where = kArg ? arg_dst + out_row : nullptr;
      if (win.begin >= win.end) {
        std::fill(y, y + inner, FoldIdentity<kType, DType>());
        if constexpr (kArg) std::fill(where, where + inner, Offset{-1});
        continue;
      }
      // A pass per row of the window (the first starts the fold).
      for (index_t i = win.begin; i < win.end; ++i) {
        const DType* row = src + in_block + i * inner;
        const Offset* row_arg = kArg ? arg_src + in_block + i * inner : nullptr;
        if (i == win.begin) {
          OPS_SIMD_LOOP
          for (index_t j = 0; j < inner; ++j) {
            y[j] = Fold<kType>(FoldIdentity<kType, DType>(), row[j]);
            if constexpr (kArg) where[j] = row_arg[j];
          }
        } else if constexpr (kArg) {
          OPS_SIMD_LOOP
          for (index_t j = 0; j < inner; ++j) {
            where[j] = row[j] > y[j] ? row_arg[j] : where[j];
            y[j] = row[j] > y[j] ? row[j] : y[j];
          }
        } else {
          OPS_SIMD_LOOP
          for (index_t j = 0; j < inner; ++j) y[j] = Fold<kType>(y[j], row[j]);
        }
      }
    }
  }
}

// The adjoints of the two passes for a sum: every window's value added to each element of
// it. Along width, dst[r][x] = the sum of src[r][o] over the windows o holding x: every row
// of src is spread out first (src[r][o] at o * stride, zeros between), and then each element
// sums the kernel's width of its spread-out row ending at it (one contiguous, vectorized pass
// per tap; all rows spread before any is summed, so that no load waits on recent narrow
// stores). A window's part past the row's ends lands outside [0, in) and is dropped, which
// is WindowOn's cut. kAdd: added to dst. `spread`: room for rows * SpreadLength(g).
inline index_t SpreadLength(const ConvGeometry& g) {
  return std::max(g.in[2] + g.pad[2], g.out[2] * g.stride[2]) + g.kernel[2];
}

template <bool kAdd, typename DType>
void SpreadAlongWidth(const ConvGeometry& g, const DType* src, index_t rows, DType* dst,
                      DType* spread) {
  const index_t in = g.in[2], out = g.out[2], kernel = g.kernel[2];
  const index_t length = SpreadLength(g);
  WithConstantStride(g.stride[2], [&](auto constant) {
    const index_t stride = constant.value ? constant.value : g.stride[2];
    for (index_t r = 0; r < rows; ++r) {
      const DType* y = src + r * out;
      // Position j = o * stride of the spread-out row is row[j + kernel - 1].
      DType* row = spread + r * length;
      std::fill(row, row + kernel - 1, DType(0));
      DType* origin = row + kernel - 1;
      OPS_SIMD_LOOP
      for (index_t o = 0; o < out; ++o) {
        origin[o * stride] = y[o];
        for (index_t j = 1; j < stride; ++j) origin[o * stride + j] = DType(0);
      }
      std::fill(origin + out * stride, row + length, DType(0));
    }
  });
  for (index_t r = 0; r < rows; ++r) {
    DType* x = dst + r * in;
    // x reaches the windows starting at x + pad - k, k in [0, kernel).
    const DType* last_tap = spread + r * length + kernel - 1 + g.pad[2];
    OPS_SIMD_LOOP
    for (index_t i = 0; i < in; ++i) x[i] = kAdd ? x[i] + last_tap[i] : last_tap[i];
    for (index_t k = 1; k < kernel; ++k) {
      const DType* tap = last_tap - k;
      OPS_SIMD_LOOP
      for (index_t i = 0; i < in; ++i) x[i] += tap[i];
    }
  }
}

// The outputs on axis a whose windows hold input position x: [*first, *last).
MSHADOW_XINLINE void OutputsHolding(const ConvGeometry& g, int a, index_t x, index_t* first,
                                    index_t* last) {
  const index_t hi = x + g.pad[a];  // o * stride <= hi < o * stride + kernel
  const index_t lo = hi - g.kernel[a] + 1;
  *first = lo <= 0 ? 0 : DivideNonNegative(lo + g.stride[a] - 1, g.stride[a]);
  const index_t after = DivideNonNegative(hi, g.stride[a]) + 1;
  *last = after < g.out[a] ? after : g.out[a];
}

// dst[p][x][:] = the sum over the windows q along axis a holding x of src[p][q][:] (kAdd:
// added to dst), each row of dst written once from the rows of the windows that hold it.
template <bool kAdd, typename DType>
void GatherAlongRows(const ConvGeometry& g, int a, const DType* src, index_t outer, index_t inner,
                     DType* dst) {
  for (index_t p = 0; p < outer; ++p) {
    const DType* block = src + p * g.out[a] * inner;
    for (index_t x = 0; x < g.in[a]; ++x) {
      DType* row = dst + (p * g.in[a] + x) * inner;
      index_t first, last;
      OutputsHolding(g, a, x, &first, &last);
      if (first >= last) {
        if (!kAdd) std::fill(row, row + inner, DType(0));
        continue;
      }
      const DType* y = block + first * inner;
      OPS_SIMD_LOOP
      for (index_t j = 0; j < inner; ++j) row[j] = kAdd ? row[j] + y[j] : y[j];
      for (index_t q = first + 1; q < last; ++q) {
        y = block + q * inner;
        OPS_SIMD_LOOP
        for (index_t j = 0; j < inner; ++j) row[j] += y[j];
      }
    }
  }
}

// avg's divisor, a product of one factor per axis: the window's extent there, with or
// without its padding.
inline index_t DivisorFactor(const ConvGeometry& g, const PoolSpec& spec, int a, index_t o) {
  const AxisWindow win = WindowOn(g, a, o);
  return spec.count_include_pad ? win.padded : win.end - win.begin;
}

// row(at, outer, width_factors) for each row of a plane's outputs, at its flat offset: the
// divisor of output at + ow is outer * width_factors[ow] (avg only), so that the row's
// divisions run as one vector loop. width_factors: room for g.out[2] values.
template <typename DType, typename Fn>
void ForEachDivisorRow(const ConvGeometry& g, const PoolSpec& spec, DType* width_factors,
                       Fn&& row) {
  for (index_t ow = 0; ow < g.out[2]; ++ow) {
    width_factors[ow] = DType(DivisorFactor(g, spec, 2, ow));
  }
  index_t at = 0;
  for (index_t od = 0; od < g.out[0]; ++od) {
    for (index_t oh = 0; oh < g.out[1]; ++oh, at += g.out[2]) {
      row(at, DType(DivisorFactor(g, spec, 0, od) * DivisorFactor(g, spec, 1, oh)),
          static_cast<const DType*>(width_factors));
    }
  }
}

// The calling thread's scratch space for n elements (it only grows: no allocation per plane).
template <typename DType>
DType* Scratch(index_t n) {
  return static_cast<DType*>(mshadow::ThreadScratch(static_cast<size_t>(n) * sizeof(DType)));
}

// CPU item: plane i of n elements pooled whole (PoolsWholePlane; avg and sum), its sum
// divided by `divisor` (1 for sum). An item of its own, inlined into the loop over planes: as
// a branch of PoolPlaneForwardByAxis, the call and the geometry's checks per plane had taken
// most of the time of a 7 x 7 plane (docs/benchmarks.md, seventy-eighth session).
template <int kReq>
struct PoolWholePlane {
  template <typename DType>
  MSHADOW_CINLINE static void Map(index_t i, index_t n, DType divisor, const DType* in,
                                  DType* out) {
    const DType* plane = in + i * n;
    const DType sum = vec::Sum<DType>(n, [&](index_t at, auto tag) {
      return vec::PacketOf<decltype(tag)>::LoadUnAligned(plane + at);
    });
    AssignReq<kReq>(out + i, sum / divisor);
  }
};

// CPU item: plane i, every output, for avg and sum where the plane has several windows.
template <int kType, int kReq>
struct PoolPlaneForwardByAxis {
  template <typename DType>
  static void Map(index_t i, const ConvGeometry g, const PoolSpec spec, const DType* in,
                  DType* out) {
    // Along depth (3-D), then height, the input's rows long and contiguous, and along width
    // last, the rows end to end (short rows had left the height pass in scalar remainder
    // loops). Scratch: the passes' results (pooled the last), avg's divisors along width.
    const DType* plane = in + i * g.InSize();
    const bool has_depth = !IsIdentityAxis(g, 0);
    const index_t depth_done = has_depth ? g.out[0] * g.in[1] * g.in[2] : 0;
    const index_t height_done = g.out[0] * g.out[1] * g.in[2];
    DType* by_depth = Scratch<DType>(depth_done + height_done + g.OutSize() + g.out[2]);
    DType* by_height = by_depth + depth_done;
    DType* pooled = by_height + height_done;
    const DType* rows = plane;  // the height pass's input
    if (has_depth) {
      PoolAlongRows<kType>(g, 0, plane, 1, g.in[1] * g.in[2], by_depth);
      rows = by_depth;
    }
    PoolAlongRows<kType>(g, 1, rows, g.out[0], g.in[2], by_height);
    PoolAlongWidth<kType>(g, by_height, g.out[0] * g.out[1], pooled);
    DType* y = out + i * g.OutSize();
    if constexpr (kType == kAvg) {
      DType* width_factors = pooled + g.OutSize();
      ForEachDivisorRow(g, spec, width_factors, [&](index_t at, DType outer, const DType* fw) {
        OPS_SIMD_LOOP
        for (index_t ow = 0; ow < g.out[2]; ++ow) {
          AssignReq<kReq>(y + at + ow, pooled[at + ow] / (outer * fw[ow]));
        }
      });
    } else {
      OPS_SIMD_LOOP
      for (index_t at = 0; at < g.OutSize(); ++at) AssignReq<kReq>(y + at, pooled[at]);
    }
  }
};

// CPU item: plane i of the input gradient, for avg and sum.
template <int kType, int kReq>
struct PoolPlaneBackwardByAxis {
  template <typename DType>
  static void Map(index_t i, const ConvGeometry g, const PoolSpec spec, const DType* og,
                  DType* in_grad) {
    if (PoolsWholePlane(g)) {  // every element gets the one window's gradient
      const DType each = kType == kAvg ? og[i] / WholePlaneDivisor<DType>(g, spec) : og[i];
      DType* grad = in_grad + i * g.InSize();
      OPS_SIMD_LOOP
      for (index_t at = 0; at < g.InSize(); ++at) AssignReq<kReq>(grad + at, each);
      return;
    }
    // The forward passes' adjoints in reverse order: along width first (the output's rows
    // spread out), then height (3-D: then depth), the last pass into the gradient, each of
    // its rows written once from the rows of the windows that hold it. Scratch: the scaled
    // output gradient, the passes' results, avg's divisors along width, the spread-out rows
    // of the width pass.
    const bool has_depth = !IsIdentityAxis(g, 0);
    const index_t spread_rows = g.out[0] * g.out[1];
    const index_t first_done = spread_rows * g.in[2];
    const index_t second_done = has_depth ? g.out[0] * g.in[1] * g.in[2] : 0;
    DType* scaled = Scratch<DType>(g.OutSize() + first_done + second_done + g.out[2] +
                                   spread_rows * SpreadLength(g));
    DType* first = scaled + g.OutSize();
    DType* second = first + first_done;
    DType* width_factors = second + second_done;
    DType* spread = width_factors + g.out[2];
    const DType* g_out = og + i * g.OutSize();
    if constexpr (kType == kAvg) {
      ForEachDivisorRow(g, spec, width_factors, [&](index_t at, DType outer, const DType* fw) {
        OPS_SIMD_LOOP
        for (index_t ow = 0; ow < g.out[2]; ++ow) {
          scaled[at + ow] = g_out[at + ow] / (outer * fw[ow]);
        }
      });
    } else {
      std::copy(g_out, g_out + g.OutSize(), scaled);
    }
    constexpr bool kAdd = kReq == kAddTo;
    DType* grad = in_grad + i * g.InSize();
    SpreadAlongWidth<false>(g, scaled, spread_rows, first, spread);
    if (has_depth) {
      GatherAlongRows<false>(g, 1, first, g.out[0], g.in[2], second);
      GatherAlongRows<kAdd>(g, 0, second, 1, g.in[1] * g.in[2], grad);
    } else {
      GatherAlongRows<kAdd>(g, 1, first, 1, g.in[2], grad);
    }
  }
};

// Whether the windows tile each plane exactly: on every pooled axis no padding, windows of the
// kernel's extent one after the other (stride = kernel), the input's extent whole windows.
inline bool WindowsTilePlane(const ConvGeometry& g) {
  for (int a = 0; a < ConvGeometry::kMaxSpatial; ++a) {
    if (IsIdentityAxis(g, a)) continue;
    if (g.pad[a] != 0 || g.stride[a] != g.kernel[a] || g.in[a] != g.out[a] * g.kernel[a]) {
      return false;
    }
  }
  return true;
}

// CPU item: plane i of avg's or sum's input gradient where WindowsTilePlane: each input row
// is its windows' output gradient row, each element kernel[2] times, divided by `divisor`
// (the window's size for avg, 1 for sum), spread once into scratch and then written to the
// kernel[0] x kernel[1] input rows its windows cover. The by-axis passes had written the
// plane through two scratch passes first (the 3-d 2x2x2 gradient at 0.85-0.96 of MXNet;
// docs/benchmarks.md, seventy-eighth session).
template <int kReq>
struct PoolTiledPlaneBackward {
  template <typename DType>
  static void Map(index_t i, const ConvGeometry g, DType divisor, const DType* og,
                  DType* in_grad) {
    const index_t kd = g.kernel[0], kh = g.kernel[1], kw = g.kernel[2];
    const index_t in_w = g.in[2], out_w = g.out[2];
    DType* row = Scratch<DType>(in_w);
    const DType* g_out = og + i * g.OutSize();
    DType* grad = in_grad + i * g.InSize();
    for (index_t od = 0; od < g.out[0]; ++od) {
      for (index_t oh = 0; oh < g.out[1]; ++oh) {
        const DType* from = g_out + (od * g.out[1] + oh) * out_w;
        for (index_t ow = 0; ow < out_w; ++ow) {
          const DType share = from[ow] / divisor;
          for (index_t k = 0; k < kw; ++k) row[ow * kw + k] = share;
        }
        for (index_t d = od * kd; d < (od + 1) * kd; ++d) {
          for (index_t h = oh * kh; h < (oh + 1) * kh; ++h) {
            DType* to = grad + (d * g.in[1] + h) * in_w;
            OPS_SIMD_LOOP
            for (index_t x = 0; x < in_w; ++x) AssignReq<kReq>(to + x, row[x]);
          }
        }
      }
    }
  }
};

// Whether a plane's max pooling runs window by window in registers (ops/max_pool_window.h)
// where the arch has the kernel for the width's stride and kernel: 2-D pooling directly, 3-D
// a depth slice at a time before one pass along depth.
template <typename DType>
bool MaxPoolsByWindows(const ConvGeometry& g) {
  return max_window::Available<DType>(g.stride[2], g.kernel[2]);
}

// The maximum of plane[0, n) (NaN skipped, at least the lowest finite value) and the offset
// of its first occurrence, or 0 where nothing exceeds the lowest value: PoolWindow's result
// for a window of the whole plane. Sixteen lanes fold apart (x > m ? x : m is one vector
// max), then the first occurrence is searched for (a packet at a time where the arch has
// max_window's lanes).
template <typename DType>
DType MaxOfPlane(const DType* plane, index_t n, int32_t* offset) {
  constexpr index_t kLanes = 16;
  const DType lowest = std::numeric_limits<DType>::lowest();
  DType lanes[kLanes];
  std::fill(lanes, lanes + kLanes, lowest);
  index_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    OPS_SIMD_LOOP
    for (index_t l = 0; l < kLanes; ++l) {
      lanes[l] = plane[i + l] > lanes[l] ? plane[i + l] : lanes[l];
    }
  }
  DType m = lowest;
  for (index_t l = 0; l < kLanes; ++l) m = lanes[l] > m ? lanes[l] : m;
  for (; i < n; ++i) m = plane[i] > m ? plane[i] : m;
  *offset = m > lowest ? static_cast<int32_t>(max_window::FirstEqual(plane, n, m)) : 0;
  return m;
}

// A plane's 2-D max pooling window by window (MaxPoolsByWindows), a row of outputs at a time:
// the rows of axis 1 and 2 of g from `plane`, offsets within it.
// The input rows of the windows two output rows ahead are prefetched: the hardware's
// prefetchers, following several rows at once, had left the loads waiting on memory
// (docs/benchmarks.md, eighteenth session).
template <typename DType>
void MaxPoolPlaneByWindows(const ConvGeometry& g, const DType* plane, DType* value,
                           int32_t* offset) {
  constexpr index_t kRowsAhead = 2;
  index_t fetched = 0;  // input rows [0, fetched) are prefetched or read
  for (index_t oh = 0; oh < g.out[1]; ++oh) {
    const AxisWindow rows = WindowOn(g, 1, oh);
    if (oh + kRowsAhead < g.out[1]) {
      const index_t until = WindowOn(g, 1, oh + kRowsAhead).end;
      const char* line =
          reinterpret_cast<const char*>(plane + std::max(fetched, rows.end) * g.in[2]);
      const char* end = reinterpret_cast<const char*>(plane + until * g.in[2]);
      for (; line < end; line += 64) __builtin_prefetch(line);
      fetched = std::max(fetched, until);
    }
    max_window::Row(plane, g.in[2], rows.begin, rows.end, g.stride[2], g.pad[2], g.kernel[2],
                    g.out[2], value + oh * g.out[2], offset + oh * g.out[2]);
  }
}

// Plane i's max pooling: each window's maximum into `value` and the plane offset of its
// first maximum into `offset` (g.OutSize() each): the whole plane at once where it is the
// only window, else window by window where MaxPoolsByWindows, else one axis at a time, the
// passes between them in the calling thread's scratch (values and offsets carried along).
// With `stream` (outputs larger than the cache) the last pass too writes scratch, which then
// goes out through streaming stores: no read of each output line before its write.
template <typename DType>
void MaxPoolPlane(index_t i, const ConvGeometry& g, const DType* in, DType* value, int32_t* offset,
                  bool stream) {
  const DType* plane = in + i * g.InSize();
  if (PoolsWholePlane(g)) {
    value[0] = MaxOfPlane(plane, g.InSize(), offset);
    return;
  }
  const bool by_windows = MaxPoolsByWindows<DType>(g);
  const bool has_depth = !IsIdentityAxis(g, 0);
  const index_t slice_out = g.out[1] * g.out[2];
  // Scratch: by windows, each depth slice's maxima (3-D only); by axis, the width pass's and
  // (3-D) the height pass's.
  const index_t width_done = by_windows ? 0 : g.in[0] * g.in[1] * g.out[2];
  const index_t height_done = has_depth ? g.in[0] * slice_out : 0;
  const index_t passes = width_done + height_done;
  const index_t n = passes + (stream ? g.OutSize() : 0);
  const size_t value_bytes = (static_cast<size_t>(n) * sizeof(DType) + 7) / 8 * 8;
  char* scratch = static_cast<char*>(
      mshadow::ThreadScratch(value_bytes + static_cast<size_t>(n) * sizeof(int32_t)));
  DType* pass_value = reinterpret_cast<DType*>(scratch);
  int32_t* pass_offset = reinterpret_cast<int32_t*>(scratch + value_bytes);
  DType* last_value = stream ? pass_value + passes : value;
  int32_t* last_offset = stream ? pass_offset + passes : offset;
  DType* rows_value = has_depth ? pass_value + width_done : last_value;
  int32_t* rows_offset = has_depth ? pass_offset + width_done : last_offset;
  if (by_windows) {
    const index_t slice = g.in[1] * g.in[2];
    for (index_t d = 0; d < g.in[0]; ++d) {
      DType* slice_value = rows_value + d * slice_out;
      int32_t* slice_offset = rows_offset + d * slice_out;
      MaxPoolPlaneByWindows(g, plane + d * slice, slice_value, slice_offset);
      if (d > 0) {
        const int32_t shift = static_cast<int32_t>(d * slice);
        OPS_SIMD_LOOP
        for (index_t o = 0; o < slice_out; ++o) {
          slice_offset[o] = slice_offset[o] < 0 ? slice_offset[o] : slice_offset[o] + shift;
        }
      }
    }
  } else {
    PoolAlongWidth<kMax, true>(g, plane, g.in[0] * g.in[1], pass_value, pass_offset);
    PoolAlongRows<kMax, true>(g, 1, pass_value, g.in[0], g.out[2], rows_value, pass_offset,
                              rows_offset);
  }
  if (has_depth) {
    PoolAlongRows<kMax, true>(g, 0, rows_value, 1, slice_out, last_value, rows_offset, last_offset);
  }
  if (stream) {
    StreamRun(value, last_value, g.OutSize());
    StreamRun(offset, last_offset, g.OutSize());
    mshadow::FenceStreamingStores();
  }
}

// CPU item: plane i of max pooling, the maxima written (kReq) and their offsets in the plane
// to the hidden argmax output (always). kWriteTo passes write the output directly (`stream`:
// see MaxPoolPlane).
template <int kReq>
struct MaxPoolPlaneForwardByAxis {
  template <typename DType>
  static void Map(index_t i, const ConvGeometry g, const DType* in, DType* out,
                  int32_t* argmax, bool stream) {
    DType* y = out + i * g.OutSize();
    if constexpr (kReq == kWriteTo || kReq == kWriteInplace) {
      MaxPoolPlane(i, g, in, y, argmax + i * g.OutSize(), stream);
    } else {
      std::vector<DType> value(static_cast<size_t>(g.OutSize()));
      MaxPoolPlane(i, g, in, value.data(), argmax + i * g.OutSize(), false);
      OPS_SIMD_LOOP
      for (index_t at = 0; at < g.OutSize(); ++at) AssignReq<kReq>(y + at, value[at]);
    }
  }
};

// CPU item: plane i of max's input gradient, each output's gradient added at the offset its
// forward call kept. Offsets outside the plane (an empty window's -1, or a hidden output the
// host did not get from the forward call) go nowhere. Unless kAddTo, the plane is zeroed a
// few rows at a time, just ahead of the first output row whose windows reach them, so that
// the additions find their lines in the first-level cache (a whole plane zeroed first had
// left them in the second).
template <int kReq>
struct MaxPoolPlaneBackwardByAxis {
  template <typename DType>
  MSHADOW_CINLINE static void Map(index_t i, const ConvGeometry g, const DType* og,
                                  const int32_t* argmax, DType* in_grad) {
    const index_t in_size = g.InSize(), out_size = g.OutSize();
    DType* grad = in_grad + i * in_size;
    const DType* g_out = og + i * out_size;
    const int32_t* where = argmax + i * out_size;
    index_t zeroed = kReq == kAddTo ? in_size : 0;  // grad[0, zeroed) is ready for additions
    auto add_range = [&](index_t begin, index_t end) {
      for (index_t at = begin; at < end; ++at) {
        const index_t x = where[at];
        if (x >= zeroed && x < in_size) {  // not from the forward call: still added
          std::fill(grad + zeroed, grad + x + 1, DType(0));
          zeroed = x + 1;
        }
        if (x >= 0 && x < zeroed) grad[x] += g_out[at];
      }
    };
    if (kReq == kAddTo || g.out[0] * g.out[1] == 1) {
      if (kReq != kAddTo) std::fill(grad, grad + in_size, DType(0));
      zeroed = in_size;
      return add_range(0, out_size);
    }
    const index_t row = g.in[2];
    for (index_t od = 0, at = 0; od < g.out[0]; ++od) {
      const index_t depth_end = WindowOn(g, 0, od).end;
      for (index_t oh = 0; oh < g.out[1]; ++oh, at += g.out[2]) {
        // The row's windows lie before the end of input row (depth_end - 1, rows_end - 1).
        const index_t rows_end = WindowOn(g, 1, oh).end;
        const index_t reach = std::min(in_size, ((depth_end - 1) * g.in[1] + rows_end) * row);
        if (reach > zeroed) {
          std::fill(grad + zeroed, grad + reach, DType(0));
          zeroed = reach;
        }
        add_range(at, at + g.out[2]);
      }
    }
    if (zeroed < in_size) std::fill(grad + zeroed, grad + in_size, DType(0));
  }
};

// GPU item: input element i, the sum of the gradients of the windows that hold it (avg,
// sum, lp; max has MaxPoolKernels).
template <int kType, int kReq>
struct PoolElementBackward {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, const ConvGeometry g, const PoolSpec spec,
                                  const DType* og, const DType* in, const DType* out,
                                  DType* in_grad) {
    const PlanePosition p = PositionOf(i, g.in);
    const index_t x = p.w, y = p.h, z = p.d, plane = p.plane;
    index_t d0, d1, h0, h1, w0, w1;
    OutputsHolding(g, 0, z, &d0, &d1);
    OutputsHolding(g, 1, y, &h0, &h1);
    OutputsHolding(g, 2, x, &w0, &w1);
    DType sum = 0;
    for (index_t od = d0; od < d1; ++od) {
      for (index_t oh = h0; oh < h1; ++oh) {
        for (index_t ow = w0; ow < w1; ++ow) {
          const index_t at = plane * g.OutSize() + (od * g.out[1] + oh) * g.out[2] + ow;
          sum += ElementGradient<kType>(spec, WindowAt(g, od, oh, ow), og[at], out[at], in[i]);
        }
      }
    }
    AssignReq<kReq>(in_grad + i, sum);
  }
};

// The GPU's max pooling and its gradient (pooling.cu): a block per tile of a plane's
// positions, the window found without dividing a flat index, in 32 bits where the data fits.
// Forward<kReq>(stream, g, planes, in, out, argmax) and Backward<kReq>(stream, g, planes,
// out_grad, argmax, in_grad), g a 3-D geometry (As3D).
template <typename xpu>
struct MaxPoolKernels;

// The CPU's kernels: planes over threads; max, avg and sum one axis at a time (lp window by
// window). Functions of their own, so that nvcc never sees them called with a GPU stream.
template <int kType, int kReq, typename DType>
void PoolingForwardOnCpu(mshadow::Stream<cpu>* stream, const ConvGeometry& g,
                         const PoolSpec& spec, index_t planes, const DType* in, DType* out,
                         int32_t* argmax) {
  if constexpr (kType == kLp) {
    Kernel<PoolPlaneForward<kType, kReq>, cpu>::LaunchItems(
        stream, planes, g.OutSize() * g.KernelSize(), g, spec, in, out);
  } else if constexpr (kType == kMax) {
    const index_t out_bytes = planes * g.OutSize() * static_cast<index_t>(sizeof(DType) + 4);
    Kernel<MaxPoolPlaneForwardByAxis<kReq>, cpu>::LaunchItems(
        stream, planes, g.InSize(), g, in, out, argmax,
        out_bytes >= mshadow::StreamingStoreMinBytes());
  } else if (PoolsWholePlane(g)) {
    const DType divisor = kType == kAvg ? WholePlaneDivisor<DType>(g, spec) : DType(1);
    Kernel<PoolWholePlane<kReq>, cpu>::LaunchItems(stream, planes, g.InSize(), g.InSize(),
                                                   divisor, in, out);
  } else {
    Kernel<PoolPlaneForwardByAxis<kType, kReq>, cpu>::LaunchItems(stream, planes, g.InSize(), g,
                                                                  spec, in, out);
  }
}

template <int kType, int kReq, typename DType>
void PoolingBackwardOnCpu(mshadow::Stream<cpu>* stream, const ConvGeometry& g,
                          const PoolSpec& spec, index_t planes, const DType* out_grad,
                          const DType* in, const DType* out, const int32_t* argmax,
                          DType* in_grad) {
  if constexpr (kType == kAvg || kType == kSum) {
    if (!PoolsWholePlane(g) && WindowsTilePlane(g)) {
      const DType divisor = kType == kAvg ? DType(g.KernelSize()) : DType(1);
      return Kernel<PoolTiledPlaneBackward<kReq>, cpu>::LaunchItems(
          stream, planes, g.InSize(), g, divisor, out_grad, in_grad);
    }
    Kernel<PoolPlaneBackwardByAxis<kType, kReq>, cpu>::LaunchItems(stream, planes, g.InSize(),
                                                                   g, spec, out_grad, in_grad);
  } else if constexpr (kType == kMax) {
    Kernel<MaxPoolPlaneBackwardByAxis<kReq>, cpu>::LaunchItems(stream, planes, g.InSize(), g,
                                                               out_grad, argmax, in_grad);
  } else {
    Kernel<PoolPlaneBackward<kType, kReq>, cpu>::LaunchItems(
        stream, planes, g.OutSize() * g.KernelSize(), g, spec, out_grad, in, out, in_grad);
  }
}

template <typename xpu>
void PoolingCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const PoolingParam& param = GetParam<PoolingParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const ConvGeometry g = As3D(Geometry(param, in[0].shape_));
  const PoolSpec spec = SpecOf(param);
  const index_t planes = in[0].shape_[0] * g.channels;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      PoolTypeSwitch(spec.type, [&](auto type) {
        constexpr int kType = decltype(type)::value;
        int32_t* argmax = kType == kMax ? out[1].dptr<int32_t>() : nullptr;
        if constexpr (std::is_same_v<xpu, cpu>) {
          PoolingForwardOnCpu<kType, Req>(stream, g, spec, planes, in[0].dptr<DType>(),
                                          out[0].dptr<DType>(), argmax);
        } else if constexpr (kType == kMax) {
          MaxPoolKernels<xpu>::template Forward<Req>(stream, g, planes, in[0].dptr<DType>(),
                                                     out[0].dptr<DType>(), argmax);
        } else {
          Kernel<PoolElementForward<kType, Req>, xpu>::Launch(
              stream, planes * g.OutSize(), g, spec, in[0].dptr<DType>(), out[0].dptr<DType>());
        }
      });
    });
  });
}

// Inputs: out_grad (and, for max, the argmax's, unused), data, out (and, for max, argmax).
// Output: data_grad.
template <typename xpu>
void PoolingBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                            const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                            const std::vector<TBlob>& out) {
  const PoolingParam& param = GetParam<PoolingParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const size_t outputs = NumOutputs(param);
  const TBlob& data = in[outputs];
  const TBlob& pooled = in[outputs + 1];
  const int32_t* argmax = param.pool_type == kMax ? in[outputs + 2].dptr<int32_t>() : nullptr;
  const ConvGeometry g = As3D(Geometry(param, data.shape_));
  const PoolSpec spec = SpecOf(param);
  const index_t planes = data.shape_[0] * g.channels;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      PoolTypeSwitch(spec.type, [&](auto type) {
        constexpr int kType = decltype(type)::value;
        if constexpr (std::is_same_v<xpu, cpu>) {
          PoolingBackwardOnCpu<kType, Req>(stream, g, spec, planes, in[0].dptr<DType>(),
                                           data.dptr<DType>(), pooled.dptr<DType>(), argmax,
                                           out[0].dptr<DType>());
        } else if constexpr (kType == kMax) {
          MaxPoolKernels<xpu>::template Backward<Req>(stream, g, planes, in[0].dptr<DType>(),
                                                      argmax, out[0].dptr<DType>());
        } else {
          Kernel<PoolElementBackward<kType, Req>, xpu>::Launch(
              stream, planes * g.InSize(), g, spec, in[0].dptr<DType>(), data.dptr<DType>(),
              pooled.dptr<DType>(), out[0].dptr<DType>());
        }
      });
    });
  });
}

// Adds FCompute<xpu> to Pooling and _backward_Pooling.
template <typename xpu>
void SetPoolingCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("Pooling").set_attr<FCompute>(attr_name, FCompute(PoolingCompute<xpu>));
  RegisterOp("_backward_Pooling")
      .set_attr<FCompute>(attr_name, FCompute(PoolingBackwardCompute<xpu>));
}

}  // namespace pooling
}  // namespace ops

#endif  // OPS_POOLING_INL_H_
