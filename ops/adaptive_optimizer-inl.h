// ops/adaptive_optimizer-inl.h: the optimizer updates with per-element step sizes, as MXNet
// 1.9.1 defines them: adam_update, rmsprop_update and rmspropalex_update (RMSProp as Alex
// Graves wrote it, with a momentum), AdamW (_adamw_update, _mp_adamw_update: the weight
// decay outside the moments), ftml_update (Follow the Moving Leader) and ftrl_update (Follow
// the Regularized Leader, with an L1 term), written once for every device. adaptive_optimizer.cc
// registers them with FCompute<cpu>, adaptive_optimizer.cu adds FCompute<gpu>.
//
// Each is one kernel over the elements: it updates its state inputs in place (always, as
// MXNet's do) and writes the new weight to its output as the request says.
#ifndef OPS_ADAPTIVE_OPTIMIZER_INL_H_
#define OPS_ADAPTIVE_OPTIMIZER_INL_H_

#include <cmath>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/index_type.h"
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

// AdamW's: rescale_grad is an input (a one-element array), not a parameter.
struct AdamWParam : public dmlc::Parameter<AdamWParam> {
  float lr;
  float beta1;
  float beta2;
  float epsilon;
  float wd;
  float eta;
  float clip_gradient;
  DMLC_DECLARE_PARAMETER(AdamWParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate (alpha): scales the moment step only.");
    DMLC_DECLARE_FIELD(beta1).set_default(0.9f).describe("Decay of the first moment (mean).");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe("Decay of the second moment (var).");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe("Added to sqrt(var) for stability.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe(
        "Decoupled weight decay: wd * weight joins the step, not the gradient.");
    DMLC_DECLARE_FIELD(eta).describe("Learning rate schedule multiplier of the whole step.");
    DMLC_DECLARE_FIELD(clip_gradient)
        .set_default(-1.0f)
        .describe(
            "Clip the rescaled gradient to [-clip_gradient, clip_gradient]; negative: no "
            "clipping (0 clips it to zero, as MXNet's kernel does).");
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

struct FTMLParam : public dmlc::Parameter<FTMLParam> {
  float lr;
  float beta1;
  float beta2;
  double epsilon;
  int t;
  float wd;
  float rescale_grad;
  float clip_grad;
  DMLC_DECLARE_PARAMETER(FTMLParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(beta1).set_default(0.6f).describe("Decay of the moving leader (z).");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe("Decay of the second moment (v).");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8).describe("Added to sqrt(v) for stability.");
    DMLC_DECLARE_FIELD(t).set_lower_bound(1).describe(
        "The update's number, from 1 (0 would divide by 1 - beta1^0 = 0).");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe("Weight decay (L2 penalty).");
    DMLC_DECLARE_FIELD(rescale_grad)
        .set_default(1.0f)
        .describe("The gradient is multiplied by this.");
    DMLC_DECLARE_FIELD(clip_grad).set_default(-1.0f).describe(
        "Clip rescale_grad * grad + wd * weight to [-clip_grad, clip_grad]; negative: no "
        "clipping.");
  }
};

struct FtrlParam : public dmlc::Parameter<FtrlParam> {
  float lr;
  float lamda1;
  float beta;
  float wd;
  float rescale_grad;
  float clip_gradient;
  DMLC_DECLARE_PARAMETER(FtrlParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(lamda1).set_default(0.01f).set_lower_bound(0.0f).describe(
        "The L1 regularization strength: weights whose |z| is at most this are 0.");
    DMLC_DECLARE_FIELD(beta).set_default(1.0f).describe("Per-coordinate learning rate beta.");
    OPS_DECLARE_GRADIENT_FIELDS();
  }
};

// g = clip(rescale_grad * grad + wd * weight), the gradient Adam and RMSProp step with (MXNet
// adds the weight decay before clipping here, unlike in sgd_update).
template <typename DType>
struct DecayedGradient {
  DType rescale, wd, clip;
  template <typename V>  // an element or a packet
  MSHADOW_XINLINE V operator()(V grad, V weight) const {
    return ClipMagnitudeOf(Splat<V>(rescale) * grad + Splat<V>(wd) * weight, clip);
  }
};

// The state arrays of an update (kStates of them, each of the weight's length), passed to
// kernels by value.
template <typename DType, int kStates>
struct StateArrays {
  DType* array[kStates];
};

// Inputs first, first + 1, ... of an update as its kStates state arrays.
template <typename DType, int kStates>
StateArrays<DType, kStates> StatesFrom(const std::vector<TBlob>& in, size_t first = 2) {
  StateArrays<DType, kStates> states;
  for (int k = 0; k < kStates; ++k) states.array[k] = in[first + k].dptr<DType>();
  return states;
}

// weight_out[i] = step(weight[i], grad[i], state), the state elements read and written back.
template <int kReq>
struct step_update_kernel {
  template <typename DType, int kStates, typename Step>
  MSHADOW_XINLINE static void Map(index_t i, DType* w_out, const DType* w, const DType* grad,
                                  StateArrays<DType, kStates> states, Step step) {
    DType state[kStates];
    for (int k = 0; k < kStates; ++k) state[k] = states.array[k][i];
    const DType weight = step(w[i], grad[i], state);
    for (int k = 0; k < kStates; ++k) states.array[k][i] = state[k];
    AssignReq<kReq>(w_out + i, weight);
  }
};

// weight_out = step(weight, grad, states) as req says, the states updated in place even when
// the weight's output is kNullOp (as MXNet's are). One Step, written for an element or a
// packet (V), serves both devices: the CPU runs it a packet at a time on the engine's threads
// (an element at a time, the square root and division had run at 0.8 of MXNet's speed), the
// GPU an element per thread.
template <typename xpu, typename DType, int kStates, typename Step>
void LaunchStepUpdate(mshadow::Stream<xpu>* s, OpReqType req, index_t n, DType* w_out,
                      const DType* w, const DType* grad, StateArrays<DType, kStates> states,
                      const Step& step) {
  if constexpr (std::is_same_v<xpu, cpu>) {
    const bool write_weight = req != kNullOp;
    ForEachElementCpu<DType>(n, write_weight ? req : kWriteTo, [&](index_t i, auto tag, auto add) {
      using P = vec::PacketOf<decltype(tag)>;
      P state[kStates];
      for (int k = 0; k < kStates; ++k) state[k] = P::LoadUnAligned(states.array[k] + i);
      const P weight = step(P::LoadUnAligned(w + i), P::LoadUnAligned(grad + i), state);
      for (int k = 0; k < kStates; ++k) state[k].StoreUnAligned(states.array[k] + i);
      if (write_weight) vec::Store<decltype(add)::value>(w_out + i, weight);
    });
  } else {
    LaunchUpdate<step_update_kernel>(s, req, n, w_out, w, grad, states, step);
  }
}

// Adam's step on an element or a packet (V), state = (mean, var): both moments updated;
// returns weight - lr * mean / (sqrt(var) + epsilon).
template <typename DType>
struct AdamStep {
  DType lr, beta1, beta2, epsilon;
  DecayedGradient<DType> decayed;
  template <typename V>
  MSHADOW_XINLINE V operator()(V weight, V grad, V* state) const {
    const V g = decayed(grad, weight);
    state[0] = Splat<V>(beta1) * state[0] + Splat<V>(DType(1) - beta1) * g;
    state[1] = Splat<V>(beta2) * state[1] + Splat<V>(DType(1) - beta2) * g * g;
    return weight - Splat<V>(lr) * state[0] / (SqrtOf(state[1]) + Splat<V>(epsilon));
  }
};

// AdamW's step on one element (T: the weight's type, or float on a master copy): the moments
// updated in place; returns the new weight, w - eta * (lr * mean / (sqrt(var) + epsilon) + wd
// * w).
template <typename T>
struct AdamWStep {
  T lr, beta1, beta2, epsilon, wd, eta, rescale, clip;
  MSHADOW_XINLINE T operator()(T w, T grad, T* mean, T* var) const {
    UpdateMoments(ClipMagnitude(rescale * grad, clip), beta1, beta2, mean, var);
    return w - eta * (lr * *mean / (std::sqrt(*var) + epsilon) + wd * w);
  }
};

// Inputs weight, grad, mean, var (the last two updated in place).
template <int kReq>
struct adamw_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* w_out, const DType* w, const DType* grad,
                                  DType* mean, DType* var, AdamWStep<DType> step) {
    AssignReq<kReq>(w_out + i, step(w[i], grad[i], mean + i, var + i));
  }
};

