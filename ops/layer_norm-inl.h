// ops/layer_norm-inl.h: LayerNorm and its backward operator, written once for every device,
// with MXNet 1.9.1's semantics: each line along `axis` is normalized by its own mean and
// standard deviation sqrt(var + eps), then scaled by gamma and shifted by beta (both indexed
// along `axis`); the optional outputs are that mean and std, shaped like the data with `axis`
// of extent 1. The data is viewed as (outer, n, inner) around the axis, a line per
// (outer, inner) pair. layer_norm.cc registers the CPU, layer_norm.cu adds FCompute<gpu>.
#ifndef OPS_LAYER_NORM_INL_H_
#define OPS_LAYER_NORM_INL_H_

#include <vector>

#include "mshadow/extension/broadcast.h"
#include "mshadow/tensor.h"
#include "ops/infer_util.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/line_moments.h"
#include "ops/vector_loop.h"

namespace ops {
namespace layer_norm {

struct LayerNormParam : public dmlc::Parameter<LayerNormParam> {
  int axis;
  float eps;
  bool output_mean_var;
  DMLC_DECLARE_PARAMETER(LayerNormParam) {
    DMLC_DECLARE_FIELD(axis).set_default(-1).describe("The axis to normalize along.");
    DMLC_DECLARE_FIELD(eps).set_default(1e-5f).set_lower_bound(0.0f).describe(
        "Added to the variance before its square root.");
    DMLC_DECLARE_FIELD(output_mean_var).set_default(false).describe(
        "Also output the mean and the standard deviation sqrt(var + eps).");
  }
};

inline uint32_t NumOutputs(const NodeAttrs& attrs) {
  return GetParam<LayerNormParam>(attrs).output_mean_var ? 3 : 1;
}

inline LineView ViewOf(const TShape& data, int axis_param) {
  const int axis = NormalizeAxis(axis_param, static_cast<int>(data.ndim()));
  const mshadow::Shape<3> s = data.FlatTo3D(axis);
  return {s[0], s[1], s[2]};
}

// Item l: line l normalized (written as kReq says); its mean and rstd saved to `mean` and
// `rstd` (per line).
template <int kReq>
struct LayerNormLine {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t l, LineView v, const DType* x, const DType* gamma,
                                  const DType* beta, DType eps, DType* out, DType* mean,
                                  DType* rstd) {
    LineMoments(v, x, l, eps, mean + l, rstd + l);
    const index_t start = v.Start(l);
    for (index_t j = 0; j < v.n; ++j) {
      const index_t at = start + j * v.inner;
      AssignReq<kReq>(out + at, (x[at] - mean[l]) * rstd[l] * gamma[j] + beta[j]);
    }
  }
};

// CPU item: contiguous row l (inner = 1), vectorized.
template <int kReq>
struct LayerNormRow {
  template <typename DType>
  static void Map(index_t l, index_t n, const DType* x, const DType* gamma, const DType* beta,
                  DType eps, DType* out, DType* mean, DType* rstd) {
    const DType* row = x + l * n;
    RowMoments(row, n, eps, mean + l, rstd + l);
    const DType m = mean[l], r = rstd[l];
    if (kReq == kNullOp) return;  // the moments only
    vec::ForEach<DType>(n, [&](index_t j, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      vec::Store<kReq == kAddTo>(out + l * n + j,
                                 (P::LoadUnAligned(row + j) - P::Fill(m)) * P::Fill(r) *
                                         P::LoadUnAligned(gamma + j) +
                                     P::LoadUnAligned(beta + j));
    });
  }
};

// Item l: the data gradient of line l, from its recomputed moments:
// dx = rstd * (g * gamma - mean(g * gamma) - xhat * mean(g * gamma * xhat)).
template <int kReq>
struct LayerNormLineGrad {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t l, LineView v, const DType* g, const DType* x,
                                  const DType* gamma, DType eps, DType* dx, DType* mean,
                                  DType* rstd) {
    LineMoments(v, x, l, eps, mean + l, rstd + l);
    const index_t start = v.Start(l);
    const DType m = mean[l], r = rstd[l];
    DType a = 0, b = 0;
    for (index_t j = 0; j < v.n; ++j) {
      const index_t at = start + j * v.inner;
      const DType gg = g[at] * gamma[j];
      a += gg;
      b += gg * (x[at] - m) * r;
    }
    a /= DType(v.n);
    b /= DType(v.n);
    for (index_t j = 0; j < v.n; ++j) {
      const index_t at = start + j * v.inner;
      AssignReq<kReq>(dx + at, r * (g[at] * gamma[j] - a - (x[at] - m) * r * b));
    }
  }
};

