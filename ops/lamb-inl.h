// ops/lamb-inl.h: LAMB (You et al., "Large Batch Optimization for Deep Learning", 2019) in
// MXNet 1.9.1's two phases, written once for every device:
// - lamb_update_phase1: Adam's moments (in place) and the step direction g = mean_hat /
//   (sqrt(var_hat) + epsilon) + wd * weight, bias-corrected unless bias_correction is off;
// - lamb_update_phase2: weight - lr * (r1 / r2) * g, where the host passes r1 = ||weight||
//   and r2 = ||g|| (the layer's trust ratio; lr alone when either is 0), r1 first bounded
//   by lower_bound and upper_bound.
// The mp_ variants step a float32 master weight (weight32) for a float16 (or other) weight.
// lamb.cc registers them with FCompute<cpu>, lamb.cu adds FCompute<gpu>.
#ifndef OPS_LAMB_INL_H_
#define OPS_LAMB_INL_H_

#include <cmath>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/optimizer-inl.h"

namespace ops {
namespace optimizer {

struct LambUpdatePhaseOneParam : public dmlc::Parameter<LambUpdatePhaseOneParam> {
  float beta1;
  float beta2;
  float epsilon;
  int t;
  bool bias_correction;
  float wd;
  float rescale_grad;
  float clip_gradient;
  DMLC_DECLARE_PARAMETER(LambUpdatePhaseOneParam) {
    DMLC_DECLARE_FIELD(beta1).set_default(0.9f).describe("Decay of the first moment (mean).");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe("Decay of the second moment (var).");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-6f).describe("Added to sqrt(var) for stability.");
    DMLC_DECLARE_FIELD(t).set_lower_bound(1).describe(
        "The update's count, from 1: the bias corrections divide by 1 - beta^t.");
    DMLC_DECLARE_FIELD(bias_correction)
        .set_default(true)
        .describe("Divide the moments by 1 - beta1^t and 1 - beta2^t.");
    DMLC_DECLARE_FIELD(wd).describe("Weight decay: wd * weight joins the direction.");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("The gradient's scale.");
    DMLC_DECLARE_FIELD(clip_gradient)
        .set_default(-1.0f)
        .describe(
            "Clip the rescaled gradient to [-clip_gradient, clip_gradient]; negative: no "
            "clipping.");
  }
};

struct LambUpdatePhaseTwoParam : public dmlc::Parameter<LambUpdatePhaseTwoParam> {
  float lr;
  float lower_bound;
  float upper_bound;
  DMLC_DECLARE_PARAMETER(LambUpdatePhaseTwoParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(lower_bound)
        .set_default(-1.0f)
        .describe("r1 (the weight's norm) raised to at least this; negative: no bound.");
    DMLC_DECLARE_FIELD(upper_bound)
        .set_default(-1.0f)
        .describe("r1 lowered to at most this; negative: no bound.");
  }
};

// Phase one on one element (T: the weight's type, or float on a master copy): the moments
// updated in place; returns the direction g.
template <typename T>
struct LambDirection {
  T beta1, beta2, epsilon, wd, rescale, clip;
  T mean_correction, var_correction;  // 1 / (1 - beta^t), or 1
  MSHADOW_XINLINE T operator()(T w, T grad, T* mean, T* var) const {
    UpdateMoments(ClipMagnitude(rescale * grad, clip), beta1, beta2, mean, var);
    return *mean * mean_correction / (std::sqrt(*var * var_correction) + epsilon) + wd * w;
  }
};

// Phase two's step size from the norms r1 (of the weight) and r2 (of g).
template <typename T>
struct LambTrustStep {
  T lr, lower_bound, upper_bound;
  MSHADOW_XINLINE T operator()(T r1, T r2) const {
    if (lower_bound >= T(0) && r1 < lower_bound) r1 = lower_bound;
    if (upper_bound >= T(0) && r1 > upper_bound) r1 = upper_bound;
    return r1 == T(0) || r2 == T(0) ? lr : lr * r1 / r2;
  }
};

// Inputs weight, grad, mean, var (the last two updated in place); output g.
template <int kReq>
struct lamb_phase1_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* g_out, const DType* w, const DType* grad,
                                  DType* mean, DType* var, LambDirection<DType> direction) {
    AssignReq<kReq>(g_out + i, direction(w[i], grad[i], mean + i, var + i));
  }
};

// Inputs weight (not read), grad, and float32 mean, var (in place) and weight32; output g
// (float32).
template <int kReq>
struct mp_lamb_phase1_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, float* g_out, const DType* grad, float* mean,
                                  float* var, const float* w32, LambDirection<float> direction) {
    AssignReq<kReq>(g_out + i, direction(w32[i], static_cast<float>(grad[i]), mean + i, var + i));
  }
};

// Inputs weight, g, r1, r2 (one element each); output the new weight.
template <int kReq>
struct lamb_phase2_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* w_out, const DType* w, const DType* g,
                                  const DType* r1, const DType* r2, LambTrustStep<DType> step) {
    AssignReq<kReq>(w_out + i, w[i] - step(*r1, *r2) * g[i]);
  }
};

// Inputs weight (not read), and float32 g, r1, r2 and weight32 (updated in place); output the
// new weight32 in the weight's type.
template <int kReq>
struct mp_lamb_phase2_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* w_out, const float* g, const float* r1,
                                  const float* r2, float* w32, LambTrustStep<float> step) {
    const float w = w32[i] - step(*r1, *r2) * g[i];
    w32[i] = w;
    AssignReq<kReq>(w_out + i, static_cast<DType>(w));
  }
};

