// ops/adaptive_optimizer-inl.h: the optimizer updates with per-element step sizes, as MXNet
// 1.9.1 defines them: adam_update, rmsprop_update and rmspropalex_update (RMSProp as Alex
// Graves wrote it, with a momentum), written once for every device. adaptive_optimizer.cc
// registers them with FCompute<cpu>, adaptive_optimizer.cu adds FCompute<gpu>.
//
// Each is one kernel over the elements: it updates its state inputs in place (always, as
// MXNet's do) and writes the new weight to its output as the request says.
#ifndef OPS_ADAPTIVE_OPTIMIZER_INL_H_
#define OPS_ADAPTIVE_OPTIMIZER_INL_H_

#include <cmath>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/optimizer-inl.h"

namespace ops {
namespace optimizer {

struct AdamParam : public dmlc::Parameter<AdamParam> {
  float lr;
  float beta1;
  float beta2;
  float epsilon;
  float wd;
  float rescale_grad;
  float clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(AdamParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(beta1).set_default(0.9f).describe("Decay of the first moment (mean).");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe("Decay of the second moment (var).");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe("Added to sqrt(var) for stability.");
    OPS_DECLARE_GRADIENT_FIELDS();
    OPS_DECLARE_LAZY_UPDATE_FIELD();
  }
};

struct RMSPropParam : public dmlc::Parameter<RMSPropParam> {
  float lr;
  float gamma1;
  float epsilon;
  float wd;
  float rescale_grad;
  float clip_gradient;
  float clip_weights;
  DMLC_DECLARE_PARAMETER(RMSPropParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(gamma1).set_default(0.95f).describe(
        "Decay of the squared-gradient average.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe("Added to the average for stability.");
    OPS_DECLARE_GRADIENT_FIELDS();
    DMLC_DECLARE_FIELD(clip_weights).set_default(-1.0f).describe(
        "Clip the new weight to [-clip_weights, clip_weights]; negative: no clipping.");
  }
};

struct RMSPropAlexParam : public dmlc::Parameter<RMSPropAlexParam> {
  float lr;
  float gamma1;
  float gamma2;
  float epsilon;
  float wd;
  float rescale_grad;
  float clip_gradient;
  float clip_weights;
  DMLC_DECLARE_PARAMETER(RMSPropAlexParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(gamma1).set_default(0.95f).describe("Decay of the gradient averages.");
    DMLC_DECLARE_FIELD(gamma2).set_default(0.9f).describe("Momentum: decay of the step (delta).");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe("Added to the variance for stability.");
    OPS_DECLARE_GRADIENT_FIELDS();
    DMLC_DECLARE_FIELD(clip_weights).set_default(-1.0f).describe(
        "Clip the new weight to [-clip_weights, clip_weights]; negative: no clipping.");
  }
};

// g = clip(rescale_grad * grad + wd * weight), the gradient Adam and RMSProp step with (MXNet
// adds the weight decay before clipping here, unlike in sgd_update).
template <typename DType>
struct DecayedGradient {
  DType rescale, wd, clip;
  MSHADOW_XINLINE DType operator()(DType grad, DType weight) const {
    return ClipMagnitude(rescale * grad + wd * weight, clip);
  }
};

// Inputs weight, grad, mean, var: mean and var updated in place; weight_out = weight - lr *
// mean / (sqrt(var) + epsilon).
template <int kReq>
struct adam_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* w_out, const DType* w, const DType* grad,
                                  DType* mean, DType* var, DType lr, DType beta1, DType beta2,
                                  DType epsilon, DecayedGradient<DType> decayed) {
    const DType wi = w[i];
    const DType g = decayed(grad[i], wi);
    const DType m = beta1 * mean[i] + (DType(1) - beta1) * g;
    const DType v = beta2 * var[i] + (DType(1) - beta2) * g * g;
    mean[i] = m;
    var[i] = v;
    AssignReq<kReq>(w_out + i, wi - lr * m / (std::sqrt(v) + epsilon));
  }
};

// Inputs weight, grad, n: n = gamma1 * n + (1 - gamma1) * g^2 in place; weight_out = clip_weights(
// weight - lr * g / sqrt(n + epsilon)).
template <int kReq>
struct rmsprop_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* w_out, const DType* w, const DType* grad,
                                  DType* n, DType lr, DType gamma1, DType epsilon, DType clip_weights,
                                  DecayedGradient<DType> decayed) {
    const DType wi = w[i];
    const DType g = decayed(grad[i], wi);
    const DType ni = gamma1 * n[i] + (DType(1) - gamma1) * g * g;
    n[i] = ni;
    AssignReq<kReq>(w_out + i, ClipMagnitude(wi - lr * g / std::sqrt(ni + epsilon), clip_weights));
  }
};

