// ops/optimizer-inl.h: the optimizer updates sgd_update, sgd_mom_update, nag_mom_update,
// signsgd_update and signum_update, and the multi-precision mp_sgd_update, mp_sgd_mom_update
// and mp_nag_mom_update, written once for every device. optimizer.cc registers them with
// FCompute<cpu>, optimizer.cu adds FCompute<gpu>.
//
// The step is one formula (SGDStep) evaluated on a DType (an element, on any device) or on
// a CPU SIMD packet: the CPU runs it a packet at a time over ranges on the library's threads,
// the GPU an element per CUDA thread through Kernel<OP, gpu>.
#ifndef OPS_OPTIMIZER_INL_H_
#define OPS_OPTIMIZER_INL_H_

#include <algorithm>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace optimizer {

// The fields every optimizer shares (float members wd, rescale_grad, clip_gradient), declared
// inside DMLC_DECLARE_PARAMETER.
#define OPS_DECLARE_GRADIENT_FIELDS()                                                          \
  DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe("Weight decay (L2 penalty).");             \
  DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe(                                 \
      "The gradient is multiplied by this.");                                                  \
  DMLC_DECLARE_FIELD(clip_gradient).set_default(-1.0f).describe(                               \
      "Clip the rescaled gradient to [-clip_gradient, clip_gradient]; negative: no clipping.")

// MXNet's lazy_update (a bool member): it changes row-sparse gradients only, which this
// library does not have; accepted because MXNet's frontends pass it.
#define OPS_DECLARE_LAZY_UPDATE_FIELD()                                                  \
  DMLC_DECLARE_FIELD(lazy_update).set_default(true).describe(                            \
      "Update only the rows a row-sparse gradient holds (dense arrays here: no effect).")

struct SGDParam : public dmlc::Parameter<SGDParam> {
  float lr;
  float wd;
  float rescale_grad;
  float clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(SGDParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    OPS_DECLARE_GRADIENT_FIELDS();
    OPS_DECLARE_LAZY_UPDATE_FIELD();
  }
};

struct SGDMomParam : public dmlc::Parameter<SGDMomParam> {
  float lr;
  float momentum;
  float wd;
  float rescale_grad;
  float clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(SGDMomParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe("Decay of the momentum.");
    OPS_DECLARE_GRADIENT_FIELDS();
    OPS_DECLARE_LAZY_UPDATE_FIELD();
  }
};

// x clipped to [-bound, bound]; x itself when bound is negative (no clipping).
template <typename DType>
MSHADOW_XINLINE DType ClipMagnitude(DType x, DType bound) {
  if (bound < DType(0)) return x;
  return x > bound ? bound : (x < -bound ? -bound : x);
}

// Adam's moments of the gradient g, updated in place: mean = beta1 * mean + (1 - beta1) * g,
// var = beta2 * var + (1 - beta2) * g^2 (Adam, AdamW and LAMB share them).
template <typename T>
MSHADOW_XINLINE void UpdateMoments(T g, T beta1, T beta2, T* mean, T* var) {
  *mean = beta1 * *mean + (T(1) - beta1) * g;
  *var = beta2 * *var + (T(1) - beta2) * g * g;
}

// nag_mom_update's fields (MXNet's NAGMomParam: no lazy_update).
struct NAGMomParam : public dmlc::Parameter<NAGMomParam> {
  float lr;
  float momentum;
  float wd;
  float rescale_grad;
  float clip_gradient;
  DMLC_DECLARE_PARAMETER(NAGMomParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe("Decay of the momentum.");
    OPS_DECLARE_GRADIENT_FIELDS();
  }
};

struct SignSGDParam : public dmlc::Parameter<SignSGDParam> {
  float lr;
  float wd;
  float rescale_grad;
  float clip_gradient;
  DMLC_DECLARE_PARAMETER(SignSGDParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    OPS_DECLARE_GRADIENT_FIELDS();  // rescale_grad and clip_gradient cannot change a sign
  }
};

struct SignumParam : public dmlc::Parameter<SignumParam> {
  float lr;
  float momentum;
  float wd;
  float rescale_grad;
  float clip_gradient;
  float wd_lh;
  DMLC_DECLARE_PARAMETER(SignumParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe("Decay of the momentum.");
    OPS_DECLARE_GRADIENT_FIELDS();
    DMLC_DECLARE_FIELD(wd_lh).set_default(0.0f).describe(
        "Decoupled weight decay: the weight is scaled by 1 - lr * wd_lh.");
  }
};

