// ops/group_norm-inl.h: GroupNorm and InstanceNorm and their backward operators, written once
// for every device, with MXNet 1.9.1's semantics. Both normalize contiguous groups of each
// sample: data (N, C, ...) is viewed as N * P lines of L = size / (N * P) elements, P groups
// a sample; each line becomes (x - mean) / sqrt(var + eps) with its own moments, scaled and
// shifted by gamma[p] and beta[p] of its group p = line % P.
// - GroupNorm: P = num_groups, gamma and beta of shape (num_groups,) as in MXNet 1.9.1 (MXNet 2
//   made them per channel); the optional outputs are the mean and std, shaped (N, num_groups).
// - InstanceNorm: P = C, one channel a group, gamma and beta of shape (C,).
// group_norm.cc registers the CPU, group_norm.cu adds FCompute<gpu>.
#ifndef OPS_GROUP_NORM_INL_H_
#define OPS_GROUP_NORM_INL_H_

#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/infer_util.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/line_moments.h"
#include "ops/vector_loop.h"

namespace ops {
namespace group_norm {

struct GroupNormParam : public dmlc::Parameter<GroupNormParam> {
  int num_groups;
  float eps;
  bool output_mean_var;
  DMLC_DECLARE_PARAMETER(GroupNormParam) {
    DMLC_DECLARE_FIELD(num_groups)
        .set_default(1)
        .set_lower_bound(1)
        .describe("The number of groups the channels are split into; it must divide the channels.");
    DMLC_DECLARE_FIELD(eps).set_default(1e-5f).set_lower_bound(0.0f).describe(
        "Added to the variance before its square root.");
    DMLC_DECLARE_FIELD(output_mean_var)
        .set_default(false)
        .describe(
            "Also output each group's mean and standard deviation sqrt(var + eps), shaped "
            "(N, num_groups).");
  }
};

struct InstanceNormParam : public dmlc::Parameter<InstanceNormParam> {
  float eps;
  DMLC_DECLARE_PARAMETER(InstanceNormParam) {
    DMLC_DECLARE_FIELD(eps).set_default(1e-3f).set_lower_bound(0.0f).describe(
        "Added to the variance before its square root.");
  }
};

// The groups a sample is split into (P), and whether the moments are outputs.
inline index_t GroupsPerSample(const GroupNormParam& param, const TShape&) {
  return param.num_groups;
}
inline index_t GroupsPerSample(const InstanceNormParam&, const TShape& data) { return data[1]; }
inline bool OutputsMoments(const GroupNormParam& param) { return param.output_mean_var; }
inline bool OutputsMoments(const InstanceNormParam&) { return false; }

template <typename Param>
uint32_t NumOutputs(const NodeAttrs& attrs) {
  return OutputsMoments(GetParam<Param>(attrs)) ? 3 : 1;
}

// N * P contiguous lines of `length` elements; line l belongs to group l % per_sample.
struct Groups {
  index_t lines, length, per_sample;
  MSHADOW_XINLINE LineView Line() const { return LineView{lines, length, 1}; }
};

inline Groups GroupsOf(const TShape& data, index_t per_sample) {
  const index_t lines = data[0] * per_sample;
  return {lines, lines == 0 ? 0 : data.Size() / lines, per_sample};
}

// Item l: line l normalized (written as kReq says); its mean and rstd saved.
template <int kReq>
struct GroupNormLine {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t l, Groups g, const DType* x, const DType* gamma,
                                  const DType* beta, DType eps, DType* out, DType* mean,
                                  DType* rstd) {
    LineMoments(g.Line(), x, l, eps, mean + l, rstd + l);
    const DType m = mean[l], scale = rstd[l] * gamma[l % g.per_sample];
    const DType shift = beta[l % g.per_sample];
    for (index_t j = l * g.length; j < (l + 1) * g.length; ++j) {
      AssignReq<kReq>(out + j, (x[j] - m) * scale + shift);
    }
  }
};

// CPU item: the same, vectorized.
template <int kReq>
struct GroupNormRow {
  template <typename DType>
  static void Map(index_t l, Groups g, const DType* x, const DType* gamma, const DType* beta,
                  DType eps, DType* out, DType* mean, DType* rstd) {
    const DType* row = x + l * g.length;
    RowMoments(row, g.length, eps, mean + l, rstd + l);
    if (kReq == kNullOp) return;  // the moments only
    const DType m = mean[l], scale = rstd[l] * gamma[l % g.per_sample];
    const DType shift = beta[l % g.per_sample];
    vec::ForEach<DType>(g.length, [&](index_t j, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      vec::Store<kReq == kAddTo>(
          out + l * g.length + j,
          (P::LoadUnAligned(row + j) - P::Fill(m)) * P::Fill(scale) + P::Fill(shift));
    });
  }
};

// Item l: the data gradient of line l from its recomputed moments (gamma is one number a line):
// dx = gamma * rstd * (g - mean(g) - xhat * mean(g * xhat)), xhat = (x - mean) * rstd.
// Saves sum(g) and sum(g * xhat), the line's shares of beta's and gamma's gradients.
template <int kReq>
struct GroupNormLineGrad {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t l, Groups g, const DType* dy, const DType* x,
                                  const DType* gamma, DType eps, DType* dx, DType* sum_dy,
                                  DType* sum_dy_xhat) {
    DType m, r;
    LineMoments(g.Line(), x, l, eps, &m, &r);
    const index_t begin = l * g.length, end = begin + g.length;
    DType a = 0, b = 0;
    for (index_t j = begin; j < end; ++j) {
      a += dy[j];
      b += dy[j] * (x[j] - m);
    }
    sum_dy[l] = a;
    sum_dy_xhat[l] = b * r;
    const DType scale = gamma[l % g.per_sample] * r;
    const DType mean_dy = a / DType(g.length), mean_dy_xhat_r = b * r * r / DType(g.length);
    for (index_t j = begin; j < end; ++j) {
      AssignReq<kReq>(dx + j, scale * (dy[j] - mean_dy - (x[j] - m) * mean_dy_xhat_r));
    }
  }
};

