// ops/correlation-inl.h: MXNet 1.9.1's Correlation (FlowNet's correlation layer), written once
// for every device. Two feature maps (N, C, H, W), zero-padded by pad_size, are compared at
// output positions stride1 apart: output channel (dy, dx) of position (i, j) is the mean over
// the channels and a kernel_size window of data1 there times (or the absolute difference
// with) data2 displaced by (dy, dx) * stride2, |dy|, |dx| <= max_displacement / stride2:
//   out[n, (dy + r) * (2r + 1) + dx + r, i, j] = sum_{c, h, w} f(data1[n, c, y + h, x + w],
//       data2[n, c, y + dy s2 + h, x + dx s2 + w]) / (kernel_size^2 C),
//   y = i * stride1 + max_displacement - pad_size (x alike), r = max_displacement / stride2.
// The window starts at (y, x), as MXNet's (not centred on it).
//
// The CPU's products go a row of output positions at a time (the window's elements a
// vectorized loop along the row); the absolute differences and the GPU an output element a
// thread. The gradients gather: each input element sums the output elements that read it, so
// no two threads write one element. correlation.cc registers it with FCompute<cpu>;
// correlation.cu adds FCompute<gpu>.
#ifndef OPS_CORRELATION_INL_H_
#define OPS_CORRELATION_INL_H_

#include <algorithm>
#include <type_traits>
#include <vector>

#include "mshadow/parallel.h"
#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace correlation {

struct CorrelationParam : public dmlc::Parameter<CorrelationParam> {
  int kernel_size;
  int max_displacement;
  int stride1;
  int stride2;
  int pad_size;
  bool is_multiply;
  DMLC_DECLARE_PARAMETER(CorrelationParam) {
    DMLC_DECLARE_FIELD(kernel_size)
        .set_default(1)
        .set_lower_bound(1)
        .describe("The compared window's side (odd).");
    DMLC_DECLARE_FIELD(max_displacement)
        .set_default(1)
        .set_lower_bound(0)
        .describe("The largest displacement of data2, in positions.");
    DMLC_DECLARE_FIELD(stride1).set_default(1).set_lower_bound(1).describe(
        "The step between output positions on data1.");
    DMLC_DECLARE_FIELD(stride2).set_default(1).set_lower_bound(1).describe(
        "The step between displacements of data2.");
    DMLC_DECLARE_FIELD(pad_size).set_default(0).set_lower_bound(0).describe(
        "Zero padding on each side of both inputs.");
    DMLC_DECLARE_FIELD(is_multiply)
        .set_default(true)
        .describe("Products (true) or absolute differences (false).");
  }
};

// The geometry: inputs (N, C, H, W), output (N, grid^2, out_h, out_w), grid = 2 radius + 1.
struct Geometry {
  index_t batch, channels, height, width, out_h, out_w;
  index_t kernel, max_displacement, stride1, stride2, pad, radius;

  MSHADOW_XINLINE index_t Grid() const { return 2 * radius + 1; }
  MSHADOW_XINLINE index_t Plane() const { return height * width; }
  // Output channel t's displacement of data2, in positions.
  MSHADOW_XINLINE index_t DisplacementY(index_t t) const { return (t / Grid() - radius) * stride2; }
  MSHADOW_XINLINE index_t DisplacementX(index_t t) const { return (t % Grid() - radius) * stride2; }
  // The window's first row (column) on data1 of output row i (column j), unpadded.
  MSHADOW_XINLINE index_t Origin(index_t i) const { return i * stride1 + max_displacement - pad; }
  // 1 / (kernel^2 C): every output is a mean.
  template <typename DType>
  MSHADOW_XINLINE DType Scale() const {
    return DType(1) / DType(kernel * kernel * channels);
  }
};

// The compared pair's value and its derivatives by a and b.
template <bool kMultiply>
struct Compare {
  template <typename DType>
  MSHADOW_XINLINE static DType Value(DType a, DType b) {
    if constexpr (kMultiply) {
      return a * b;
    } else {
      return a > b ? a - b : b - a;
    }
  }
  // d/da; d/db is the same with the roles swapped (and, for differences, negated).
  template <typename DType>
  MSHADOW_XINLINE static DType GradA(DType a, DType b) {
    if constexpr (kMultiply) {
      return b;
    } else {
      return a > b ? DType(1) : (a < b ? DType(-1) : DType(0));
    }
  }
};

