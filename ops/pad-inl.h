// ops/pad-inl.h: Pad (alias pad), the input grown by pad_width on each axis and filled by a
// constant, the nearest edge element (edge) or the mirror image without the edge (reflect),
// and its backward operator, written once for every device. Each output element reads one
// input element (or the constant); each element of the input gradient gathers the output
// gradient of every position that read it, so no two threads write one element. pad.cc
// registers the CPU, pad.cu adds FCompute<gpu>.
//
// As MXNet 1.9.1 on 4-d and 5-d data with no padding of the first two axes; beyond MXNet,
// any rank from 1 to 5 and any axis may be padded.
#ifndef OPS_PAD_INL_H_
#define OPS_PAD_INL_H_

#include <sstream>
#include <type_traits>
#include <vector>

#include "mshadow/streaming_stores.h"
#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace pad {

enum PadMode { kConstant = 0, kEdge = 1, kReflect = 2 };

struct PadParam : public dmlc::Parameter<PadParam> {
  int mode;
  TShape pad_width;
  double constant_value;
  DMLC_DECLARE_PARAMETER(PadParam) {
    DMLC_DECLARE_FIELD(mode)
        .add_enum("constant", kConstant)
        .add_enum("edge", kEdge)
        .add_enum("reflect", kReflect)
        .describe("What fills the padding: constant_value, the nearest edge element, or the "
                  "input mirrored about its edge element (which is not repeated).");
    DMLC_DECLARE_FIELD(pad_width).describe(
        "Elements added before and after each axis: (before_0, after_0, before_1, after_1, "
        "...), two entries per axis of the input.");
    DMLC_DECLARE_FIELD(constant_value).set_default(0.0).describe(
        "The value of the padding in constant mode.");
  }
};

// The shapes and padding of one call, as plain data for the kernels (rank 1 to kMaxDim).
struct PadGeometry {
  static constexpr int kMaxDim = 5;
  int ndim = 0;
  int mode = kConstant;
  index_t in[kMaxDim] = {};
  index_t out[kMaxDim] = {};
  index_t before[kMaxDim] = {};
  index_t after[kMaxDim] = {};
};

// The geometry of padding `data`; a dmlc::Error names a pad_width that does not fit it.
inline PadGeometry Geometry(const PadParam& param, const TShape& data) {
  const int ndim = static_cast<int>(data.ndim());
  if (ndim < 1 || ndim > PadGeometry::kMaxDim) {
    std::ostringstream os;
    os << "Pad takes data of rank 1 to " << PadGeometry::kMaxDim << ", given " << data;
    throw dmlc::Error(os.str());
  }
  if (param.pad_width.ndim() != 2 * ndim) {
    std::ostringstream os;
    os << "Pad: pad_width " << param.pad_width << " has " << param.pad_width.ndim()
       << " entries; data " << data << " needs " << 2 * ndim
       << " (before and after each axis)";
    throw dmlc::Error(os.str());
  }
  // A bound that keeps every extent, and the output's size, far from index_t's overflow;
  // the allocation of the output is checked against the memory there is.
  constexpr index_t kMaxPad = index_t{1} << 40;
  PadGeometry g;
  g.ndim = ndim;
  g.mode = param.mode;
  for (int d = 0; d < ndim; ++d) {
    g.in[d] = data[d];
    g.before[d] = param.pad_width[2 * d];
    g.after[d] = param.pad_width[2 * d + 1];
    for (const index_t p : {g.before[d], g.after[d]}) {
      if (p < 0 || p > kMaxPad) {
        std::ostringstream os;
        os << "Pad: pad_width " << param.pad_width << " has " << p << " for axis " << d
           << "; valid: 0 to " << kMaxPad;
        throw dmlc::Error(os.str());
      }
      if (p > 0 && param.mode == kReflect && p >= g.in[d]) {
        std::ostringstream os;
        os << "Pad: reflect padding of " << p << " on axis " << d << " of data " << data
           << " must be smaller than the axis (" << g.in[d] << ")";
        throw dmlc::Error(os.str());
      }
      if (p > 0 && param.mode == kEdge && g.in[d] == 0) {
        std::ostringstream os;
        os << "Pad: edge padding of axis " << d << " of data " << data
           << ", which is empty: there is no edge element";
        throw dmlc::Error(os.str());
      }
    }
    g.out[d] = g.in[d] + g.before[d] + g.after[d];
  }
  return g;
}

