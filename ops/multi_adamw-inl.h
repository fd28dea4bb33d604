// ops/multi_adamw-inl.h: MXNet 1.9.1's batched AdamW updates, one call for num_weights weights
// (each with its own shape, learning rate, weight decay and schedule multiplier):
// _multi_adamw_update and its multi-precision form _multi_mp_adamw_update. Each weight gets
// exactly _adamw_update's (_mp_adamw_update's) step, from adaptive_optimizer-inl.h's kernels;
// the last input, rescale_grad (one element, read on the host), is shared, and a NaN, infinite
// or 0 one skips the whole call, as MXNet's. multi_adamw.cc registers the CPU, multi_adamw.cu
// the GPU.
#ifndef OPS_MULTI_ADAMW_INL_H_
#define OPS_MULTI_ADAMW_INL_H_

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/adaptive_optimizer-inl.h"
#include "ops/float_tuple.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace optimizer {

struct MultiAdamWParam : public dmlc::Parameter<MultiAdamWParam> {
  FloatTuple lrs;
  float beta1;
  float beta2;
  float epsilon;
  FloatTuple wds;
  FloatTuple etas;
  float clip_gradient;
  int num_weights;
  DMLC_DECLARE_PARAMETER(MultiAdamWParam) {
    DMLC_DECLARE_FIELD(lrs).describe("One learning rate (alpha) per weight.");
    DMLC_DECLARE_FIELD(beta1).set_default(0.9f).describe("Decay of the first moments.");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe("Decay of the second moments.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe("Added to sqrt(var) for stability.");
    DMLC_DECLARE_FIELD(wds).describe("One decoupled weight decay per weight.");
    DMLC_DECLARE_FIELD(etas).describe("One schedule multiplier of the whole step per weight.");
    DMLC_DECLARE_FIELD(clip_gradient)
        .set_default(-1.0f)
        .describe(
            "Clip each rescaled gradient to [-clip_gradient, clip_gradient]; negative: no "
            "clipping.");
    DMLC_DECLARE_FIELD(num_weights)
        .set_default(1)
        .set_lower_bound(1)
        .describe("How many weights the call updates.");
  }
};

// Per weight: weight, grad, mean, var, and the float32 master weight with kMP.
template <bool kMP>
constexpr int kAdamWArrays = kMP ? 5 : 4;

// lrs, wds and etas hold one value per weight; otherwise a dmlc::Error naming the operator.
inline void CheckValuesPerWeight(const MultiAdamWParam& p, const std::string& op) {
  for (const auto& [name, tuple] : {std::make_pair("lrs", &p.lrs), std::make_pair("wds", &p.wds),
                                    std::make_pair("etas", &p.etas)}) {
    if (static_cast<int>(tuple->size()) != p.num_weights) {
      std::ostringstream os;
      os << op << ": " << name << " " << *tuple << " has " << tuple->size()
         << " values; num_weights is " << p.num_weights << ": give one per weight";
      throw dmlc::Error(os.str());
    }
  }
}

// Weight i's step, with rescale_grad's value.
template <typename T>
AdamWStep<T> MultiAdamWStep(const MultiAdamWParam& p, int i, T rescale) {
  return {T(p.lrs[i]), T(p.beta1),   T(p.beta2), T(p.epsilon),
          T(p.wds[i]), T(p.etas[i]), rescale,    T(p.clip_gradient)};
}

// Inputs: kAdamWArrays<kMP> per weight, then rescale_grad; outputs: the new weights.
template <typename xpu, bool kMP>
void MultiAdamWCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const MultiAdamWParam& p = GetParam<MultiAdamWParam>(attrs);
  CheckValuesPerWeight(p, attrs.op->name);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const int n = p.num_weights;
  constexpr int k = kAdamWArrays<kMP>;
  const TBlob& rescale_grad = in[n * k];
  if constexpr (kMP) {
    float rescale;
    if (!AdamWRescale(rescale_grad, s, &rescale)) return;
    for (int i = 0; i < n; ++i) {
      const TBlob* group = &in[i * k];
      MSHADOW_REAL_TYPE_SWITCH(out[i].type_flag_, DType, {
        LaunchUpdate<mp_adamw_kernel>(s, req[i], out[i].Size(), out[i].dptr<DType>(),
                                      group[1].dptr<DType>(), group[2].dptr<float>(),
                                      group[3].dptr<float>(), group[4].dptr<float>(),
                                      MultiAdamWStep(p, i, rescale));
      });
    }
  } else {
    MSHADOW_SGL_DBL_TYPE_SWITCH(rescale_grad.type_flag_, DType, {
      DType rescale;
      if (!AdamWRescale(rescale_grad, s, &rescale)) return;
      for (int i = 0; i < n; ++i) {
        const TBlob* group = &in[i * k];
        LaunchUpdate<adamw_kernel>(s, req[i], out[i].Size(), out[i].dptr<DType>(),
                                   group[0].dptr<DType>(), group[1].dptr<DType>(),
                                   group[2].dptr<DType>(), group[3].dptr<DType>(),
                                   MultiAdamWStep(p, i, rescale));
      }
    });
  }
}

template <typename xpu>
void SetMultiAdamWCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_multi_adamw_update")
      .set_attr<FCompute>(attr_name, FCompute(MultiAdamWCompute<xpu, false>));
  RegisterOp("_multi_mp_adamw_update")
      .set_attr<FCompute>(attr_name, FCompute(MultiAdamWCompute<xpu, true>));
}

}  // namespace optimizer
}  // namespace ops

#endif  // OPS_MULTI_ADAMW_INL_H_