// CPU item: the same for contiguous row l, vectorized.
template <int kReq>
struct LayerNormRowGrad {
  template <typename DType>
  static void Map(index_t l, index_t n, const DType* g, const DType* x, const DType* gamma,
                  DType eps, DType* dx, DType* mean, DType* rstd) {
    const DType* row = x + l * n;
    const DType* grow = g + l * n;
    RowMoments(row, n, eps, mean + l, rstd + l);
    const DType m = mean[l], r = rstd[l];
    const DType a = vec::Sum<DType>(n, [&](index_t j, auto tag) {
                      using P = vec::PacketOf<decltype(tag)>;
                      return P::LoadUnAligned(grow + j) * P::LoadUnAligned(gamma + j);
                    }) /
                    DType(n);
    const DType b = vec::Sum<DType>(n, [&](index_t j, auto tag) {
                      using P = vec::PacketOf<decltype(tag)>;
                      return P::LoadUnAligned(grow + j) * P::LoadUnAligned(gamma + j) *
                             (P::LoadUnAligned(row + j) - P::Fill(m));
                    }) *
                    r / DType(n);
    if (kReq == kNullOp) return;  // the moments only
    vec::ForEach<DType>(n, [&](index_t j, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      const P xhat = (P::LoadUnAligned(row + j) - P::Fill(m)) * P::Fill(r);
      vec::Store<kReq == kAddTo>(
          dx + l * n + j,
          P::Fill(r) * (P::LoadUnAligned(grow + j) * P::LoadUnAligned(gamma + j) - P::Fill(a) -
                        xhat * P::Fill(b)));
    });
  }
};

// Contiguous rows (inner = 1), the common case, by each device's own kernels: on the CPU the
// vectorized items above, on the GPU a warp per row (layer_norm.cu). Forward writes the rows
// and saves every row's mean and rstd (for kNullOp too); Backward writes the data gradient
// and saves the same moments.
template <typename xpu>
struct RowKernels;

template <>
struct RowKernels<cpu> {
  template <int kReq, typename DType>
  static void Forward(mshadow::Stream<cpu>* stream, index_t rows, index_t n, const DType* x,
                      const DType* gamma, const DType* beta, DType eps, DType* out, DType* mean,
                      DType* rstd) {
    Kernel<LayerNormRow<kReq>, cpu>::LaunchItems(stream, rows, n, n, x, gamma, beta, eps, out, mean,
                                                 rstd);
  }
  template <int kReq, typename DType>
  static void Backward(mshadow::Stream<cpu>* stream, index_t rows, index_t n, const DType* g,
                       const DType* x, const DType* gamma, DType eps, DType* dx, DType* mean,
                       DType* rstd) {
    Kernel<LayerNormRowGrad<kReq>, cpu>::LaunchItems(stream, rows, 3 * n, n, g, x, gamma, eps, dx,
                                                     mean, rstd);
  }
};

// Item j: gamma's and beta's gradients at position j along the axis, summed over the lines
// (from the moments LayerNormLineGrad saved).
template <int kGammaReq, int kBetaReq>
struct LayerNormParamGrad {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t j, LineView v, const DType* g, const DType* x,
                                  const DType* mean, const DType* rstd, DType* dgamma,
                                  DType* dbeta) {
    DType sg = 0, sb = 0;
    for (index_t l = 0; l < v.Lines(); ++l) {
      const index_t at = v.Start(l) + j * v.inner;
      sg += g[at] * (x[at] - mean[l]) * rstd[l];
      sb += g[at];
    }
    AssignReq<kGammaReq>(dgamma + j, sg);
    AssignReq<kBetaReq>(dbeta + j, sb);
  }
};