// Inputs weight (not read), grad, and float32 mean, var and master weight w32 (all three
// updated in place); the weight output is w32 rounded to its type.
template <int kReq>
struct mp_adamw_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* w_out, const DType* grad, float* mean,
                                  float* var, float* w32, AdamWStep<float> step) {
    const float w = step(w32[i], static_cast<float>(grad[i]), mean + i, var + i);
    w32[i] = w;
    AssignReq<kReq>(w_out + i, static_cast<DType>(w));
  }
};

// RMSProp's step on an element or a packet (V), state = (n): the average of squares n =
// gamma1 * n + (1 - gamma1) * g^2 updated; returns clip_weights(weight - lr * g / sqrt(n +
// epsilon)).
template <typename DType>
struct RMSPropStep {
  DType lr, gamma1, epsilon, clip_weights;
  DecayedGradient<DType> decayed;
  template <typename V>
  MSHADOW_XINLINE V operator()(V weight, V grad, V* state) const {
    const V g = decayed(grad, weight);
    state[0] = Splat<V>(gamma1) * state[0] + Splat<V>(DType(1) - gamma1) * g * g;
    return ClipMagnitudeOf(weight - Splat<V>(lr) * g / SqrtOf(state[0] + Splat<V>(epsilon)),
                           clip_weights);
  }
};