// Element (y, x) of a plane, 0 in the padding.
template <typename DType>
MSHADOW_XINLINE DType At(const DType* plane, index_t y, index_t x, const Geometry& g) {
  return y >= 0 && y < g.height && x >= 0 && x < g.width ? plane[y * g.width + x] : DType(0);
}

// Element item (both devices): output element i = (n, t, oi, oj).
template <int kReq, bool kMultiply>
struct correlate_element {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* data1, const DType* data2,
                                  Geometry g) {
    const index_t oj = i % g.out_w, oi = i / g.out_w % g.out_h;
    const index_t t = i / (g.out_w * g.out_h) % (g.Grid() * g.Grid());
    const index_t n = i / (g.out_w * g.out_h * g.Grid() * g.Grid());
    const index_t y1 = g.Origin(oi), x1 = g.Origin(oj);
    const index_t y2 = y1 + g.DisplacementY(t), x2 = x1 + g.DisplacementX(t);
    DType sum = 0;
    for (index_t c = 0; c < g.channels; ++c) {
      const DType* a = data1 + (n * g.channels + c) * g.Plane();
      const DType* b = data2 + (n * g.channels + c) * g.Plane();
      for (index_t h = 0; h < g.kernel; ++h) {
        for (index_t w = 0; w < g.kernel; ++w) {
          sum += Compare<kMultiply>::Value(At(a, y1 + h, x1 + w, g), At(b, y2 + h, x2 + w, g));
        }
      }
    }
    AssignReq<kReq>(out + i, sum * g.Scale<DType>());
  }
};

// ceil(a / s) for s > 0 and any a.
inline index_t CeilDiv(index_t a, index_t s) { return a >= 0 ? (a + s - 1) / s : -(-a / s); }

// The output columns j in [*j0, *j1) whose position first + j * stride1 lies in [x_lo, x_hi).
inline void ColumnRange(const Geometry& g, index_t first, index_t x_lo, index_t x_hi, index_t* j0,
                        index_t* j1) {
  *j0 = std::min(std::max<index_t>(0, CeilDiv(x_lo - first, g.stride1)), g.out_w);
  *j1 = std::min(std::max(*j0, CeilDiv(x_hi - first, g.stride1)), g.out_w);
}

// CPU item for products: output row (n, t, oi), each (window element, channel) added along the
// row as one loop over the output columns whose two positions lie inside the inputs (a product
// with the padding is 0); contiguous for stride1 1.
template <int kReq>
struct correlate_row {
  template <typename DType>
  static void Map(index_t row, DType* out, const DType* data1, const DType* data2, Geometry g) {
    const index_t oi = row % g.out_h, t = row / g.out_h % (g.Grid() * g.Grid());
    const index_t n = row / (g.out_h * g.Grid() * g.Grid());
    const index_t dy = g.DisplacementY(t), dx = g.DisplacementX(t), s1 = g.stride1;
    auto* sums = static_cast<DType*>(mshadow::ThreadScratch(g.out_w * sizeof(DType)));
    std::fill(sums, sums + g.out_w, DType(0));
    // x1 = first + j * s1 must lie in [max(0, -dx), min(width, width - dx)).
    const index_t x_lo = std::max<index_t>(0, -dx), x_hi = std::min(g.width, g.width - dx);
    for (index_t h = 0; h < g.kernel; ++h) {
      const index_t y1 = g.Origin(oi) + h, y2 = y1 + dy;
      if (y1 < 0 || y1 >= g.height || y2 < 0 || y2 >= g.height) continue;
      for (index_t w = 0; w < g.kernel; ++w) {
        const index_t first = g.Origin(0) + w;
        index_t j0, j1;
        ColumnRange(g, first, x_lo, x_hi, &j0, &j1);
        for (index_t c = 0; c < g.channels; ++c) {
          const DType* a = data1 + ((n * g.channels + c) * g.height + y1) * g.width + first;
          const DType* b = data2 + ((n * g.channels + c) * g.height + y2) * g.width + first + dx;
          if (s1 == 1) {
            OPS_SIMD_LOOP
            for (index_t j = j0; j < j1; ++j) sums[j] += a[j] * b[j];
          } else {
            for (index_t j = j0; j < j1; ++j) sums[j] += a[j * s1] * b[j * s1];
          }
        }
      }
    }
    const DType scale = g.Scale<DType>();
    DType* o = out + row * g.out_w;
    for (index_t j = 0; j < g.out_w; ++j) AssignReq<kReq>(o + j, sums[j] * scale);
  }
};