// Inputs weight, grad, n, g_avg, delta (the last three updated in place):
//   n = gamma1 n + (1 - gamma1) g^2,  g_avg = gamma1 g_avg + (1 - gamma1) g,
//   delta = gamma2 delta - lr g / sqrt(n - g_avg^2 + epsilon),  weight_out = weight + delta.
template <int kReq>
struct rmspropalex_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* w_out, const DType* w, const DType* grad,
                                  DType* n, DType* g_avg, DType* delta, DType lr, DType gamma1,
                                  DType gamma2, DType epsilon, DType clip_weights,
                                  DecayedGradient<DType> decayed) {
    const DType wi = w[i];
    const DType g = decayed(grad[i], wi);
    const DType ni = gamma1 * n[i] + (DType(1) - gamma1) * g * g;
    const DType gi = gamma1 * g_avg[i] + (DType(1) - gamma1) * g;
    const DType di = gamma2 * delta[i] - lr * g / std::sqrt(ni - gi * gi + epsilon);
    n[i] = ni;
    g_avg[i] = gi;
    delta[i] = di;
    AssignReq<kReq>(w_out + i, ClipMagnitude(wi + di, clip_weights));
  }
};

template <typename xpu>
void AdamUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const AdamParam& p = GetParam<AdamParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    LaunchUpdate<adam_kernel>(ctx.get_stream<xpu>(), req[0], out[0].Size(), out[0].dptr<DType>(),
                              in[0].dptr<DType>(), in[1].dptr<DType>(), in[2].dptr<DType>(),
                              in[3].dptr<DType>(), DType(p.lr), DType(p.beta1), DType(p.beta2),
                              DType(p.epsilon),
                              DecayedGradient<DType>{p.rescale_grad, p.wd, p.clip_gradient});
  });
}

template <typename xpu>
void RMSPropUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  const RMSPropParam& p = GetParam<RMSPropParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    LaunchUpdate<rmsprop_kernel>(ctx.get_stream<xpu>(), req[0], out[0].Size(),
                                 out[0].dptr<DType>(), in[0].dptr<DType>(), in[1].dptr<DType>(),
                                 in[2].dptr<DType>(), DType(p.lr), DType(p.gamma1), DType(p.epsilon),
                                 DType(p.clip_weights),
                                 DecayedGradient<DType>{p.rescale_grad, p.wd, p.clip_gradient});
  });
}

template <typename xpu>
void RMSPropAlexUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const RMSPropAlexParam& p = GetParam<RMSPropAlexParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    LaunchUpdate<rmspropalex_kernel>(
        ctx.get_stream<xpu>(), req[0], out[0].Size(), out[0].dptr<DType>(), in[0].dptr<DType>(),
        in[1].dptr<DType>(), in[2].dptr<DType>(), in[3].dptr<DType>(), in[4].dptr<DType>(),
        DType(p.lr), DType(p.gamma1), DType(p.gamma2), DType(p.epsilon), DType(p.clip_weights),
        DecayedGradient<DType>{p.rescale_grad, p.wd, p.clip_gradient});
  });
}

// Adds FCompute<xpu> to adam_update, rmsprop_update and rmspropalex_update.
template <typename xpu>
void SetAdaptiveOptimizerCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("adam_update").set_attr<FCompute>(attr_name, FCompute(AdamUpdateCompute<xpu>));
  RegisterOp("rmsprop_update").set_attr<FCompute>(attr_name, FCompute(RMSPropUpdateCompute<xpu>));
  RegisterOp("rmspropalex_update")
      .set_attr<FCompute>(attr_name, FCompute(RMSPropAlexUpdateCompute<xpu>));
}

}  // namespace optimizer
}  // namespace ops

#endif  // OPS_ADAPTIVE_OPTIMIZER_INL_H_