// RMSProp as Alex Graves has it, on an element or a packet (V), state = (n, g_avg, delta):
//   n = gamma1 n + (1 - gamma1) g^2,  g_avg = gamma1 g_avg + (1 - gamma1) g,
//   delta = gamma2 delta - lr g / sqrt(n - g_avg^2 + epsilon);
// returns clip_weights(weight + delta).
template <typename DType>
struct RMSPropAlexStep {
  DType lr, gamma1, gamma2, epsilon, clip_weights;
  DecayedGradient<DType> decayed;
  template <typename V>
  MSHADOW_XINLINE V operator()(V weight, V grad, V* state) const {
    const V g = decayed(grad, weight);
    state[0] = Splat<V>(gamma1) * state[0] + Splat<V>(DType(1) - gamma1) * g * g;
    state[1] = Splat<V>(gamma1) * state[1] + Splat<V>(DType(1) - gamma1) * g;
    state[2] = Splat<V>(gamma2) * state[2] -
               Splat<V>(lr) * g / SqrtOf(state[0] - state[1] * state[1] + Splat<V>(epsilon));
    return ClipMagnitudeOf(weight + state[2], clip_weights);
  }
};

// FTML's step on an element or a packet (V), state = (d, v, z), t the update's number:
//   v = beta2 v + (1 - beta2) g^2,  d_t = (1 - beta1^t) / lr * (sqrt(v / (1 - beta2^t)) + eps),
//   z = beta1 z + (1 - beta1) g - (d_t - beta1 d) weight,  d = d_t;
// returns -z / d_t. (MXNet's documentation writes 1 - beta1^t for z's gradient term; its
// kernel, which this follows, 1 - beta1.)
template <typename DType>
struct FTMLStep {
  DType beta1, beta2, epsilon;
  DType bias1_over_lr;  // (1 - beta1^t) / lr
  DType bias2;          // 1 - beta2^t
  DecayedGradient<DType> decayed;
  template <typename V>
  MSHADOW_XINLINE V operator()(V weight, V grad, V* state) const {
    const V g = decayed(grad, weight);
    state[1] = Splat<V>(beta2) * state[1] + Splat<V>(DType(1) - beta2) * g * g;
    const V d_t =
        Splat<V>(bias1_over_lr) * (SqrtOf(state[1] / Splat<V>(bias2)) + Splat<V>(epsilon));
    state[2] = Splat<V>(beta1) * state[2] + Splat<V>(DType(1) - beta1) * g -
               (d_t - Splat<V>(beta1) * state[0]) * weight;
    state[0] = d_t;
    return Splat<V>(DType(0)) - state[2] / d_t;
  }
};