// CPU item: the same, vectorized.
template <int kReq>
struct GroupNormRowGrad {
  template <typename DType>
  static void Map(index_t l, Groups g, const DType* dy, const DType* x, const DType* gamma,
                  DType eps, DType* dx, DType* sum_dy, DType* sum_dy_xhat) {
    const index_t n = g.length;
    const DType* row = x + l * n;
    const DType* dy_row = dy + l * n;
    DType m, r;
    RowMoments(row, n, eps, &m, &r);
    const DType a = vec::Sum<DType>(n, [&](index_t j, auto tag) {
      return vec::PacketOf<decltype(tag)>::LoadUnAligned(dy_row + j);
    });
    const DType b = vec::Sum<DType>(n, [&](index_t j, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      return P::LoadUnAligned(dy_row + j) * (P::LoadUnAligned(row + j) - P::Fill(m));
    });
    sum_dy[l] = a;
    sum_dy_xhat[l] = b * r;
    if (kReq == kNullOp) return;  // the parameters' shares only
    const DType scale = gamma[l % g.per_sample] * r;
    const DType mean_dy = a / DType(n), mean_dy_xhat_r = b * r * r / DType(n);
    vec::ForEach<DType>(n, [&](index_t j, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      vec::Store<kReq == kAddTo>(
          dx + l * n + j,
          P::Fill(scale) * (P::LoadUnAligned(dy_row + j) - P::Fill(mean_dy) -
                            (P::LoadUnAligned(row + j) - P::Fill(m)) * P::Fill(mean_dy_xhat_r)));
    });
  }
};

// Item p: gamma's and beta's gradients of group p, the lines' shares summed over the samples.
template <int kGammaReq, int kBetaReq>
struct GroupNormParamGrad {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t p, Groups g, const DType* sum_dy,
                                  const DType* sum_dy_xhat, DType* dgamma, DType* dbeta) {
    DType sg = 0, sb = 0;
    for (index_t l = p; l < g.lines; l += g.per_sample) {
      sg += sum_dy_xhat[l];
      sb += sum_dy[l];
    }
    AssignReq<kGammaReq>(dgamma + p, sg);
    AssignReq<kBetaReq>(dbeta + p, sb);
  }
};