template <typename DType>
MSHADOW_XINLINE DType SignOf(DType x) {
  return x > DType(0) ? DType(1) : (x < DType(0) ? DType(-1) : DType(0));
}

// weight_out = (1 - lr * wd) * weight - lr * sign(grad).
template <int kReq>
struct signsgd_kernel {
  static constexpr bool kSimdItems = true;  // item i writes w_out[i] only
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* w_out, const DType* w, const DType* grad,
                                  DType lr, DType wd) {
    AssignReq<kReq>(w_out + i, (DType(1) - lr * wd) * w[i] - lr * SignOf(grad[i]));
  }
};

// mom = momentum * mom - (1 - momentum) * (wd * weight + clip(rescale_grad * grad)), in place;
// weight_out = (1 - lr * wd_lh) * weight + lr * sign(mom).
template <int kReq>
struct signum_kernel {
  static constexpr bool kSimdItems = true;  // item i writes mom[i] and w_out[i] only
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* w_out, const DType* w, const DType* grad,
                                  DType* mom, DType lr, DType momentum, DType wd, DType rescale,
                                  DType clip, DType wd_lh) {
    const DType wi = w[i];
    const DType m = momentum * mom[i] -
                    (DType(1) - momentum) * (wd * wi + ClipMagnitude(rescale * grad[i], clip));
    mom[i] = m;
    AssignReq<kReq>(w_out + i, (DType(1) - lr * wd_lh) * wi + lr * SignOf(m));
  }
};

// x as a V: itself for an element, a packet of copies for a packet.
template <typename V, typename DType>
MSHADOW_XINLINE V Splat(DType x) {
  if constexpr (std::is_same_v<V, DType>) {
    return x;
  } else {
    return V::Fill(x);
  }
}

// ClipMagnitude for an element or a packet (V).
template <typename V, typename DType>
MSHADOW_XINLINE V ClipMagnitudeOf(V x, DType bound) {
  if constexpr (std::is_same_v<V, DType>) {
    return ClipMagnitude(x, bound);
  } else {
    if (bound < DType(0)) return x;
    return mshadow::packet::Max(mshadow::packet::Min(x, V::Fill(bound)), V::Fill(-bound));
  }
}

// The square root of an element or a packet (V).
template <typename V>
MSHADOW_XINLINE V SqrtOf(V x) {
  if constexpr (std::is_arithmetic_v<V>) {
    return std::sqrt(x);
  } else {
    return mshadow::packet::Sqrt(x);
  }
}

// lr * (clip(rescale_grad * grad) + wd * weight).
template <typename DType>
struct SGDStep {
  DType lr, rescale, clip, wd;
  template <typename V>
  MSHADOW_XINLINE V operator()(const V& grad, const V& weight) const {
    const V g = ClipMagnitudeOf(Splat<V>(rescale) * grad, clip);
    return Splat<V>(lr) * (g + Splat<V>(wd) * weight);
  }
};

// weight_out[i] = weight[i] - step (weight_out may be weight).
template <int kReq>
struct sgd_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* w_out, const DType* w, const DType* g,
                                  SGDStep<DType> step) {
    const DType wi = w[i];
    AssignReq<kReq>(w_out + i, wi - step(g[i], wi));
  }
};

// The momentum rules on one element in the type M the state is kept in: *mom updated, the
// new weight returned. step = lr * (clip(rescale_grad * grad) + wd * weight).
// SGD: mom = momentum * mom - step; weight + mom.
struct SGDMomRule {
  template <typename M>
  MSHADOW_XINLINE static M Apply(M weight, M grad, M* mom, M momentum, const SGDStep<M>& step) {
    const M m = momentum * *mom - step(grad, weight);
    *mom = m;
    return weight + m;
  }
};
// Nesterov: mom = momentum * mom - step; weight + momentum * mom - step (MXNet 1.9.1).
struct NAGMomRule {
  template <typename M>
  MSHADOW_XINLINE static M Apply(M weight, M grad, M* mom, M momentum, const SGDStep<M>& step) {
    const M s = step(grad, weight);
    const M m = momentum * *mom - s;
    *mom = m;
    return weight + momentum * m - s;
  }
};