// FTRL's step on an element or a packet (V), state = (z, n), g = clip(rescale_grad * grad):
//   z += g - (sqrt(n + g^2) - sqrt(n)) * weight / lr,  n += g^2;
// returns (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) where |z| > lamda1, else 0:
// the numerator is clip(z, lamda1) - z, which is both (lamda1 >= 0).
template <typename DType>
struct FtrlStep {
  DType lr, lamda1, beta, wd, rescale, clip;
  template <typename V>
  MSHADOW_XINLINE V operator()(V weight, V grad, V* state) const {
    const V g = ClipMagnitudeOf(Splat<V>(rescale) * grad, clip);
    const V n = state[1] + g * g;
    state[0] = state[0] + g - (SqrtOf(n) - SqrtOf(state[1])) * weight / Splat<V>(lr);
    state[1] = n;
    return (ClipMagnitudeOf(state[0], lamda1) - state[0]) /
           ((Splat<V>(beta) + SqrtOf(n)) / Splat<V>(lr) + Splat<V>(wd));
  }
};

// An update on inputs (weight, grad, kStates state arrays) in float32 or float64 by the step
// make_step(DType()) returns for the output's type.
template <typename xpu, int kStates, typename MakeStep>
void StepUpdateCompute(const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out,
                       const MakeStep& make_step) {
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    LaunchStepUpdate(ctx.get_stream<xpu>(), req[0], out[0].Size(), out[0].dptr<DType>(),
                     in[0].dptr<DType>(), in[1].dptr<DType>(), StatesFrom<DType, kStates>(in),
                     make_step(DType()));
  });
}

template <typename xpu>
void AdamUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const AdamParam& p = GetParam<AdamParam>(attrs);
  StepUpdateCompute<xpu, 2>(ctx, in, req, out, [&](auto type) {
    using DType = decltype(type);
    return AdamStep<DType>{DType(p.lr), DType(p.beta1), DType(p.beta2), DType(p.epsilon),
                           DecayedGradient<DType>{p.rescale_grad, p.wd, p.clip_gradient}};
  });
}

template <typename xpu>
void RMSPropUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  const RMSPropParam& p = GetParam<RMSPropParam>(attrs);
  StepUpdateCompute<xpu, 1>(ctx, in, req, out, [&](auto type) {
    using DType = decltype(type);
    return RMSPropStep<DType>{DType(p.lr), DType(p.gamma1), DType(p.epsilon), DType(p.clip_weights),
                              DecayedGradient<DType>{p.rescale_grad, p.wd, p.clip_gradient}};
  });
}

template <typename xpu>
void RMSPropAlexUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const RMSPropAlexParam& p = GetParam<RMSPropAlexParam>(attrs);
  StepUpdateCompute<xpu, 3>(ctx, in, req, out, [&](auto type) {
    using DType = decltype(type);
    return RMSPropAlexStep<DType>{
        DType(p.lr),           DType(p.gamma1),
        DType(p.gamma2),       DType(p.epsilon),
        DType(p.clip_weights), DecayedGradient<DType>{p.rescale_grad, p.wd, p.clip_gradient}};
  });
}

template <typename xpu>
void FTMLUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const FTMLParam& p = GetParam<FTMLParam>(attrs);
  const double bias1 = 1.0 - std::pow(static_cast<double>(p.beta1), p.t);
  const double bias2 = 1.0 - std::pow(static_cast<double>(p.beta2), p.t);
  StepUpdateCompute<xpu, 3>(ctx, in, req, out, [&](auto type) {
    using DType = decltype(type);
    return FTMLStep<DType>{
        DType(p.beta1),   DType(p.beta2),
        DType(p.epsilon), DType(bias1 / p.lr),
        DType(bias2),     DecayedGradient<DType>{p.rescale_grad, p.wd, p.clip_grad}};
  });
}