// The input position that output position o on axis d reads, or -1 (the constant).
MSHADOW_XINLINE index_t SourceOn(const PadGeometry& g, int d, index_t o) {
  const index_t c = o - g.before[d], n = g.in[d];
  if (c >= 0 && c < n) return c;
  if (g.mode == kConstant) return -1;
  if (g.mode == kEdge) return c < 0 ? 0 : n - 1;
  return c < 0 ? -c : 2 * (n - 1) - c;  // reflect: the padding is smaller than the axis
}

// The output positions on axis d that read input position c: at most three runs [lo, hi]
// (the position itself; edge: the padding beside an edge element; reflect: its mirror
// images before and after). Returns the number of runs.
MSHADOW_XINLINE int ReadersOn(const PadGeometry& g, int d, index_t c, index_t* lo, index_t* hi) {
  const index_t n = g.in[d], before = g.before[d], after = g.after[d];
  if (g.mode == kEdge) {
    lo[0] = c == 0 ? 0 : c + before;
    hi[0] = c == n - 1 ? before + n - 1 + after : c + before;
    return 1;
  }
  int runs = 0;
  lo[runs] = hi[runs] = c + before;
  ++runs;
  if (g.mode == kReflect) {
    if (c >= 1 && c <= before) {
      lo[runs] = hi[runs] = before - c;
      ++runs;
    }
    const index_t from_end = n - 1 - c;
    if (from_end >= 1 && from_end <= after) {
      lo[runs] = hi[runs] = before + n - 1 + from_end;
      ++runs;
    }
  }
  return runs;
}

// Over the leading `axes` axes: the input position (flat, into *source) that the output's
// position o (flat over the same axes) reads; false where o is in a constant padding.
MSHADOW_XINLINE bool SourceIndex(const PadGeometry& g, int axes, index_t o, index_t* source) {
  index_t at = 0, stride = 1;
  bool inside = true;
  for (int d = axes - 1; d >= 0; --d) {
    const index_t c = SourceOn(g, d, o % g.out[d]);
    o /= g.out[d];
    inside = inside && c >= 0;
    at += c * stride;
    stride *= g.in[d];
  }
  *source = at;
  return inside;
}

// out[i] (as kReq says) = the input element output position i reads, or the constant.
template <int kReq>
struct pad_forward {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* in, const PadGeometry g,
                                  DType constant) {
    index_t source = 0;
    const bool inside = SourceIndex(g, g.ndim, i, &source);
    AssignReq<kReq>(out + i, inside ? in[source] : constant);
  }
};

// in_grad[i] (as kReq says) = the sum of out_grad over the output positions that read input
// element i: the product, over the axes, of each axis's runs of readers.
template <int kReq>
struct pad_backward {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* in_grad, const DType* out_grad,
                                  const PadGeometry g) {
    constexpr int kMax = PadGeometry::kMaxDim;
    index_t lo[kMax][3], hi[kMax][3];
    int runs[kMax];
    index_t rest = i;
    for (int d = g.ndim - 1; d >= 0; --d) {
      runs[d] = ReadersOn(g, d, rest % g.in[d], lo[d], hi[d]);
      rest /= g.in[d];
    }
    // An odometer over (run, position in run) on every axis, the last axis fastest.
    int run[kMax];
    index_t at[kMax];
    for (int d = 0; d < g.ndim; ++d) {
      run[d] = 0;
      at[d] = lo[d][0];
    }
    DType sum = 0;
    while (true) {
      index_t offset = 0;
      for (int d = 0; d < g.ndim; ++d) offset = offset * g.out[d] + at[d];
      sum += out_grad[offset];
      int d = g.ndim - 1;
      for (; d >= 0; --d) {
        if (at[d] < hi[d][run[d]]) {
          ++at[d];
          break;
        }
        if (run[d] + 1 < runs[d]) {
          ++run[d];
          at[d] = lo[d][run[d]];
          break;
        }
        run[d] = 0;
        at[d] = lo[d][0];
      }
      if (d < 0) break;
    }
    AssignReq<kReq>(in_grad + i, sum);
  }
};

