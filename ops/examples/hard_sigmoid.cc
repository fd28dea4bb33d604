// The worked example of docs/writing_an_operator.md: hard_sigmoid(alpha, beta), a piecewise
// linear sigmoid: y = min(max(alpha * x + beta, 0), 1).
#include "ops/kernel_util.h"

namespace ops {
namespace examples {
namespace {

// 1. The parameters, declared once: parsing, defaults, ranges, docs and errors come free.
struct HardSigmoidParam : public dmlc::Parameter<HardSigmoidParam> {
  float alpha;
  float beta;
  DMLC_DECLARE_PARAMETER(HardSigmoidParam) {
    DMLC_DECLARE_FIELD(alpha).set_default(0.2f).set_lower_bound(0.0f).describe("Slope.");
    DMLC_DECLARE_FIELD(beta).set_default(0.5f).describe("Offset.");
  }
};

// 2. The forward computation for one device, honouring the request for the output.
void HardSigmoidCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const HardSigmoidParam& param = GetParam<HardSigmoidParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType alpha = param.alpha, beta = param.beta;
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    for (index_t i = 0; i < out[0].Size(); ++i) {
      AssignValue(y + i, req[0], std::min(std::max(alpha * x[i] + beta, DType(0)), DType(1)));
    }
  });
}

// 3. The backward computation. Inputs (as FGradient below says): the output's gradient,
// then the forward input. Output: the input's gradient.
void HardSigmoidBackwardCompute(const NodeAttrs& attrs, const OpContext&,
                                const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                const std::vector<TBlob>& out) {
  const HardSigmoidParam& param = GetParam<HardSigmoidParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType alpha = param.alpha, beta = param.beta;
    const DType* grad = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    for (index_t i = 0; i < out[0].Size(); ++i) {
      const DType z = alpha * x[i] + beta;
      AssignValue(dx + i, req[0], (z > DType(0) && z < DType(1)) ? grad[i] * alpha : DType(0));
    }
  });
}

}  // namespace

DMLC_REGISTER_PARAMETER(HardSigmoidParam);

// 4. Registration: name, docs, arity, parameters, inference, compute, gradient.
OPS_REGISTER_OP(hard_sigmoid)
    .describe("Piecewise linear sigmoid: min(max(alpha * x + beta, 0), 1).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(HardSigmoidParam::__FIELDS__())
    .set_attr_parser(ParamParser<HardSigmoidParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FCompute>("FCompute<cpu>", HardSigmoidCompute)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_hard_sigmoid", /*uses_inputs=*/true,
                                                /*uses_outputs=*/false});

OPS_REGISTER_OP(_backward_hard_sigmoid)
    .describe("Gradient of hard_sigmoid.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<HardSigmoidParam>)
    .set_attr<FCompute>("FCompute<cpu>", HardSigmoidBackwardCompute);

}  // namespace examples
}  // namespace ops