template <typename xpu>
void FtrlUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const FtrlParam& p = GetParam<FtrlParam>(attrs);
  StepUpdateCompute<xpu, 2>(ctx, in, req, out, [&](auto type) {
    using DType = decltype(type);
    return FtrlStep<DType>{DType(p.lr), DType(p.lamda1),       DType(p.beta),
                           DType(p.wd), DType(p.rescale_grad), DType(p.clip_gradient)};
  });
}

// AdamW's rescale_grad input (its one element, read on the host), or nothing when it is NaN,
// infinite or 0: MXNet then skips the update, leaving the output and the states as they are.
template <typename xpu, typename T>
bool AdamWRescale(const TBlob& rescale_grad, mshadow::Stream<xpu>* s, T* rescale) {
  *rescale = IndicesOnHost<xpu, T>(rescale_grad, s)[0];
  return std::isfinite(static_cast<double>(*rescale)) && *rescale != T(0);
}

template <typename T>
AdamWStep<T> AdamWStepOf(const AdamWParam& p, T rescale) {
  return {T(p.lr), T(p.beta1), T(p.beta2), T(p.epsilon),
          T(p.wd), T(p.eta),   rescale,    T(p.clip_gradient)};
}

// Inputs: weight, grad, mean, var, rescale_grad (one element).
template <typename xpu>
void AdamWUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const AdamWParam& p = GetParam<AdamWParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType rescale;
    if (!AdamWRescale(in[4], s, &rescale)) return;
    LaunchUpdate<adamw_kernel>(s, req[0], out[0].Size(), out[0].dptr<DType>(), in[0].dptr<DType>(),
                               in[1].dptr<DType>(), in[2].dptr<DType>(), in[3].dptr<DType>(),
                               AdamWStepOf(p, rescale));
  });
}

// Inputs: weight, grad (float16, float32 or float64), mean, var, weight32, rescale_grad
// (float32).
template <typename xpu>
void MPAdamWUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  const AdamWParam& p = GetParam<AdamWParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  float rescale;
  if (!AdamWRescale(in[5], s, &rescale)) return;
  MSHADOW_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    LaunchUpdate<mp_adamw_kernel>(s, req[0], out[0].Size(), out[0].dptr<DType>(),
                                  in[1].dptr<DType>(), in[2].dptr<float>(), in[3].dptr<float>(),
                                  in[4].dptr<float>(), AdamWStepOf(p, rescale));
  });
}

// Adds FCompute<xpu> to adam_update, rmsprop_update, rmspropalex_update, _adamw_update,
// _mp_adamw_update, ftml_update and ftrl_update.
template <typename xpu>
void SetAdaptiveOptimizerCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("adam_update").set_attr<FCompute>(attr_name, FCompute(AdamUpdateCompute<xpu>));
  RegisterOp("rmsprop_update").set_attr<FCompute>(attr_name, FCompute(RMSPropUpdateCompute<xpu>));
  RegisterOp("rmspropalex_update")
      .set_attr<FCompute>(attr_name, FCompute(RMSPropAlexUpdateCompute<xpu>));
  RegisterOp("_adamw_update").set_attr<FCompute>(attr_name, FCompute(AdamWUpdateCompute<xpu>));
  RegisterOp("_mp_adamw_update").set_attr<FCompute>(attr_name, FCompute(MPAdamWUpdateCompute<xpu>));
  RegisterOp("ftml_update").set_attr<FCompute>(attr_name, FCompute(FTMLUpdateCompute<xpu>));
  RegisterOp("ftrl_update").set_attr<FCompute>(attr_name, FCompute(FtrlUpdateCompute<xpu>));
}

}  // namespace optimizer
}  // namespace ops

#endif  // OPS_ADAPTIVE_OPTIMIZER_INL_H_