// CPU item: output row r (the last axis), as pad_forward writes it element by element: the
// constant where a leading axis reads none, else the padding's few elements by SourceOn and
// the input row between them as one run (no division per element).
template <int kReq>
struct pad_forward_row {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t r, DType* out, const DType* in, const PadGeometry g,
                                  DType constant) {
    const int last = g.ndim - 1;
    const index_t width = g.out[last], n = g.in[last], before = g.before[last];
    index_t source_row = 0;
    const bool inside = SourceIndex(g, last, r, &source_row);
    DType* to = out + r * width;
    if (!inside) {
      for (index_t x = 0; x < width; ++x) AssignReq<kReq>(to + x, constant);
      return;
    }
    const DType* from = in + source_row * n;
    const auto pad_at = [&](index_t x) {
      const index_t c = SourceOn(g, last, x);
      AssignReq<kReq>(to + x, c >= 0 ? from[c] : constant);
    };
    for (index_t x = 0; x < before; ++x) pad_at(x);
    for (index_t t = 0; t < n; ++t) AssignReq<kReq>(to + before + t, from[t]);
    for (index_t x = before + n; x < width; ++x) pad_at(x);
  }
};

// CPU item, constant mode, an overwrite: output plane q (its last two axes, or the last one
// for 1-d data) front to back as runs, the padding's rows and the gap between two input rows
// each one fill, an input row one copy; with kStream (an output large against the last-level
// cache) by streaming stores. Input planes of at least one element.
template <bool kStream>
struct pad_forward_constant_plane {
  template <typename DType>
  static void Map(index_t q, DType* out, const DType* in, const PadGeometry g, DType constant) {
    const int last = g.ndim - 1, first_in_plane = last > 0 ? last - 1 : 0;
    index_t in_plane = 0;
    const bool inside = SourceIndex(g, first_in_plane, q, &in_plane);
    const index_t n = g.in[last], width = g.out[last];
    const index_t rows = last > 0 ? g.in[last - 1] : 1;
    const index_t rows_before = last > 0 ? g.before[last - 1] : 0;
    const index_t rows_after = last > 0 ? g.after[last - 1] : 0;
    RunWriter<DType, kStream> writer(out + q * (rows_before + rows + rows_after) * width);
    if (!inside) return writer.Fill(constant, (rows_before + rows + rows_after) * width);
    const DType* from = in + in_plane * rows * n;
    writer.Fill(constant, rows_before * width + g.before[last]);
    for (index_t y = 0; y + 1 < rows; ++y, from += n) {
      writer.Copy(from, n);
      writer.Fill(constant, g.after[last] + g.before[last]);
    }
    writer.Copy(from, n);
    writer.Fill(constant, g.after[last] + rows_after * width);
  }
};

// CPU item, constant mode: plane q of the input's gradient (its last two axes, or the last
// one for 1-d data), the output gradient's elements that read it, each read once (edge and
// reflect padding read an element several times: pad_backward): a copy per row, the plane's
// position divided out once (once per row, it had run at 0.8 of MXNet's speed). With kStream
// (an overwrite large against the last-level cache) the plane goes out by streaming stores.
template <int kReq, bool kStream>
struct pad_backward_constant_plane {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t q, DType* in_grad, const DType* out_grad,
                                  const PadGeometry g) {
    const int last = g.ndim - 1, first_in_plane = last > 0 ? last - 1 : 0;
    index_t rest = q, out_plane = 0, stride = 1;
    for (int d = first_in_plane - 1; d >= 0; --d) {
      out_plane += (rest % g.in[d] + g.before[d]) * stride;
      rest /= g.in[d];
      stride *= g.out[d];
    }
    const index_t n = g.in[last], out_width = g.out[last];
    const index_t rows = last > 0 ? g.in[last - 1] : 1;
    const index_t out_rows = last > 0 ? g.out[last - 1] : 1;
    const index_t first_row = last > 0 ? g.before[last - 1] : 0;
    const DType* from = out_grad + (out_plane * out_rows + first_row) * out_width + g.before[last];
    DType* to = in_grad + q * rows * n;
    if constexpr (kStream) {
      RunWriter<DType, true> writer(to);
      for (index_t y = 0; y < rows; ++y, from += out_width) writer.Copy(from, n);
      return;
    }
    for (index_t y = 0; y < rows; ++y, from += out_width, to += n) {
      for (index_t t = 0; t < n; ++t) AssignReq<kReq>(to + t, from[t]);
    }
  }
};