// weight_out[i] = Rule's new weight; mom updated in place.
template <typename Rule, int kReq>
struct mom_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* w_out, const DType* w, const DType* g,
                                  DType* mom, DType momentum, SGDStep<DType> step) {
    AssignReq<kReq>(w_out + i, Rule::Apply(w[i], g[i], mom + i, momentum, step));
  }
};
template <int kReq>
using sgd_mom_kernel = mom_kernel<SGDMomRule, kReq>;
template <int kReq>
using nag_mom_kernel = mom_kernel<NAGMomRule, kReq>;

// Multi-precision: the float32 master weight w32 (and momentum) carry the state; the weight
// (float16 usually) receives w32 rounded to its type. The weight input itself is not read.
template <int kReq>
struct mp_sgd_kernel {
  static constexpr bool kSimdItems = true;  // item i writes w32[i] and w_out[i] only
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* w_out, const DType* g, float* w32,
                                  SGDStep<float> step) {
    const float w = w32[i] - step(static_cast<float>(g[i]), w32[i]);
    w32[i] = w;
    AssignReq<kReq>(w_out + i, static_cast<DType>(w));
  }
};
template <typename Rule, int kReq>
struct mp_mom_kernel {
  static constexpr bool kSimdItems = true;  // item i writes mom[i], w32[i] and w_out[i] only
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* w_out, const DType* g, float* mom,
                                  float* w32, float momentum, SGDStep<float> step) {
    const float w = Rule::Apply(w32[i], static_cast<float>(g[i]), mom + i, momentum, step);
    w32[i] = w;
    AssignReq<kReq>(w_out + i, static_cast<DType>(w));
  }
};
template <int kReq>
using mp_sgd_mom_kernel = mp_mom_kernel<SGDMomRule, kReq>;
template <int kReq>
using mp_nag_mom_kernel = mp_mom_kernel<NAGMomRule, kReq>;

// The CPU's loop: fn(i, tag, add) over the n elements, a packet at a time, ranges of it on
// the engine's threads; add is the weight output's write mode (kAddTo or not).
template <typename DType, typename Fn>
void ForEachElementCpu(index_t n, OpReqType req, Fn&& fn) {
  vec::WithReq(req, [&](auto add) {
    ParallelRows(n, 1, [&](index_t begin, index_t end) {
      vec::ForEach<DType>(end - begin, [&](index_t k, auto tag) { fn(begin + k, tag, add); });
    });
  });
}

// The inputs in `arrays` and output `output` share one shape, the first known (inputs first)
// giving it; `scalars` (rescale_grad, a norm) hold one element each. False while no array's
// shape is known.
inline bool AssignUpdateShapes(std::vector<TShape>* in, std::vector<TShape>* out,
                               const std::vector<int>& arrays, int output,
                               const std::vector<int>& scalars = {}) {
  for (const int i : scalars) AssignInputShape(in, i, TShape{1});
  TShape known;
  for (const int i : arrays) {
    if (!ShapeIsKnown(known)) known = (*in)[i];
  }
  if (!ShapeIsKnown(known)) known = (*out)[output];
  if (!ShapeIsKnown(known)) return false;
  for (const int i : arrays) AssignInputShape(in, i, known);
  AssignOutputShape(out, output, known);
  return true;
}

// Multi-precision updates: the inputs in `weight_inputs` (and, when output_is_weight, the
// outputs) share the weight's type, float16, float32 or float64; every other input (momentum,
// moments, master weight, learning rates) and output is float32.
inline bool AssignMixedPrecisionTypes(std::vector<int>* in, std::vector<int>* out,
                                      const std::vector<int>& weight_inputs,
                                      bool output_is_weight) {
  auto is_weight_input = [&](int i) {
    return std::find(weight_inputs.begin(), weight_inputs.end(), i) != weight_inputs.end();
  };
  int weight = -1;
  for (const int i : weight_inputs) {
    if (weight == -1) weight = (*in)[i];
  }
  for (const int t : *out) {
    if (weight == -1 && output_is_weight) weight = t;
  }
  for (int i = 0; i < static_cast<int>(in->size()); ++i) {
    if (!is_weight_input(i)) AssignInputType(in, i, mshadow::kFloat32);
  }
  for (int i = 0; i < static_cast<int>(out->size()); ++i) {
    if (!output_is_weight) AssignOutputType(out, i, mshadow::kFloat32);
  }
  if (weight == -1) return false;
  if (weight != mshadow::kFloat16 && weight != mshadow::kFloat32 && weight != mshadow::kFloat64) {
    throw dmlc::Error("weight type " + mshadow::TypeFlagName(weight) +
                      " is not supported; valid: float16, float32, float64");
  }
  for (const int i : weight_inputs) AssignInputType(in, i, weight);
  for (int i = 0; i < static_cast<int>(out->size()); ++i) {
    if (output_is_weight) AssignOutputType(out, i, weight);
  }
  return true;
}