// The CPU's phase two on a master copy: the step size computed once on the host (the element
// kernel above divides again per element, as r1 and r2 could alias w32), in SIMD lanes.
template <int kReq>
struct mp_lamb_phase2_step_kernel {
  static constexpr bool kSimdItems = true;  // item i writes w32[i] and w_out[i] only
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* w_out, const float* g, float* w32, float step) {
    const float w = w32[i] - step * g[i];
    w32[i] = w;
    AssignReq<kReq>(w_out + i, static_cast<DType>(w));
  }
};

template <typename T>
LambDirection<T> LambDirectionOf(const LambUpdatePhaseOneParam& p) {
  const bool correct = p.bias_correction;
  // The corrections in double: beta^t of a float beta loses digits as t grows.
  const double mean_correction = correct ? 1.0 / (1.0 - std::pow(double{p.beta1}, p.t)) : 1.0;
  const double var_correction = correct ? 1.0 / (1.0 - std::pow(double{p.beta2}, p.t)) : 1.0;
  return {T(p.beta1),        T(p.beta2),         T(p.epsilon),       T(p.wd),
          T(p.rescale_grad), T(p.clip_gradient), T(mean_correction), T(var_correction)};
}

template <typename T>
LambTrustStep<T> LambTrustStepOf(const LambUpdatePhaseTwoParam& p) {
  return {T(p.lr), T(p.lower_bound), T(p.upper_bound)};
}

template <typename xpu>
void LambPhaseOneCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = GetParam<LambUpdatePhaseOneParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    LaunchUpdate<lamb_phase1_kernel>(
        ctx.get_stream<xpu>(), req[0], out[0].Size(), out[0].dptr<DType>(), in[0].dptr<DType>(),
        in[1].dptr<DType>(), in[2].dptr<DType>(), in[3].dptr<DType>(), LambDirectionOf<DType>(p));
  });
}

template <typename xpu>
void MPLambPhaseOneCompute(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  const auto& p = GetParam<LambUpdatePhaseOneParam>(attrs);
  MSHADOW_REAL_TYPE_SWITCH(in[1].type_flag_, DType, {
    LaunchUpdate<mp_lamb_phase1_kernel>(
        ctx.get_stream<xpu>(), req[0], out[0].Size(), out[0].dptr<float>(), in[1].dptr<DType>(),
        in[2].dptr<float>(), in[3].dptr<float>(), in[4].dptr<float>(), LambDirectionOf<float>(p));
  });
}

template <typename xpu>
void LambPhaseTwoCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = GetParam<LambUpdatePhaseTwoParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* w_out = out[0].dptr<DType>();
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    if constexpr (std::is_same_v<xpu, cpu>) {
      // The trust ratio once (the element kernel divides again per element, as r1 and r2
      // could alias the output), then packets.
      const DType step = LambTrustStepOf<DType>(p)(*in[2].dptr<DType>(), *in[3].dptr<DType>());
      ForEachElementCpu<DType>(out[0].Size(), req[0], [&](index_t i, auto tag, auto add) {
        using P = vec::PacketOf<decltype(tag)>;
        vec::Store<decltype(add)::value>(
            w_out + i, P::LoadUnAligned(w + i) - P::Fill(step) * P::LoadUnAligned(g + i));
      });
    } else {
      LaunchUpdate<lamb_phase2_kernel>(ctx.get_stream<xpu>(), req[0], out[0].Size(), w_out, w, g,
                                       in[2].dptr<DType>(), in[3].dptr<DType>(),
                                       LambTrustStepOf<DType>(p));
    }
  });
}

template <typename xpu>
void MPLambPhaseTwoCompute(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  const auto& p = GetParam<LambUpdatePhaseTwoParam>(attrs);
  MSHADOW_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    if constexpr (std::is_same_v<xpu, cpu>) {
      const float step = LambTrustStepOf<float>(p)(*in[2].dptr<float>(), *in[3].dptr<float>());
      LaunchUpdate<mp_lamb_phase2_step_kernel>(ctx.get_stream<xpu>(), req[0], out[0].Size(),
                                               out[0].dptr<DType>(), in[1].dptr<float>(),
                                               in[4].dptr<float>(), step);
    } else {
      LaunchUpdate<mp_lamb_phase2_kernel>(
          ctx.get_stream<xpu>(), req[0], out[0].Size(), out[0].dptr<DType>(), in[1].dptr<float>(),
          in[2].dptr<float>(), in[3].dptr<float>(), in[4].dptr<float>(), LambTrustStepOf<float>(p));
    }
  });
}

// Adds FCompute<xpu> to the four LAMB phases.
template <typename xpu>
void SetLambCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("lamb_update_phase1")
      .set_attr<FCompute>(attr_name, FCompute(LambPhaseOneCompute<xpu>));
  RegisterOp("lamb_update_phase2")
      .set_attr<FCompute>(attr_name, FCompute(LambPhaseTwoCompute<xpu>));
  RegisterOp("mp_lamb_update_phase1")
      .set_attr<FCompute>(attr_name, FCompute(MPLambPhaseOneCompute<xpu>));
  RegisterOp("mp_lamb_update_phase2")
      .set_attr<FCompute>(attr_name, FCompute(MPLambPhaseTwoCompute<xpu>));
}

}  // namespace optimizer
}  // namespace ops

#endif  // OPS_LAMB_INL_H_