// launch(std::true_type()) and a fence where `stream`, else launch(std::false_type()): a CPU
// kernel's streaming and cached variants, chosen once per call.
template <typename Launch>
void WithStreamingStores(bool stream, Launch&& launch) {
  if (stream) {
    launch(std::true_type());
    mshadow::FenceStreamingStores();  // this thread's part (ParallelFor fences its workers)
  } else {
    launch(std::false_type());
  }
}

// Forward: in = (data), out = (padded). Backward: in = (out_grad), out = (data's gradient).
template <typename xpu, bool kBackward>
void PadCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const PadParam& param = GetParam<PadParam>(attrs);
  const TBlob& data = kBackward ? out[0] : in[0];
  const PadGeometry g = Geometry(param, data.shape_);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const int last = g.ndim - 1;
  MSHADOW_SGL_DBL_TYPE_SWITCH(data.type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      if constexpr (std::is_same_v<xpu, cpu>) {
        const index_t in_plane = g.in[last] * (last > 0 ? g.in[last - 1] : 1);
        const bool stream = Req != kAddTo && StreamsCopyOf(out[0].Size() * sizeof(DType));
        if constexpr (kBackward) {
          if (g.mode == kConstant && in_plane > 0) {
            return WithStreamingStores(stream, [&](auto streaming) {
              Kernel<pad_backward_constant_plane<Req, decltype(streaming)::value>,
                     cpu>::LaunchItems(s, static_cast<index_t>(out[0].Size()) / in_plane, in_plane,
                                       out[0].dptr<DType>(), in[0].dptr<DType>(), g);
            });
          }
        } else {
          const index_t out_plane = g.out[last] * (last > 0 ? g.out[last - 1] : 1);
          if (g.mode == kConstant && Req != kAddTo && in_plane > 0) {
            return WithStreamingStores(stream, [&](auto streaming) {
              Kernel<pad_forward_constant_plane<decltype(streaming)::value>, cpu>::LaunchItems(
                  s, static_cast<index_t>(out[0].Size()) / out_plane, out_plane,
                  out[0].dptr<DType>(), in[0].dptr<DType>(), g,
                  static_cast<DType>(param.constant_value));
            });
          }
          if (g.out[last] > 0) {
            const index_t rows = static_cast<index_t>(out[0].Size()) / g.out[last];
            return Kernel<pad_forward_row<Req>, cpu>::LaunchItems(
                s, rows, g.out[last], out[0].dptr<DType>(), in[0].dptr<DType>(), g,
                static_cast<DType>(param.constant_value));
          }
        }
      }
      if constexpr (kBackward) {
        Kernel<pad_backward<Req>, xpu>::Launch(s, out[0].Size(), out[0].dptr<DType>(),
                                               in[0].dptr<DType>(), g);
      } else {
        Kernel<pad_forward<Req>, xpu>::Launch(s, out[0].Size(), out[0].dptr<DType>(),
                                              in[0].dptr<DType>(), g,
                                              static_cast<DType>(param.constant_value));
      }
    });
  });
}

// Adds FCompute<xpu> to Pad and _backward_Pad.
template <typename xpu>
void SetPadCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("Pad").set_attr<FCompute>(attr_name, FCompute(PadCompute<xpu, false>));
  RegisterOp("_backward_Pad").set_attr<FCompute>(attr_name, FCompute(PadCompute<xpu, true>));
}

}  // namespace pad
}  // namespace ops

#endif  // OPS_PAD_INL_H_