// The multi-precision SGD and AdamW updates: weight, grad and the new weight in the weight's
// type, the states after them float32.
inline bool MPUpdateType(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
  return AssignMixedPrecisionTypes(in, out, {0, 1}, true);
}

// Launches KernelOf<the weight output's request>; a kernel that updates state inputs runs
// even when the weight is not written (kNullOp).
template <template <int> class KernelOf, typename xpu, typename... Args>
void LaunchUpdate(mshadow::Stream<xpu>* s, OpReqType req, index_t n, Args... args) {
  if (req == kNullOp) {
    Kernel<KernelOf<kNullOp>, xpu>::Launch(s, n, args...);
    return;
  }
  OPS_REQ_SWITCH(req, Req, { Kernel<KernelOf<Req>, xpu>::Launch(s, n, args...); });
}

// Inputs: weight, grad. weight_out = weight - step.
template <typename xpu>
void SGDUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SGDParam& p = GetParam<SGDParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* w_out = out[0].dptr<DType>();
    const SGDStep<DType> step{p.lr, p.rescale_grad, p.clip_gradient, p.wd};
    const index_t n = out[0].Size();
    if constexpr (std::is_same_v<xpu, cpu>) {
      ForEachElementCpu<DType>(n, req[0], [&](index_t i, auto tag, auto add) {
        using P = vec::PacketOf<decltype(tag)>;
        const P wi = P::LoadUnAligned(w + i);
        vec::Store<decltype(add)::value>(w_out + i, wi - step(P::LoadUnAligned(g + i), wi));
      });
    } else {
      OPS_REQ_SWITCH(req[0], Req, {
        Kernel<sgd_kernel<Req>, xpu>::Launch(s, n, w_out, w, g, step);
      });
    }
  });
}

// Inputs: weight, grad, mom. mom = momentum * mom - step (in place); weight_out = weight + mom.
// The momentum is updated even when the weight's output is kNullOp.
template <typename xpu>
void SGDMomUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx,
                         const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                         const std::vector<TBlob>& out) {
  const SGDMomParam& p = GetParam<SGDMomParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* mom = in[2].dptr<DType>();
    DType* w_out = out[0].dptr<DType>();
    const SGDStep<DType> step{p.lr, p.rescale_grad, p.clip_gradient, p.wd};
    const DType momentum = p.momentum;
    const index_t n = out[0].Size();
    const bool write_weight = req[0] != kNullOp;
    if constexpr (std::is_same_v<xpu, cpu>) {
      ForEachElementCpu<DType>(n, write_weight ? req[0] : kWriteTo,
                               [&](index_t i, auto tag, auto add) {
                                 using P = vec::PacketOf<decltype(tag)>;
                                 const P wi = P::LoadUnAligned(w + i);
                                 const P m = P::Fill(momentum) * P::LoadUnAligned(mom + i) -
                                             step(P::LoadUnAligned(g + i), wi);
                                 m.StoreUnAligned(mom + i);
                                 if (write_weight) {
                                   vec::Store<decltype(add)::value>(w_out + i, wi + m);
                                 }
                               });
    } else {
      LaunchUpdate<sgd_mom_kernel>(s, req[0], n, w_out, w, g, mom, momentum, step);
    }
  });
}

