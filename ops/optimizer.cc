// Optimizer updates: sgd_update and sgd_mom_update. They are not differentiable; they
// write the new weight to their output (usually the weight itself, in place), and
// sgd_mom_update also updates its momentum input in place.
#include <cmath>

#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace {

struct SGDParam : public dmlc::Parameter<SGDParam> {
  float lr;
  float wd;
  float rescale_grad;
  float clip_gradient;
  DMLC_DECLARE_PARAMETER(SGDParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe("Weight decay (L2 penalty).");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("The gradient is multiplied by this.");
    DMLC_DECLARE_FIELD(clip_gradient).set_default(-1.0f).describe(
        "Clip the rescaled gradient to [-clip_gradient, clip_gradient]; negative: no clipping.");
  }
};

struct SGDMomParam : public dmlc::Parameter<SGDMomParam> {
  float lr;
  float momentum;
  float wd;
  float rescale_grad;
  float clip_gradient;
  DMLC_DECLARE_PARAMETER(SGDMomParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe("Decay of the momentum.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe("Weight decay (L2 penalty).");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("The gradient is multiplied by this.");
    DMLC_DECLARE_FIELD(clip_gradient).set_default(-1.0f).describe(
        "Clip the rescaled gradient to [-clip_gradient, clip_gradient]; negative: no clipping.");
  }
};

// lr * (clip(rescale_grad * grad) + wd * weight), a packet (or one lane) at a time.
template <typename DType>
struct SGDStep {
  DType lr, rescale, clip, wd;
  template <typename P>
  MSHADOW_CINLINE P operator()(const P& grad, const P& weight) const {
    P g = P::Fill(rescale) * grad;
    if (clip >= 0) {
      g = mshadow::packet::Max(mshadow::packet::Min(g, P::Fill(clip)), P::Fill(-clip));
    }
    return P::Fill(lr) * (g + P::Fill(wd) * weight);
  }
};

// Calls fn(i, tag, add) over the n elements of an update, one vectorized pass, ranges of it
// on the engine's threads; add is the weight output's write mode (kAddTo or not).
template <typename DType, typename Fn>
void ForEachElement(index_t n, OpReqType req, Fn&& fn) {
  vec::WithReq(req, [&](auto add) {
    ParallelRows(n, 1, [&](index_t begin, index_t end) {
      vec::ForEach<DType>(end - begin, [&](index_t k, auto tag) { fn(begin + k, tag, add); });
    });
  });
}

// Inputs: weight, grad. weight_out = weight - step.
void SGDUpdateCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SGDParam& p = GetParam<SGDParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* w_out = out[0].dptr<DType>();
    const SGDStep<DType> step{p.lr, p.rescale_grad, p.clip_gradient, p.wd};
    ForEachElement<DType>(out[0].Size(), req[0], [&](index_t i, auto tag, auto add) {
      using P = vec::PacketOf<decltype(tag)>;
      const P wi = P::LoadUnAligned(w + i);
      vec::Store<decltype(add)::value>(w_out + i, wi - step(P::LoadUnAligned(g + i), wi));
    });
  });
}

// Inputs: weight, grad, mom. mom = momentum * mom - step (in place); weight_out = weight + mom.
void SGDMomUpdateCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SGDMomParam& p = GetParam<SGDMomParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* mom = in[2].dptr<DType>();
    DType* w_out = out[0].dptr<DType>();
    const SGDStep<DType> step{p.lr, p.rescale_grad, p.clip_gradient, p.wd};
    const DType momentum = p.momentum;
    // The momentum is updated even when the weight's output is kNullOp.
    const bool write_weight = req[0] != kNullOp;
    ForEachElement<DType>(out[0].Size(), write_weight ? req[0] : kWriteTo,
                          [&](index_t i, auto tag, auto add) {
                            using P = vec::PacketOf<decltype(tag)>;
                            const P wi = P::LoadUnAligned(w + i);
                            const P m = P::Fill(momentum) * P::LoadUnAligned(mom + i) -
                                        step(P::LoadUnAligned(g + i), wi);
                            m.StoreUnAligned(mom + i);
                            if (write_weight) vec::Store<decltype(add)::value>(w_out + i, wi + m);
                          });
  });
}

}  // namespace

DMLC_REGISTER_PARAMETER(SGDParam);
DMLC_REGISTER_PARAMETER(SGDMomParam);

OPS_REGISTER_OP(sgd_update)
    .describe("Stochastic gradient descent step: weight - lr * (clip(rescale_grad * grad) + "
              "wd * weight).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .add_arguments(SGDParam::__FIELDS__())
    .set_attr_parser(ParamParser<SGDParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<2, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FCompute>("FCompute<cpu>", SGDUpdateCompute);

OPS_REGISTER_OP(sgd_mom_update)
    .describe("SGD with momentum: mom = momentum * mom - lr * (clip(rescale_grad * grad) + "
              "wd * weight), updated in place; then weight + mom.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("weight", "NDArray-or-Symbol", "Weight.")
    .add_argument("grad", "NDArray-or-Symbol", "Gradient.")
    .add_argument("mom", "NDArray-or-Symbol", "Momentum, updated in place.")
    .add_arguments(SGDMomParam::__FIELDS__())
    .set_attr_parser(ParamParser<SGDMomParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<3, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<3, 1>)
    .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{2})
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FCompute>("FCompute<cpu>", SGDMomUpdateCompute);

}  // namespace ops
