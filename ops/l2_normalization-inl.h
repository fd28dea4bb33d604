// ops/l2_normalization-inl.h: L2Normalization and its backward operator, written once for
// every device, with MXNet 1.9.1's semantics. Each line of elements becomes x / s with
// s = sqrt(sum(x * x) + eps) over the line; the mode picks the lines of data (N, C, ...):
// - instance: one line a sample (every axis but the first);
// - channel: one line per sample and spatial position, across the channels (axis 1);
// - spatial: one line per sample and channel, across the spatial axes.
// Seen as (outer, n, inner) around the normalized run: (N, C*S, 1), (N, C, S), (N*C, S, 1).
// l2_normalization.cc registers the CPU, l2_normalization.cu adds FCompute<gpu>.
#ifndef OPS_L2_NORMALIZATION_INL_H_
#define OPS_L2_NORMALIZATION_INL_H_

#include <algorithm>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/line_moments.h"
#include "ops/vector_loop.h"

namespace ops {
namespace l2_normalization {

enum Mode { kInstance, kChannel, kSpatial };

struct L2NormalizationParam : public dmlc::Parameter<L2NormalizationParam> {
  float eps;
  int mode;
  DMLC_DECLARE_PARAMETER(L2NormalizationParam) {
    DMLC_DECLARE_FIELD(eps).set_default(1e-10f).set_lower_bound(0.0f).describe(
        "Added to the sum of squares before its square root.");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("instance", kInstance)
        .add_enum("channel", kChannel)
        .add_enum("spatial", kSpatial)
        .set_default(kInstance)
        .describe(
            "The lines normalized: instance (each sample), channel (across the channels at "
            "each position), spatial (each channel's spatial axes).");
  }
};

// The data viewed as (outer, n, inner) around the normalized run; shapes are checked by
// inference first (channel and spatial need 3 axes or more).
inline LineView LinesOf(const TShape& data, int mode) {
  const index_t size = data.Size();
  if (mode == kChannel) {
    return LineView{data[0], data[1], data.ProdShape(2, data.ndim())};
  }
  const index_t outer = mode == kInstance ? data[0] : data[0] * data[1];
  return LineView{outer, outer == 0 ? 0 : size / outer, 1};
}

// 1 / sqrt(sum of squares + eps) from the sum.
template <typename DType>
MSHADOW_XINLINE DType InverseNorm(DType sum_of_squares, DType eps) {
  return DType(1) / sqrt(sum_of_squares + eps);
}

// Item l: line l normalized (any device; the line's elements are `inner` apart).
template <int kReq>
struct NormalizeLine {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t l, LineView v, const DType* x, DType eps, DType* out) {
    const index_t start = v.Start(l);
    DType sum = 0;
    for (index_t j = 0; j < v.n; ++j) sum += x[start + j * v.inner] * x[start + j * v.inner];
    const DType r = InverseNorm(sum, eps);
    for (index_t j = 0; j < v.n; ++j) {
      AssignReq<kReq>(out + start + j * v.inner, x[start + j * v.inner] * r);
    }
  }
};

// Item l: line l's data gradient from the output y = x * r: dx = r * (g - y * sum(g * y)).
template <int kReq>
struct NormalizeLineGrad {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t l, LineView v, const DType* g, const DType* x,
                                  const DType* y, DType eps, DType* dx) {
    const index_t start = v.Start(l);
    DType sum = 0, dot = 0;
    for (index_t j = 0; j < v.n; ++j) {
      const index_t at = start + j * v.inner;
      sum += x[at] * x[at];
      dot += g[at] * y[at];
    }
    const DType r = InverseNorm(sum, eps);
    for (index_t j = 0; j < v.n; ++j) {
      const index_t at = start + j * v.inner;
      AssignReq<kReq>(dx + at, r * (g[at] - y[at] * dot));
    }
  }
};

// CPU: sums[i] = the sum over the n rows j of a[j * inner + i] * b[j * inner + i], a row of
// `inner` at a time (contiguous, vectorized); inner = 1 is one long dot product.
template <typename DType>
void DotDownRows(const DType* a, const DType* b, index_t n, index_t inner, DType* sums) {
  if (inner == 1) {
    sums[0] = vec::Sum<DType>(n, [&](index_t j, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      return P::LoadUnAligned(a + j) * P::LoadUnAligned(b + j);
    });
    return;
  }
  std::fill(sums, sums + inner, DType(0));
  for (index_t j = 0; j < n; ++j) {
    vec::ForEach<DType>(inner, [&](index_t i, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      (P::LoadUnAligned(sums + i) +
       P::LoadUnAligned(a + j * inner + i) * P::LoadUnAligned(b + j * inner + i))
          .StoreUnAligned(sums + i);
    });
  }
}