// Inputs: data, gamma, beta. Outputs: out [, mean, std].
template <typename xpu>
void LayerNormCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const LayerNormParam& param = GetParam<LayerNormParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const LineView v = ViewOf(in[0].shape_, param.axis);
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    // mean and rstd per line.
    auto moments =
        ctx.requested[0].get_space_typed<xpu, 2, DType>(mshadow::Shape2(2, v.Lines()), stream);
    const DType eps = static_cast<DType>(param.eps);
    // The moments are saved whatever req[0] says: the optional outputs read them.
    WithReqMode(req[0], [&](auto mode) {
      constexpr int kReq = decltype(mode)::value;
      if (v.inner == 1) {
        RowKernels<xpu>::template Forward<kReq>(
            stream, v.Lines(), v.n, in[0].dptr<DType>(), in[1].dptr<DType>(), in[2].dptr<DType>(),
            eps, out[0].dptr<DType>(), moments[0].dptr_, moments[1].dptr_);
        return;
      }
      Kernel<LayerNormLine<kReq>, xpu>::LaunchItems(
          stream, v.Lines(), v.n, v, in[0].dptr<DType>(), in[1].dptr<DType>(),
          in[2].dptr<DType>(), eps, out[0].dptr<DType>(), moments[0].dptr_, moments[1].dptr_);
    });
    if (param.output_mean_var) {
      const auto lines = mshadow::Shape1(v.Lines());
      Assign(out[1].get_with_shape<xpu, 1, DType>(lines, stream), req[1],
             mshadow::expr::F<mshadow::op::identity>(moments[0]));
      Assign(out[2].get_with_shape<xpu, 1, DType>(lines, stream), req[2],
             DType(1) / moments[1]);
    }
  });
}

// Inputs: the gradients of the outputs (1 or 3; those of mean and std are ignored), data,
// gamma, beta. Outputs: the gradients of data, gamma and beta.
template <typename xpu>
void LayerNormBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const LayerNormParam& param = GetParam<LayerNormParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const size_t first_input = NumOutputs(attrs);
  const TBlob& data = in[first_input];
  const TBlob& gamma = in[first_input + 1];
  const LineView v = ViewOf(data.shape_, param.axis);
  MSHADOW_SGL_DBL_TYPE_SWITCH(data.type_flag_, DType, {
    auto moments =
        ctx.requested[0].get_space_typed<xpu, 2, DType>(mshadow::Shape2(2, v.Lines()), stream);
    const DType eps = static_cast<DType>(param.eps);
    const DType* g = in[0].dptr<DType>();
    const DType* x = data.dptr<DType>();
    // The data gradient; it also saves every line's moments, which gamma's gradient reads,
    // so it runs (writing no gradient) for kNullOp too.
    WithReqMode(req[0], [&](auto mode) {
      constexpr int kReq = decltype(mode)::value;
      if (v.inner == 1) {
        RowKernels<xpu>::template Backward<kReq>(stream, v.Lines(), v.n, g, x, gamma.dptr<DType>(),
                                                 eps, out[0].dptr<DType>(), moments[0].dptr_,
                                                 moments[1].dptr_);
        return;
      }
      Kernel<LayerNormLineGrad<kReq>, xpu>::LaunchItems(
          stream, v.Lines(), 3 * v.n, v, g, x, gamma.dptr<DType>(), eps, out[0].dptr<DType>(),
          moments[0].dptr_, moments[1].dptr_);
    });
    const bool rows = v.inner == 1;
    if (rows) {  // sums over rows: mshadow's vectorized column sums
      const mshadow::Shape<2> shape = mshadow::Shape2(v.Lines(), v.n);
      auto g2 = in[0].get_with_shape<xpu, 2, DType>(shape, stream);
      auto x2 = data.get_with_shape<xpu, 2, DType>(shape, stream);
      using mshadow::expr::broadcast;
      Assign(out[1].get<xpu, 1, DType>(stream), req[1],
             mshadow::expr::sum_rows(g2 * (x2 - broadcast<0>(moments[0], shape)) *
                                     broadcast<0>(moments[1], shape)));
      Assign(out[2].get<xpu, 1, DType>(stream), req[2], mshadow::expr::sum_rows(g2));
    } else {
      WithReqMode(req[1], [&](auto gamma_mode) {
        WithReqMode(req[2], [&](auto beta_mode) {
          Kernel<LayerNormParamGrad<decltype(gamma_mode)::value, decltype(beta_mode)::value>,
                 xpu>::LaunchItems(stream, v.n, 2 * v.Lines(), v, g, x, moments[0].dptr_,
                                   moments[1].dptr_, out[1].dptr<DType>(),
                                   out[2].dptr<DType>());
        });
      });
    }
  });
}

// Adds FCompute<xpu> to LayerNorm and _backward_LayerNorm.
template <typename xpu>
void SetLayerNormCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("LayerNorm").set_attr<FCompute>(attr_name, FCompute(LayerNormCompute<xpu>));
  RegisterOp("_backward_LayerNorm")
      .set_attr<FCompute>(attr_name, FCompute(LayerNormBackwardCompute<xpu>));
}

}  // namespace layer_norm
}  // namespace ops

#endif  // OPS_LAYER_NORM_INL_H_
