// softplus_beta(beta, threshold): y = log(1 + exp(beta * x)) / beta, and y = x where
// beta * x > threshold (PyTorch's Softplus), with its gradient sigmoid(beta * x).
#include <cmath>

#include "ops/kernel_util.h"

namespace example {
namespace {

using ops::TBlob;

struct SoftplusBetaParam : public dmlc::Parameter<SoftplusBetaParam> {
  double beta;
  double threshold;
  DMLC_DECLARE_PARAMETER(SoftplusBetaParam) {
    DMLC_DECLARE_FIELD(beta).set_default(1.0).set_lower_bound(1e-6).describe("Sharpness.");
    DMLC_DECLARE_FIELD(threshold)
        .set_default(20.0)
        .describe("Above this beta * x the output is x (the exponential would overflow).");
  }
};

void Forward(const ops::NodeAttrs& attrs, const ops::OpContext&, const std::vector<TBlob>& in,
             const std::vector<ops::OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& param = ops::GetParam<SoftplusBetaParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    for (mshadow::index_t i = 0; i < out[0].Size(); ++i) {
      const double z = param.beta * x[i];
      const double value = z > param.threshold ? x[i] : std::log1p(std::exp(z)) / param.beta;
      ops::AssignValue(y + i, req[0], static_cast<DType>(value));
    }
  });
}

void Backward(const ops::NodeAttrs& attrs, const ops::OpContext&, const std::vector<TBlob>& in,
              const std::vector<ops::OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& param = ops::GetParam<SoftplusBetaParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* grad = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    for (mshadow::index_t i = 0; i < out[0].Size(); ++i) {
      const double z = param.beta * x[i];
      const double slope = z > param.threshold ? 1.0 : 1.0 / (1.0 + std::exp(-z));
      ops::AssignValue(dx + i, req[0], static_cast<DType>(grad[i] * slope));
    }
  });
}

}  // namespace

DMLC_REGISTER_PARAMETER(SoftplusBetaParam);

OPS_REGISTER_OP(softplus_beta)
    .describe("Smooth ReLU: log(1 + exp(beta * x)) / beta; x where beta * x > threshold.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(SoftplusBetaParam::__FIELDS__())
    .set_attr_parser(ops::ParamParser<SoftplusBetaParam>)
    .set_attr<ops::FInferShape>("FInferShape", ops::ElemwiseShape<1, 1>)
    .set_attr<ops::FInferType>("FInferType", ops::ElemwiseRealType<1, 1>)
    .set_attr<ops::FCompute>("FCompute<cpu>", Forward)
    .set_attr<ops::FGradient>("FGradient", ops::FGradient{"_backward_softplus_beta", true, false});

// Shape and type inference come from softplus_beta's, through its FGradient.
OPS_REGISTER_OP(_backward_softplus_beta)
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ops::ParamParser<SoftplusBetaParam>)
    .set_attr<ops::FCompute>("FCompute<cpu>", Backward);

}  // namespace example
