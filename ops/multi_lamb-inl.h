// ops/multi_lamb-inl.h: MXNet 1.9.1's batched LAMB updates, one call for num_tensors weights
// (each with its own shape, learning rate, weight decay and step count): _multi_lamb_update
// and its multi-precision form _multi_mp_lamb_update. Each weight gets exactly
// lamb_update_phase1 then lamb_update_phase2 with r1 = ||weight|| and r2 = ||g|| (the
// kernels of lamb-inl.h; the norms from lars-inl.h's sums of squares in fixed parts, so they
// do not depend on the thread count), without the round trips through the host a framework
// makes calling the phases one weight at a time. multi_lamb.cc registers the CPU,
// multi_lamb.cu the GPU.
#ifndef OPS_MULTI_LAMB_INL_H_
#define OPS_MULTI_LAMB_INL_H_

#include <cmath>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/float_tuple.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/lamb-inl.h"
#include "ops/lars-inl.h"

namespace ops {
namespace optimizer {

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

// Per weight: weight, grad, mean, var, and the float32 master weight with kMP.
template <bool kMP>
constexpr int kLambArrays = kMP ? 5 : 4;

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

// Inputs: kLambArrays<kMP> per weight; outputs: the new weights. The temporary space holds
// one weight's g (in the step's type T), the parts of its two sums and the two norms, reused
// weight after weight.
template <typename xpu, bool kMP>
void MultiLambCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const MultiLambParam& p = GetParam<MultiLambParam>(attrs);
  CheckValuesPerTensor(p, attrs.op->name);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  constexpr int k = kLambArrays<kMP>;
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
void SetMultiLambCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_multi_lamb_update")
      .set_attr<FCompute>(attr_name, FCompute(MultiLambCompute<xpu, false>));
  RegisterOp("_multi_mp_lamb_update")
      .set_attr<FCompute>(attr_name, FCompute(MultiLambCompute<xpu, true>));
}

}  // namespace optimizer
}  // namespace ops

#endif  // OPS_MULTI_LAMB_INL_H_
