// ops/multi_sgd-inl.h: MXNet 1.9.1's batched SGD updates, one call for num_weights weights
// (each with its own shape, learning rate and weight decay), written once for every device:
// multi_sgd_update, multi_sgd_mom_update, their multi-precision forms multi_mp_sgd_update and
// multi_mp_sgd_mom_update, and the preloaded_ forms of all four, which take the learning
// rates and weight decays as two float32 input arrays (read on the host) instead of
// parameters. Each weight gets exactly sgd_update's (sgd_mom_update's, mp_...'s) step: its
// kernels are optimizer-inl.h's. multi_sgd.cc registers the CPU, multi_sgd.cu the GPU.
#ifndef OPS_MULTI_SGD_INL_H_
#define OPS_MULTI_SGD_INL_H_

#include <sstream>
#include <string>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/float_tuple.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/optimizer-inl.h"

namespace ops {
namespace optimizer {

// The fields every form has.
#define OPS_DECLARE_MULTI_SGD_FIELDS()                                                  \
  DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("The gradients' scale."); \
  DMLC_DECLARE_FIELD(clip_gradient)                                                     \
      .set_default(-1.0f)                                                               \
      .describe(                                                                        \
          "Clip each rescaled gradient to [-clip_gradient, clip_gradient]; negative: "  \
          "no clipping.");                                                              \
  DMLC_DECLARE_FIELD(num_weights)                                                       \
      .set_default(1)                                                                   \
      .set_lower_bound(1)                                                               \
      .describe("How many weights the call updates.")

struct MultiSGDParam : public dmlc::Parameter<MultiSGDParam> {
  FloatTuple lrs;
  FloatTuple wds;
  float rescale_grad;
  float clip_gradient;
  int num_weights;
  DMLC_DECLARE_PARAMETER(MultiSGDParam) {
    DMLC_DECLARE_FIELD(lrs).describe("One learning rate per weight.");
    DMLC_DECLARE_FIELD(wds).describe("One weight decay per weight.");
    OPS_DECLARE_MULTI_SGD_FIELDS();
  }
};

struct MultiSGDMomParam : public dmlc::Parameter<MultiSGDMomParam> {
  FloatTuple lrs;
  FloatTuple wds;
  float momentum;
  float rescale_grad;
  float clip_gradient;
  int num_weights;
  DMLC_DECLARE_PARAMETER(MultiSGDMomParam) {
    DMLC_DECLARE_FIELD(lrs).describe("One learning rate per weight.");
    DMLC_DECLARE_FIELD(wds).describe("One weight decay per weight.");
    DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe("Decay of the momenta.");
    OPS_DECLARE_MULTI_SGD_FIELDS();
  }
};

struct PreloadedMultiSGDParam : public dmlc::Parameter<PreloadedMultiSGDParam> {
  float rescale_grad;
  float clip_gradient;
  int num_weights;
  DMLC_DECLARE_PARAMETER(PreloadedMultiSGDParam) { OPS_DECLARE_MULTI_SGD_FIELDS(); }
};

struct PreloadedMultiSGDMomParam : public dmlc::Parameter<PreloadedMultiSGDMomParam> {
  float momentum;
  float rescale_grad;
  float clip_gradient;
  int num_weights;
  DMLC_DECLARE_PARAMETER(PreloadedMultiSGDMomParam) {
    DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe("Decay of the momenta.");
    OPS_DECLARE_MULTI_SGD_FIELDS();
  }
};

// What one of the eight operators takes: per weight its arrays (weight, grad, then the
// momentum and the float32 master weight where it has them), then, preloaded, lrs and wds.
struct MultiSGDKind {
  bool momentum, mp, preloaded;
  int Arrays() const { return 2 + (momentum ? 1 : 0) + (mp ? 1 : 0); }
  int NumInputs(int weights) const { return weights * Arrays() + (preloaded ? 2 : 0); }
};

// The parameters say which form: with momentum, and with the rates as inputs (preloaded).
template <typename Param>
constexpr bool kPreloaded = std::is_same_v<Param, PreloadedMultiSGDParam> ||
                            std::is_same_v<Param, PreloadedMultiSGDMomParam>;
template <typename Param>
constexpr bool kWithMomentum =
    std::is_same_v<Param, MultiSGDMomParam> || std::is_same_v<Param, PreloadedMultiSGDMomParam>;
template <typename Param>
constexpr MultiSGDKind KindOf(bool mp) {
  return {kWithMomentum<Param>, mp, kPreloaded<Param>};
}

// The learning rates and weight decays of `weights` weights from the parameters; a count
// other than num_weights is a dmlc::Error naming the operator.
template <typename Param>
void CheckRatesPerWeight(const Param& p, const std::string& op) {
  if constexpr (!kPreloaded<Param>) {
    for (const auto& [name, tuple] :
         {std::make_pair("lrs", &p.lrs), std::make_pair("wds", &p.wds)}) {
      if (static_cast<int>(tuple->size()) != p.num_weights) {
        std::ostringstream os;
        os << op << ": " << name << " " << *tuple << " has " << tuple->size()
           << " values; num_weights is " << p.num_weights << ": give one per weight";
        throw dmlc::Error(os.str());
      }
    }
  }
}

// Inputs as KindOf<Param>(kMP) says; outputs: the num_weights new weights.
template <typename xpu, typename Param, bool kMP>
void MultiSGDCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Param& p = GetParam<Param>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const int n = p.num_weights;
  constexpr bool kMomentum = kWithMomentum<Param>;
  const int k = KindOf<Param>(kMP).Arrays();
  std::vector<float> lrs, wds;
  if constexpr (kPreloaded<Param>) {
    lrs = IndicesOnHost<xpu, float>(in[n * k], s);
    wds = IndicesOnHost<xpu, float>(in[n * k + 1], s);
  } else {
    CheckRatesPerWeight(p, attrs.op->name);
    lrs = p.lrs.values;
    wds = p.wds.values;
  }
  for (int i = 0; i < n; ++i) {
    const TBlob* group = &in[i * k];
    const index_t size = out[i].Size();
    if constexpr (kMP) {
      const SGDStep<float> step{lrs[i], p.rescale_grad, p.clip_gradient, wds[i]};
      float* w32 = group[k - 1].dptr<float>();
      MSHADOW_REAL_TYPE_SWITCH(out[i].type_flag_, DType, {
        if constexpr (kMomentum) {
          LaunchUpdate<mp_sgd_mom_kernel>(s, req[i], size, out[i].dptr<DType>(),
                                          group[1].dptr<DType>(), group[2].dptr<float>(), w32,
                                          p.momentum, step);
        } else {
          LaunchUpdate<mp_sgd_kernel>(s, req[i], size, out[i].dptr<DType>(), group[1].dptr<DType>(),
                                      w32, step);
        }
      });
    } else {
      MSHADOW_SGL_DBL_TYPE_SWITCH(out[i].type_flag_, DType, {
        const SGDStep<DType> step{DType(lrs[i]), DType(p.rescale_grad), DType(p.clip_gradient),
                                  DType(wds[i])};
        if constexpr (kMomentum) {
          LaunchUpdate<sgd_mom_kernel>(s, req[i], size, out[i].dptr<DType>(),
                                       group[0].dptr<DType>(), group[1].dptr<DType>(),
                                       group[2].dptr<DType>(), DType(p.momentum), step);
        } else {
          LaunchUpdate<sgd_kernel>(s, req[i], size, out[i].dptr<DType>(), group[0].dptr<DType>(),
                                   group[1].dptr<DType>(), step);
        }
      });
    }
  }
}

// Adds FCompute<xpu> to the eight operators.
template <typename xpu>
void SetMultiSGDCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  auto set = [attr_name](const char* name, FCompute compute) {
    RegisterOp(name).set_attr<FCompute>(attr_name, std::move(compute));
  };
  set("multi_sgd_update", MultiSGDCompute<xpu, MultiSGDParam, false>);
  set("multi_sgd_mom_update", MultiSGDCompute<xpu, MultiSGDMomParam, false>);
  set("multi_mp_sgd_update", MultiSGDCompute<xpu, MultiSGDParam, true>);
  set("multi_mp_sgd_mom_update", MultiSGDCompute<xpu, MultiSGDMomParam, true>);
  set("preloaded_multi_sgd_update", MultiSGDCompute<xpu, PreloadedMultiSGDParam, false>);
  set("preloaded_multi_sgd_mom_update", MultiSGDCompute<xpu, PreloadedMultiSGDMomParam, false>);
  set("preloaded_multi_mp_sgd_update", MultiSGDCompute<xpu, PreloadedMultiSGDParam, true>);
  set("preloaded_multi_mp_sgd_mom_update", MultiSGDCompute<xpu, PreloadedMultiSGDMomParam, true>);
}

}  // namespace optimizer
}  // namespace ops

#endif  // OPS_MULTI_SGD_INL_H_