// Gradient item (both devices): element i = (n, c, y, x) of data1's gradient (kFirst) or
// data2's: the sum over the output elements whose window read it of the output gradient times
// the compared value's derivative.
template <int kReq, bool kMultiply, bool kFirst>
struct correlate_grad {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* og, const DType* data1,
                                  const DType* data2, Geometry g) {
    const index_t x = i % g.width, y = i / g.width % g.height;
    const index_t nc = i / g.Plane(), n = nc / g.channels;
    const DType* a = data1 + nc * g.Plane();
    const DType* b = data2 + nc * g.Plane();
    const index_t grid2 = g.Grid() * g.Grid();
    DType sum = 0;
    for (index_t t = 0; t < grid2; ++t) {
      // data2's element (y, x) is read by window element (h, w) of output (oi, oj) when
      // y = Origin(oi) + dy + h; data1's when y = Origin(oi) + h.
      const index_t dy = g.DisplacementY(t), dx = g.DisplacementX(t);
      const index_t ry = kFirst ? y : y - dy, rx = kFirst ? x : x - dx;  // on data1's grid
      const DType* og_t = og + (n * grid2 + t) * g.out_h * g.out_w;
      for (index_t h = 0; h < g.kernel; ++h) {
        const index_t sy = ry - h - (g.max_displacement - g.pad);  // oi * stride1
        if (sy < 0 || sy % g.stride1 != 0 || sy / g.stride1 >= g.out_h) continue;
        const index_t oi = sy / g.stride1;
        for (index_t w = 0; w < g.kernel; ++w) {
          const index_t sx = rx - w - (g.max_displacement - g.pad);
          if (sx < 0 || sx % g.stride1 != 0 || sx / g.stride1 >= g.out_w) continue;
          const index_t oj = sx / g.stride1;
          const DType d = og_t[oi * g.out_w + oj];
          if constexpr (kFirst) {
            sum += d * Compare<kMultiply>::GradA(a[i % g.Plane()], At(b, ry + dy, rx + dx, g));
          } else {
            sum += d * Compare<kMultiply>::GradA(b[i % g.Plane()], At(a, ry, rx, g));
          }
        }
      }
    }
    AssignReq<kReq>(grad + i, sum * g.Scale<DType>());
  }
};

// CPU gradient item: row (n, c, y) of data1's gradient (kFirst) or data2's, each output row
// that reads it added along the row as one loop over the output columns (its elements in the
// window of several outputs are summed there in turn; contiguous for stride1 1): per element,
// the outputs' positions had cost two divisions each of grid^2 k^2 times (0.88x MXNet on
// FlowNet's shape, docs/benchmarks.md).
template <int kReq, bool kMultiply, bool kFirst>
struct correlate_grad_row {
  template <typename DType>
  static void Map(index_t row, DType* grad, const DType* og, const DType* data1, const DType* data2,
                  Geometry g) {
    const index_t y = row % g.height, nc = row / g.height, n = nc / g.channels;
    auto* sums = static_cast<DType*>(mshadow::ThreadScratch(g.width * sizeof(DType)));
    std::fill(sums, sums + g.width, DType(0));
    const index_t grid2 = g.Grid() * g.Grid(), s1 = g.stride1;
    for (index_t t = 0; t < grid2; ++t) {
      const index_t dy = g.DisplacementY(t), dx = g.DisplacementX(t);
      // This row is data1's row y1 (kFirst) or data2's row y1 + dy; the other input's row is
      // the other one, zeros in the padding (which products skip, and differences do not).
      const index_t y1 = kFirst ? y : y - dy, other_y = kFirst ? y + dy : y - dy;
      const bool other_inside = other_y >= 0 && other_y < g.height;
      if (kMultiply && !other_inside) continue;
      const DType* own = (kFirst ? data1 : data2) + row * g.width;
      const DType* other =
          (kFirst ? data2 : data1) + (nc * g.height + (other_inside ? other_y : 0)) * g.width;
      const index_t shift = kFirst ? dx : -dx;  // other's column = own column + shift
      for (index_t h = 0; h < g.kernel; ++h) {
        const index_t sy = y1 - h - g.Origin(0);  // oi * stride1
        if (sy < 0 || sy % s1 != 0 || sy / s1 >= g.out_h) continue;
        const DType* og_row = og + ((n * grid2 + t) * g.out_h + sy / s1) * g.out_w;
        for (index_t w = 0; w < g.kernel; ++w) {
          // Output column j reads own column x = first + j * s1 and other's x + shift.
          const index_t first = g.Origin(0) + w + (kFirst ? 0 : dx);
          const index_t x_lo = kMultiply ? std::max<index_t>(0, -shift) : 0;
          const index_t x_hi = kMultiply ? std::min(g.width, g.width - shift) : g.width;
          index_t j0, j1;
          ColumnRange(g, first, x_lo, x_hi, &j0, &j1);
          if constexpr (kMultiply) {
            DType* to = sums + first;
            const DType* theirs = other + first + shift;
            if (s1 == 1) {
              OPS_SIMD_LOOP
              for (index_t j = j0; j < j1; ++j) to[j] += og_row[j] * theirs[j];
            } else {
              for (index_t j = j0; j < j1; ++j) to[j * s1] += og_row[j] * theirs[j * s1];
            }
          } else {
            for (index_t j = j0; j < j1; ++j) {
              const index_t x = first + j * s1, ox = x + shift;
              const DType b = other_inside && ox >= 0 && ox < g.width ? other[ox] : DType(0);
              sums[x] += og_row[j] * Compare<false>::GradA(own[x], b);
            }
          }
        }
      }
    }
    const DType scale = g.Scale<DType>();
    DType* out = grad + row * g.width;
    for (index_t x = 0; x < g.width; ++x) AssignReq<kReq>(out + x, sums[x] * scale);
  }
};