// CPU: fn(at, per_position, tag) over the (n, inner) block a packet at a time, at being the
// offset in the block and per_position(values) the packet of values[i] for the positions i
// the packet covers; inner = 1 is one row of n elements, all at position 0.
template <typename DType, typename Fn>
void ForEachInBlock(index_t n, index_t inner, Fn&& fn) {
  // The two shapes compiled apart: no test on the shape inside the packet loop.
  auto run = [&](auto one_line_tag) {
    constexpr bool kOneLine = decltype(one_line_tag)::value;
    const index_t rows = kOneLine ? 1 : n, width = kOneLine ? n : inner;
    for (index_t j = 0; j < rows; ++j) {
      vec::ForEach<DType>(width, [&](index_t i, auto tag) {
        using P = vec::PacketOf<decltype(tag)>;
        auto per_position = [&](const DType* values) {
          if constexpr (kOneLine) {
            return P::Fill(values[0]);
          } else {
            return P::LoadUnAligned(values + i);
          }
        };
        fn(j * width + i, per_position, tag);
      });
    }
  };
  if (inner == 1) {
    run(std::true_type());
  } else {
    run(std::false_type());
  }
}

// CPU item o: the (n, inner) block of outer index o, per position r = 1 / sqrt(sum x^2 + eps).
template <int kReq>
struct NormalizeBlock {
  template <typename DType>
  static void Map(index_t o, LineView v, const DType* x, DType eps, DType* out) {
    const index_t offset = o * v.n * v.inner;
    std::vector<DType> r(v.inner);
    DotDownRows(x + offset, x + offset, v.n, v.inner, r.data());
    for (DType& s : r) s = InverseNorm(s, eps);
    ForEachInBlock<DType>(v.n, v.inner, [&](index_t at, auto per_position, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      vec::Store<kReq == kAddTo>(out + offset + at,
                                 P::LoadUnAligned(x + offset + at) * per_position(r.data()));
    });
  }
};

// CPU item o: the gradient of block o, as NormalizeLineGrad: r * (g - y * sum(g * y)).
template <int kReq>
struct NormalizeBlockGrad {
  template <typename DType>
  static void Map(index_t o, LineView v, const DType* g, const DType* x, const DType* y,
                  DType eps, DType* dx) {
    const index_t offset = o * v.n * v.inner;
    std::vector<DType> r(v.inner), dot(v.inner);
    DotDownRows(x + offset, x + offset, v.n, v.inner, r.data());
    for (DType& s : r) s = InverseNorm(s, eps);
    DotDownRows(g + offset, y + offset, v.n, v.inner, dot.data());
    ForEachInBlock<DType>(v.n, v.inner, [&](index_t at, auto per_position, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      vec::Store<kReq == kAddTo>(
          dx + offset + at,
          per_position(r.data()) * (P::LoadUnAligned(g + offset + at) -
                                    P::LoadUnAligned(y + offset + at) * per_position(dot.data())));
    });
  }
};

// Inputs: data. Outputs: out.
template <typename xpu>
void L2NormalizationCompute(const NodeAttrs& attrs, const OpContext& ctx,
                            const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                            const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const L2NormalizationParam& param = GetParam<L2NormalizationParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const LineView v = LinesOf(in[0].shape_, param.mode);
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType eps = static_cast<DType>(param.eps);
    OPS_REQ_SWITCH(req[0], kReq, {
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<NormalizeBlock<kReq>, cpu>::LaunchItems(stream, v.outer, 2 * v.n * v.inner, v,
                                                       in[0].dptr<DType>(), eps,
                                                       out[0].dptr<DType>());
      } else {
        Kernel<NormalizeLine<kReq>, xpu>::LaunchItems(stream, v.Lines(), 2 * v.n, v,
                                                      in[0].dptr<DType>(), eps,
                                                      out[0].dptr<DType>());
      }
    });
  });
}

// Inputs: out_grad, data, out. Outputs: the data's gradient.
template <typename xpu>
void L2NormalizationBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                                    const std::vector<TBlob>& in,
                                    const std::vector<OpReqType>& req,
                                    const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const L2NormalizationParam& param = GetParam<L2NormalizationParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const LineView v = LinesOf(in[1].shape_, param.mode);
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[1].type_flag_, DType, {
    const DType eps = static_cast<DType>(param.eps);
    OPS_REQ_SWITCH(req[0], kReq, {
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<NormalizeBlockGrad<kReq>, cpu>::LaunchItems(
            stream, v.outer, 4 * v.n * v.inner, v, in[0].dptr<DType>(), in[1].dptr<DType>(),
            in[2].dptr<DType>(), eps, out[0].dptr<DType>());
      } else {
        Kernel<NormalizeLineGrad<kReq>, xpu>::LaunchItems(
            stream, v.Lines(), 4 * v.n, v, in[0].dptr<DType>(), in[1].dptr<DType>(),
            in[2].dptr<DType>(), eps, out[0].dptr<DType>());
      }
    });
  });
}

// Adds FCompute<xpu> to L2Normalization and its backward operator.
template <typename xpu>
void SetL2NormalizationCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("L2Normalization")
      .set_attr<FCompute>(attr_name, FCompute(L2NormalizationCompute<xpu>));
  RegisterOp("_backward_L2Normalization")
      .set_attr<FCompute>(attr_name, FCompute(L2NormalizationBackwardCompute<xpu>));
}

}  // namespace l2_normalization
}  // namespace ops

#endif  // OPS_L2_NORMALIZATION_INL_H_
