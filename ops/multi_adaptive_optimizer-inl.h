// ops/multi_adaptive_optimizer-inl.h: MXNet 1.9.1's batched adaptive updates, one call for
// many weights, each with its own shape, learning rate and weight decay, written once for
// every device:
// - _multi_adamw_update and _multi_mp_adamw_update: each weight _adamw_update's
//   (_mp_adamw_update's) step, from adaptive_optimizer-inl.h's kernels, with its own schedule
//   multiplier; the last input, rescale_grad (one element, read on the host), is shared, and
//   a NaN, infinite or 0 one skips the whole call, as MXNet's;
// - _multi_lamb_update and _multi_mp_lamb_update: each weight lamb_update_phase1 then
//   lamb_update_phase2 with r1 = ||weight|| and r2 = ||g|| (lamb-inl.h's kernels; the norms
//   from lars-inl.h's sums of squares in fixed parts, so they do not depend on the thread
//   count), with its own step count, without the round trips through the host a framework
//   makes calling the phases one weight at a time.
// The mp_ forms step float32 master weights. multi_adaptive_optimizer.cc registers the CPU,
// multi_adaptive_optimizer.cu the GPU.
#ifndef OPS_MULTI_ADAPTIVE_OPTIMIZER_INL_H_
#define OPS_MULTI_ADAPTIVE_OPTIMIZER_INL_H_

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/adaptive_optimizer-inl.h"
#include "ops/float_tuple.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/lamb-inl.h"
#include "ops/lars-inl.h"