// Inputs: weight, grad, mom. Nesterov momentum (NAGMomRule).
template <typename xpu>
void NAGMomUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx,
                         const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                         const std::vector<TBlob>& out) {
  const NAGMomParam& p = GetParam<NAGMomParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    LaunchUpdate<nag_mom_kernel>(ctx.get_stream<xpu>(), req[0], out[0].Size(),
                                 out[0].dptr<DType>(), in[0].dptr<DType>(), in[1].dptr<DType>(),
                                 in[2].dptr<DType>(), DType(p.momentum),
                                 SGDStep<DType>{p.lr, p.rescale_grad, p.clip_gradient, p.wd});
  });
}

// Inputs: weight, grad (float16, float32 or float64), weight32 (float32, updated in place).
template <typename xpu>
void MPSGDUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx,
                        const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                        const std::vector<TBlob>& out) {
  const SGDParam& p = GetParam<SGDParam>(attrs);
  MSHADOW_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    LaunchUpdate<mp_sgd_kernel>(ctx.get_stream<xpu>(), req[0], out[0].Size(),
                                out[0].dptr<DType>(), in[1].dptr<DType>(), in[2].dptr<float>(),
                                SGDStep<float>{p.lr, p.rescale_grad, p.clip_gradient, p.wd});
  });
}

// Inputs: weight, grad (float16, float32 or float64), mom and weight32 (float32, updated in
// place). Param: SGDMomParam or NAGMomParam, as the kernel's rule.
template <typename xpu, template <int> class KernelOf, typename Param>
void MPMomUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx,
                        const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                        const std::vector<TBlob>& out) {
  const Param& p = GetParam<Param>(attrs);
  MSHADOW_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    LaunchUpdate<KernelOf>(ctx.get_stream<xpu>(), req[0], out[0].Size(), out[0].dptr<DType>(),
                           in[1].dptr<DType>(), in[2].dptr<float>(), in[3].dptr<float>(),
                           p.momentum,
                           SGDStep<float>{p.lr, p.rescale_grad, p.clip_gradient, p.wd});
  });
}

// Inputs: weight, grad.
template <typename xpu>
void SignSGDUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  const SignSGDParam& p = GetParam<SignSGDParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<signsgd_kernel<Req>, xpu>::Launch(ctx.get_stream<xpu>(), out[0].Size(),
                                               out[0].dptr<DType>(), in[0].dptr<DType>(),
                                               in[1].dptr<DType>(), DType(p.lr), DType(p.wd));
    });
  });
}

// Inputs: weight, grad, mom (updated in place, even when the weight is not written).
template <typename xpu>
void SignumUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx,
                         const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                         const std::vector<TBlob>& out) {
  const SignumParam& p = GetParam<SignumParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    LaunchUpdate<signum_kernel>(ctx.get_stream<xpu>(), req[0], out[0].Size(),
                                out[0].dptr<DType>(), in[0].dptr<DType>(), in[1].dptr<DType>(),
                                in[2].dptr<DType>(), DType(p.lr), DType(p.momentum), DType(p.wd),
                                DType(p.rescale_grad), DType(p.clip_gradient), DType(p.wd_lh));
  });
}

// Adds FCompute<xpu> to every update of this file.
template <typename xpu>
void SetOptimizerCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("signsgd_update").set_attr<FCompute>(attr_name, FCompute(SignSGDUpdateCompute<xpu>));
  RegisterOp("signum_update").set_attr<FCompute>(attr_name, FCompute(SignumUpdateCompute<xpu>));
  RegisterOp("sgd_update").set_attr<FCompute>(attr_name, FCompute(SGDUpdateCompute<xpu>));
  RegisterOp("sgd_mom_update").set_attr<FCompute>(attr_name, FCompute(SGDMomUpdateCompute<xpu>));
  RegisterOp("nag_mom_update").set_attr<FCompute>(attr_name, FCompute(NAGMomUpdateCompute<xpu>));
  RegisterOp("mp_sgd_update").set_attr<FCompute>(attr_name, FCompute(MPSGDUpdateCompute<xpu>));
  RegisterOp("mp_sgd_mom_update")
      .set_attr<FCompute>(attr_name,
                          FCompute(MPMomUpdateCompute<xpu, mp_sgd_mom_kernel, SGDMomParam>));
  RegisterOp("mp_nag_mom_update")
      .set_attr<FCompute>(attr_name,
                          FCompute(MPMomUpdateCompute<xpu, mp_nag_mom_kernel, NAGMomParam>));
}

}  // namespace optimizer
}  // namespace ops

#endif  // OPS_OPTIMIZER_INL_H_