Geometry GeometryOf(const CorrelationParam& param, const TShape& data1, const TShape& data2);

template <typename xpu>
void CorrelationCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const CorrelationParam& param = GetParam<CorrelationParam>(attrs);
  const Geometry g = GeometryOf(param, in[0].shape_, in[1].shape_);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      DType* y = out[0].dptr<DType>();
      const DType *a = in[0].dptr<DType>(), *b = in[1].dptr<DType>();
      if constexpr (std::is_same_v<xpu, cpu>) {
        if (param.is_multiply) {
          const index_t rows = g.batch * g.Grid() * g.Grid() * g.out_h;
          const index_t work = g.out_w * g.kernel * g.kernel * g.channels;
          Kernel<correlate_row<Req>, cpu>::LaunchItems(s, rows, work, y, a, b, g);
          return;
        }
      }
      if (param.is_multiply) {
        Kernel<correlate_element<Req, true>, xpu>::Launch(s, out[0].Size(), y, a, b, g);
      } else {
        Kernel<correlate_element<Req, false>, xpu>::LaunchItems(
            s, out[0].Size(), g.kernel * g.kernel * g.channels, y, a, b, g);
      }
    });
  });
}

// Inputs: the output gradient, data1, data2; outputs: their gradients.
template <typename xpu>
void CorrelationGradCompute(const NodeAttrs& attrs, const OpContext& ctx,
                            const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                            const std::vector<TBlob>& out) {
  const CorrelationParam& param = GetParam<CorrelationParam>(attrs);
  const Geometry g = GeometryOf(param, in[1].shape_, in[2].shape_);
  const index_t work = g.Grid() * g.Grid() * g.kernel * g.kernel;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const auto launch = [&](auto multiply, auto first, int k) {
      constexpr bool kMultiply = decltype(multiply)::value, kFirst = decltype(first)::value;
      DType* grad = out[k].dptr<DType>();
      const DType *og = in[0].dptr<DType>(), *a = in[1].dptr<DType>(), *b = in[2].dptr<DType>();
      OPS_REQ_SWITCH(req[k], Req, {
        if constexpr (std::is_same_v<xpu, cpu>) {
          Kernel<correlate_grad_row<Req, kMultiply, kFirst>, cpu>::LaunchItems(
              s, out[k].Size() / g.width, work * g.out_w, grad, og, a, b, g);
        } else {
          Kernel<correlate_grad<Req, kMultiply, kFirst>, xpu>::LaunchItems(s, out[k].Size(), work,
                                                                           grad, og, a, b, g);
        }
      });
    };
    if (param.is_multiply) {
      launch(std::true_type(), std::true_type(), 0);
      launch(std::true_type(), std::false_type(), 1);
    } else {
      launch(std::false_type(), std::true_type(), 0);
      launch(std::false_type(), std::false_type(), 1);
    }
  });
}

// Adds FCompute<xpu> to Correlation and its backward operator.
template <typename xpu>
void SetCorrelationCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("Correlation").set_attr<FCompute>(attr_name, FCompute(CorrelationCompute<xpu>));
  RegisterOp("_backward_Correlation")
      .set_attr<FCompute>(attr_name, FCompute(CorrelationGradCompute<xpu>));
}

}  // namespace correlation
}  // namespace ops

#endif  // OPS_CORRELATION_INL_H_
