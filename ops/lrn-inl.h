// ops/lrn-inl.h: LRN (local response normalization across channels) and its backward
// operator, written once for every device, with MXNet 1.9.1's semantics (its CPU build):
//   norm[c] = knorm + alpha / nsize * sum of x[c']^2 over |c' - c| <= (nsize - 1) / 2,
//   out[c] = x[c] * norm[c]^-beta,
// along the channel axis 1 of data (N, C, spatial...), the window cut at the first and last
// channel. An even nsize sums nsize - 1 channels but still scales by alpha / nsize, as
// MXNet's oneDNN kernel does. The gradient, with the same (symmetric) windows:
//   dx[c] = g[c] * norm[c]^-beta
//           - 2 * beta * alpha / nsize * x[c] * sum over the window of g[c'] x[c'] norm[c']^(-beta-1).
// lrn.cc registers the CPU, lrn.cu adds FCompute<gpu>.
#ifndef OPS_LRN_INL_H_
#define OPS_LRN_INL_H_

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/line_moments.h"
#include "ops/vector_loop.h"

namespace ops {
namespace lrn {

struct LRNParam : public dmlc::Parameter<LRNParam> {
  float alpha;
  float beta;
  float knorm;
  int nsize;
  DMLC_DECLARE_PARAMETER(LRNParam) {
    DMLC_DECLARE_FIELD(alpha).set_default(1e-4f).describe(
        "Scale of the sum of squares (divided by nsize).");
    DMLC_DECLARE_FIELD(beta).set_default(0.75f).describe("Exponent of the normalizer.");
    DMLC_DECLARE_FIELD(knorm).set_default(2.0f).describe("Added to the scaled sum of squares.");
    DMLC_DECLARE_FIELD(nsize).set_lower_bound(1).describe(
        "The channels summed around each channel: (nsize - 1) / 2 on each side.");
  }
};

// The parameters in the data's type, and the window's half width.
template <typename DType>
struct Window {
  index_t half;
  DType scale;  // alpha / nsize
  DType knorm, beta;
  explicit Window(const LRNParam& p)
      : half((p.nsize - 1) / 2),
        scale(static_cast<DType>(p.alpha) / static_cast<DType>(p.nsize)),
        knorm(static_cast<DType>(p.knorm)),
        beta(static_cast<DType>(p.beta)) {}
  // The channels [First(c), Last(c)] of c's window among `channels`.
  MSHADOW_XINLINE index_t First(index_t c) const { return c > half ? c - half : 0; }
  MSHADOW_XINLINE index_t Last(index_t c, index_t channels) const {
    return c + half < channels ? c + half : channels - 1;
  }
  // norm[c] of the line of channels at `line` (its elements `inner` apart).
  MSHADOW_XINLINE DType Norm(const DType* line, index_t inner, index_t c,
                             index_t channels) const {
    DType sum = 0;
    for (index_t k = First(c); k <= Last(c, channels); ++k) {
      sum += line[k * inner] * line[k * inner];
    }
    return knorm + scale * sum;
  }
};

// Item l: line l (one sample and spatial position, across the channels) normalized.
template <int kReq>
struct LRNLine {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t l, LineView v, const DType* x, Window<DType> w,
                                  DType* out) {
    const index_t start = v.Start(l);
    for (index_t c = 0; c < v.n; ++c) {
      const DType norm = w.Norm(x + start, v.inner, c, v.n);
      AssignReq<kReq>(out + start + c * v.inner, x[start + c * v.inner] * pow(norm, -w.beta));
    }
  }
};

// Item l: line l's data gradient (each norm recomputed where the window needs it).
template <int kReq>
struct LRNLineGrad {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t l, LineView v, const DType* g, const DType* x,
                                  Window<DType> w, DType* dx) {
    const index_t start = v.Start(l);
    const DType* xl = x + start;
    const DType* gl = g + start;
    for (index_t c = 0; c < v.n; ++c) {
      DType sum = 0;
      for (index_t k = w.First(c); k <= w.Last(c, v.n); ++k) {
        const DType norm = w.Norm(xl, v.inner, k, v.n);
        sum += gl[k * v.inner] * xl[k * v.inner] * pow(norm, -w.beta - DType(1));
      }
      const DType norm = w.Norm(xl, v.inner, c, v.n);
      AssignReq<kReq>(dx + start + c * v.inner,
                      gl[c * v.inner] * pow(norm, -w.beta) -
                          DType(2) * w.beta * w.scale * xl[c * v.inner] * sum);
    }
  }
};

// CPU: norm^-beta, through square roots for the common beta = 0.75 (norm^-3/4 =
// 1 / (sqrt(norm) * sqrt(sqrt(norm)))), far cheaper than a general power.
template <typename P, typename DType>
MSHADOW_CINLINE P NegativePower(const P& norm, DType beta) {
  if (beta == DType(0.75)) {
    const P root = Sqrt(norm);
    return P::Fill(DType(1)) / (root * Sqrt(root));
  }
  return Pow(norm, P::Fill(-beta));
}