namespace ops {
namespace optimizer {

// Per weight: weight, grad, mean, var, and the float32 master weight with kMP.
template <bool kMP>
constexpr int kMomentArrays = kMP ? 5 : 4;

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

// Inputs: kMomentArrays<kMP> per weight, then rescale_grad; outputs: the new weights.
template <typename xpu, bool kMP>
void MultiAdamWCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const MultiAdamWParam& p = GetParam<MultiAdamWParam>(attrs);
  CheckValuesPerWeight(p, attrs.op->name);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const int n = p.num_weights;
  constexpr int k = kMomentArrays<kMP>;
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

struct MultiLambParam : public dmlc::Parameter<MultiLambParam> {
  FloatTuple learning_rates;
  float beta1;
  float beta2;
  float epsilon;
  FloatTuple wds;
  float rescale_grad;
  float lower_bound;
  float upper_bound;
  float clip_gradient;
  bool bias_correction;
  TShape step_count;
  int num_tensors;
  DMLC_DECLARE_PARAMETER(MultiLambParam) {
    DMLC_DECLARE_FIELD(learning_rates).describe("One learning rate per weight.");
    DMLC_DECLARE_FIELD(beta1).set_default(0.9f).describe("Decay of the first moments.");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe("Decay of the second moments.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-6f).describe("Added to sqrt(var) for stability.");
    DMLC_DECLARE_FIELD(wds).describe("One weight decay per weight: wd * weight joins g.");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("The gradients' scale.");
    DMLC_DECLARE_FIELD(lower_bound)
        .set_default(-1.0f)
        .describe("Each r1 (a weight's norm) raised to at least this; negative: no bound.");
    DMLC_DECLARE_FIELD(upper_bound)
        .set_default(-1.0f)
        .describe("Each r1 lowered to at most this; negative: no bound.");
    DMLC_DECLARE_FIELD(clip_gradient)
        .set_default(-1.0f)
        .describe(
            "Clip each rescaled gradient to [-clip_gradient, clip_gradient]; negative: no "
            "clipping.");
    DMLC_DECLARE_FIELD(bias_correction)
        .set_default(true)
        .describe("Divide the moments by 1 - beta1^t and 1 - beta2^t.");
    DMLC_DECLARE_FIELD(step_count).describe("Each weight's update count t, from 1.");
    DMLC_DECLARE_FIELD(num_tensors)
        .set_default(1)
        .set_lower_bound(1)
        .describe("How many weights the call updates.");
  }
};

// learning_rates, wds and step_count hold one value per weight, the counts from 1; otherwise
// a dmlc::Error naming the operator.
inline void CheckValuesPerTensor(const MultiLambParam& p, const std::string& op) {
  const std::pair<const char*, size_t> sizes[] = {{"learning_rates", p.learning_rates.size()},
                                                  {"wds", p.wds.size()},
                                                  {"step_count", p.step_count.ndim()}};
  for (const auto& [name, size] : sizes) {
    if (static_cast<int>(size) != p.num_tensors) {
      std::ostringstream os;
      os << op << ": " << name << " has " << size << " values; num_tensors is " << p.num_tensors
         << ": give one per weight";
      throw dmlc::Error(os.str());
    }
  }
  for (int i = 0; i < p.num_tensors; ++i) {
    if (p.step_count[i] < 1) {
      throw dmlc::Error(op + ": step_count " + std::to_string(p.step_count[i]) + " of weight " +
                        std::to_string(i) + "; valid: 1 or more");
    }
  }
}

// Weight i's phase-one direction.
template <typename T>
LambDirection<T> MultiLambDirection(const MultiLambParam& p, int i) {
  LambUpdatePhaseOneParam one;
  one.beta1 = p.beta1;
  one.beta2 = p.beta2;
  one.epsilon = p.epsilon;
  one.t = static_cast<int>(p.step_count[i]);
  one.bias_correction = p.bias_correction;
  one.wd = p.wds[i];
  one.rescale_grad = p.rescale_grad;
  one.clip_gradient = p.clip_gradient;
  return LambDirectionOf<T>(one);
}

// Item 0: norms[0] = sqrt of the weight's parts' sum, norms[1] = that of g's, each added in
// order.
struct norms_of_parts {
  template <typename T>
  MSHADOW_XINLINE static void Map(index_t, T* norms, const double* weight_parts,
                                  const double* g_parts, index_t count) {
    double w = 0, g = 0;
    for (index_t p = 0; p < count; ++p) {
      w += weight_parts[p];
      g += g_parts[p];
    }
    norms[0] = static_cast<T>(std::sqrt(w));
    norms[1] = static_cast<T>(std::sqrt(g));
  }
};

// Inputs: kMomentArrays<kMP> per weight; outputs: the new weights. The temporary space holds
// one weight's g (in the step's type T), the parts of its two sums and the two norms, reused
// weight after weight.
template <typename xpu, bool kMP>
void MultiLambCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const MultiLambParam& p = GetParam<MultiLambParam>(attrs);
  CheckValuesPerTensor(p, attrs.op->name);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  constexpr int k = kMomentArrays<kMP>;
  index_t largest = 0;
  for (const TBlob& o : out) largest = std::max(largest, o.Size());
  const index_t most_parts = lars::PartsOf(largest);
  auto run = [&](auto weight_tag, auto step_tag) {
    using DType = decltype(weight_tag);
    using T = decltype(step_tag);
    const index_t words = 2 * most_parts + 2 + (largest * sizeof(T) + 7) / 8;
    double* space =
        ctx.requested[0].get_space_typed<xpu, 1, double>(mshadow::Shape1(words), s).dptr_;
    double* parts = space;
    T* norms = reinterpret_cast<T*>(space + 2 * most_parts);
    T* g = reinterpret_cast<T*>(space + 2 * most_parts + 2);
    for (int i = 0; i < p.num_tensors; ++i) {
      const TBlob* group = &in[i * k];
      const index_t size = out[i].Size(), count = lars::PartsOf(size);
      const LambDirection<T> direction = MultiLambDirection<T>(p, i);
      const TBlob& weight = kMP ? group[4] : group[0];  // what the step reads and norms
      if constexpr (kMP) {
        LaunchUpdate<mp_lamb_phase1_kernel>(s, kWriteTo, size, g, group[1].dptr<DType>(),
                                            group[2].dptr<float>(), group[3].dptr<float>(),
                                            group[4].dptr<float>(), direction);
      } else {
        LaunchUpdate<lamb_phase1_kernel>(s, kWriteTo, size, g, group[0].dptr<DType>(),
                                         group[1].dptr<DType>(), group[2].dptr<DType>(),
                                         group[3].dptr<DType>(), direction);
      }
      lars::SumOfSquares<xpu>::Parts(weight, s, parts);
      lars::SumOfSquares<xpu>::Parts(
          TBlob(g, out[i].shape_, xpu::kDevMask, mshadow::DataType<T>::kFlag), s, parts + count);
      Kernel<norms_of_parts, xpu>::Launch(s, 1, norms, parts, parts + count, count);
      const LambTrustStep<T> step{T(p.learning_rates[i]), T(p.lower_bound), T(p.upper_bound)};
      if constexpr (kMP) {
        LaunchUpdate<mp_lamb_phase2_kernel>(s, req[i], size, out[i].dptr<DType>(), g, norms,
                                            norms + 1, group[4].dptr<float>(), step);
      } else {
        LaunchUpdate<lamb_phase2_kernel>(s, req[i], size, out[i].dptr<DType>(),
                                         group[0].dptr<DType>(), g, norms, norms + 1, step);
      }
    }
  };
  if constexpr (kMP) {
    MSHADOW_REAL_TYPE_SWITCH(out[0].type_flag_, DType, { run(DType(), float()); });
  } else {
    MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, { run(DType(), DType()); });
  }
}

template <typename xpu>
void SetMultiAdaptiveOptimizerCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  auto set = [attr_name](const char* name, FCompute compute) {
    RegisterOp(name).set_attr<FCompute>(attr_name, std::move(compute));
  };
  set("_multi_adamw_update", MultiAdamWCompute<xpu, false>);
  set("_multi_mp_adamw_update", MultiAdamWCompute<xpu, true>);
  set("_multi_lamb_update", MultiLambCompute<xpu, false>);
  set("_multi_mp_lamb_update", MultiLambCompute<xpu, true>);
}

}  // namespace optimizer
}  // namespace ops

#endif  // OPS_MULTI_ADAPTIVE_OPTIMIZER_INL_H_