// Inputs: data, gamma, beta. Outputs: out [, mean, std].
template <typename Param, typename xpu>
void GroupNormCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Param& param = GetParam<Param>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const Groups g = GroupsOf(in[0].shape_, GroupsPerSample(param, in[0].shape_));
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    // mean and rstd per line.
    auto moments =
        ctx.requested[0].get_space_typed<xpu, 2, DType>(mshadow::Shape2(2, g.lines), stream);
    const DType eps = static_cast<DType>(param.eps);
    // The moments are saved whatever req[0] says: the optional outputs read them.
    WithReqMode(req[0], [&](auto mode) {
      constexpr int kReq = decltype(mode)::value;
      auto launch = [&](auto kernel) {
        using K = decltype(kernel);
        K::LaunchItems(stream, g.lines, g.length, g, in[0].dptr<DType>(), in[1].dptr<DType>(),
                       in[2].dptr<DType>(), eps, out[0].dptr<DType>(), moments[0].dptr_,
                       moments[1].dptr_);
      };
      if constexpr (std::is_same_v<xpu, cpu>) {
        launch(Kernel<GroupNormRow<kReq>, cpu>());
      } else {
        launch(Kernel<GroupNormLine<kReq>, xpu>());
      }
    });
    if (OutputsMoments(param)) {
      const auto lines = mshadow::Shape1(g.lines);
      Assign(out[1].get_with_shape<xpu, 1, DType>(lines, stream), req[1],
             mshadow::expr::F<mshadow::op::identity>(moments[0]));
      Assign(out[2].get_with_shape<xpu, 1, DType>(lines, stream), req[2], DType(1) / moments[1]);
    }
  });
}

// Inputs: the gradients of the outputs (1 or 3; those of mean and std are ignored), data,
// gamma, beta. Outputs: the gradients of data, gamma and beta.
template <typename Param, typename xpu>
void GroupNormBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const Param& param = GetParam<Param>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const size_t first_input = NumOutputs<Param>(attrs);
  const TBlob& data = in[first_input];
  const TBlob& gamma = in[first_input + 1];
  const Groups g = GroupsOf(data.shape_, GroupsPerSample(param, data.shape_));
  MSHADOW_SGL_DBL_TYPE_SWITCH(data.type_flag_, DType, {
    auto sums =
        ctx.requested[0].get_space_typed<xpu, 2, DType>(mshadow::Shape2(2, g.lines), stream);
    const DType eps = static_cast<DType>(param.eps);
    // The data gradient; it also saves every line's sums, which the parameters' gradients
    // read, so it runs (writing no gradient) for kNullOp too.
    WithReqMode(req[0], [&](auto mode) {
      constexpr int kReq = decltype(mode)::value;
      auto launch = [&](auto kernel) {
        using K = decltype(kernel);
        K::LaunchItems(stream, g.lines, 3 * g.length, g, in[0].dptr<DType>(), data.dptr<DType>(),
                       gamma.dptr<DType>(), eps, out[0].dptr<DType>(), sums[0].dptr_,
                       sums[1].dptr_);
      };
      if constexpr (std::is_same_v<xpu, cpu>) {
        launch(Kernel<GroupNormRowGrad<kReq>, cpu>());
      } else {
        launch(Kernel<GroupNormLineGrad<kReq>, xpu>());
      }
    });
    WithReqMode(req[1], [&](auto gamma_mode) {
      WithReqMode(req[2], [&](auto beta_mode) {
        Kernel<GroupNormParamGrad<decltype(gamma_mode)::value, decltype(beta_mode)::value>,
               xpu>::LaunchItems(stream, g.per_sample, 2 * data.shape_[0], g, sums[0].dptr_,
                                 sums[1].dptr_, out[1].dptr<DType>(), out[2].dptr<DType>());
      });
    });
  });
}

// Adds FCompute<xpu> to GroupNorm, InstanceNorm and their backward operators.
template <typename xpu>
void SetGroupNormCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("GroupNorm")
      .set_attr<FCompute>(attr_name, FCompute(GroupNormCompute<GroupNormParam, xpu>));
  RegisterOp("_backward_GroupNorm")
      .set_attr<FCompute>(attr_name, FCompute(GroupNormBackwardCompute<GroupNormParam, xpu>));
  RegisterOp("InstanceNorm")
      .set_attr<FCompute>(attr_name, FCompute(GroupNormCompute<InstanceNormParam, xpu>));
  RegisterOp("_backward_InstanceNorm")
      .set_attr<FCompute>(attr_name, FCompute(GroupNormBackwardCompute<InstanceNormParam, xpu>));
}

}  // namespace group_norm
}  // namespace ops

#endif  // OPS_GROUP_NORM_INL_H_