// CPU: norm[c] for every channel of sample block (C, inner), a contiguous row of `inner`
// positions at a time.
template <typename DType>
void BlockNorms(const DType* block, index_t channels, index_t inner, const Window<DType>& w,
                DType* norm) {
  for (index_t c = 0; c < channels; ++c) {
    DType* row = norm + c * inner;
    vec::ForEach<DType>(inner, [&](index_t i, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      P sum = P::Fill(DType(0));
      for (index_t k = w.First(c); k <= w.Last(c, channels); ++k) {
        const P xk = P::LoadUnAligned(block + k * inner + i);
        sum = sum + xk * xk;
      }
      (P::Fill(w.knorm) + P::Fill(w.scale) * sum).StoreUnAligned(row + i);
    });
  }
}

// CPU item o: sample o's (C, inner) block.
template <int kReq>
struct LRNBlock {
  template <typename DType>
  static void Map(index_t o, LineView v, const DType* x, Window<DType> w, DType* out) {
    const index_t size = v.n * v.inner, offset = o * size;
    std::vector<DType> norm(size);
    BlockNorms(x + offset, v.n, v.inner, w, norm.data());
    vec::ForEach<DType>(size, [&](index_t i, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      vec::Store<kReq == kAddTo>(
          out + offset + i,
          P::LoadUnAligned(x + offset + i) *
              NegativePower(P::LoadUnAligned(norm.data() + i), w.beta));
    });
  }
};

// CPU item o: the gradient of sample o's block, from t[c] = g[c] x[c] norm[c]^(-beta-1).
template <int kReq>
struct LRNBlockGrad {
  template <typename DType>
  static void Map(index_t o, LineView v, const DType* g, const DType* x, Window<DType> w,
                  DType* dx) {
    const index_t size = v.n * v.inner, offset = o * size;
    std::vector<DType> scaled(size), t(size);  // norm^-beta, then t
    BlockNorms(x + offset, v.n, v.inner, w, scaled.data());
    vec::ForEach<DType>(size, [&](index_t i, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      const P norm = P::LoadUnAligned(scaled.data() + i);
      const P power = NegativePower(norm, w.beta);
      power.StoreUnAligned(scaled.data() + i);
      (P::LoadUnAligned(g + offset + i) * P::LoadUnAligned(x + offset + i) * power / norm)
          .StoreUnAligned(t.data() + i);
    });
    const DType factor = DType(2) * w.beta * w.scale;
    for (index_t c = 0; c < v.n; ++c) {
      const index_t row = c * v.inner;
      vec::ForEach<DType>(v.inner, [&](index_t i, auto tag) {
        using P = vec::PacketOf<decltype(tag)>;
        P sum = P::Fill(DType(0));
        for (index_t k = w.First(c); k <= w.Last(c, v.n); ++k) {
          sum = sum + P::LoadUnAligned(t.data() + k * v.inner + i);
        }
        vec::Store<kReq == kAddTo>(
            dx + offset + row + i,
            P::LoadUnAligned(g + offset + row + i) * P::LoadUnAligned(scaled.data() + row + i) -
                P::Fill(factor) * P::LoadUnAligned(x + offset + row + i) * sum);
      });
    }
  }
};

// The data (N, C, spatial...) as N * spatial lines across C channels.
inline LineView ChannelLines(const TShape& data) {
  return LineView{data[0], data[1], data.ProdShape(2, data.ndim())};
}

// Inputs: data. Outputs: out.
template <typename xpu>
void LRNCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const LineView v = ChannelLines(in[0].shape_);
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const Window<DType> w(GetParam<LRNParam>(attrs));
    OPS_REQ_SWITCH(req[0], kReq, {
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<LRNBlock<kReq>, cpu>::LaunchItems(stream, v.outer, 8 * v.n * v.inner, v,
                                                 in[0].dptr<DType>(), w, out[0].dptr<DType>());
      } else {
        Kernel<LRNLine<kReq>, xpu>::LaunchItems(stream, v.Lines(), 8 * v.n, v,
                                                in[0].dptr<DType>(), w, out[0].dptr<DType>());
      }
    });
  });
}

// Inputs: out_grad, data. Outputs: the data's gradient.
template <typename xpu>
void LRNBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                        const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                        const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const LineView v = ChannelLines(in[1].shape_);
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[1].type_flag_, DType, {
    const Window<DType> w(GetParam<LRNParam>(attrs));
    OPS_REQ_SWITCH(req[0], kReq, {
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<LRNBlockGrad<kReq>, cpu>::LaunchItems(stream, v.outer, 16 * v.n * v.inner, v,
                                                     in[0].dptr<DType>(), in[1].dptr<DType>(),
                                                     w, out[0].dptr<DType>());
      } else {
        Kernel<LRNLineGrad<kReq>, xpu>::LaunchItems(stream, v.Lines(), 16 * v.n, v,
                                                    in[0].dptr<DType>(), in[1].dptr<DType>(),
                                                    w, out[0].dptr<DType>());
      }
    });
  });
}

// Adds FCompute<xpu> to LRN and its backward operator.
template <typename xpu>
void SetLRNCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("LRN").set_attr<FCompute>(attr_name, FCompute(LRNCompute<xpu>));
  RegisterOp("_backward_LRN").set_attr<FCompute>(attr_name, FCompute(LRNBackwardCompute<xpu>));
}

}  // namespace lrn
}  // namespace ops

#endif  // OPS_LRN_INL_H_
