// Activation(act_type) and LeakyReLU(act_type, slope), with backward operators.
#include "ops/grad_functors.h"
#include "ops/kernel_util.h"

namespace ops {
namespace {

using mshadow::expr::F;

enum ActType { kRelu, kSigmoid, kTanh, kSoftReLU, kSoftSign };

struct ActivationParam : public dmlc::Parameter<ActivationParam> {
  int act_type;
  DMLC_DECLARE_PARAMETER(ActivationParam) {
    DMLC_DECLARE_FIELD(act_type)
        .add_enum("relu", kRelu)
        .add_enum("sigmoid", kSigmoid)
        .add_enum("tanh", kTanh)
        .add_enum("softrelu", kSoftReLU)
        .add_enum("softsign", kSoftSign)
        .describe("Activation function to apply.");
  }
};

void ActivationCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  namespace op = mshadow::op;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto x = Flat<DType>(in[0]);
    auto y = Flat<DType>(out[0]);
    switch (GetParam<ActivationParam>(attrs).act_type) {
      case kRelu: Assign(y, req[0], F<op::relu>(x)); break;
      case kSigmoid: Assign(y, req[0], F<op::sigmoid>(x)); break;
      case kTanh: Assign(y, req[0], F<op::tanh>(x)); break;
      case kSoftReLU: Assign(y, req[0], F<op::softrelu>(x)); break;
      case kSoftSign: Assign(y, req[0], F<fn::softsign>(x)); break;
    }
  });
}

// Inputs: out_grad, x, y.
void ActivationBackwardCompute(const NodeAttrs& attrs, const OpContext&,
                               const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                               const std::vector<TBlob>& out) {
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto og = Flat<DType>(in[0]);
    auto x = Flat<DType>(in[1]);
    auto y = Flat<DType>(in[2]);
    auto ig = Flat<DType>(out[0]);
    switch (GetParam<ActivationParam>(attrs).act_type) {
      case kRelu: Assign(ig, req[0], og * F<fn::relu_grad>(y)); break;
      case kSigmoid: Assign(ig, req[0], og * F<fn::sigmoid_grad>(y)); break;
      case kTanh: Assign(ig, req[0], og * F<fn::tanh_grad>(y)); break;
      case kSoftReLU: Assign(ig, req[0], og * F<fn::softrelu_grad>(y)); break;
      case kSoftSign: Assign(ig, req[0], og * F<fn::softsign_grad>(x)); break;
    }
  });
}

// ---- LeakyReLU: x for x > 0; slope * x (leaky) or slope * (e^x - 1) (elu) otherwise.

enum LeakyType { kLeaky, kElu };

struct LeakyReLUParam : public dmlc::Parameter<LeakyReLUParam> {
  int act_type;
  float slope;
  DMLC_DECLARE_PARAMETER(LeakyReLUParam) {
    DMLC_DECLARE_FIELD(act_type)
        .add_enum("leaky", kLeaky)
        .add_enum("elu", kElu)
        .set_default(kLeaky)
        .describe("leaky: slope * x for x <= 0; elu: slope * (exp(x) - 1) for x <= 0.");
    DMLC_DECLARE_FIELD(slope).set_default(0.25f).describe("The slope (or scale) for x <= 0.");
  }
};

void LeakyReLUCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const LeakyReLUParam& param = GetParam<LeakyReLUParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType slope = static_cast<DType>(param.slope);
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const index_t n = out[0].Size();
    for (index_t i = 0; i < n; ++i) {
      const DType negative = param.act_type == kLeaky ? slope * x[i] : slope * std::expm1(x[i]);
      AssignValue(y + i, req[0], x[i] > DType(0) ? x[i] : negative);
    }
  });
}

// Inputs: out_grad, x.
void LeakyReLUBackwardCompute(const NodeAttrs& attrs, const OpContext&,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const LeakyReLUParam& param = GetParam<LeakyReLUParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType slope = static_cast<DType>(param.slope);
    const DType* og = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    DType* ig = out[0].dptr<DType>();
    const index_t n = out[0].Size();
    for (index_t i = 0; i < n; ++i) {
      const DType negative = param.act_type == kLeaky ? slope : slope * std::exp(x[i]);
      AssignValue(ig + i, req[0], og[i] * (x[i] > DType(0) ? DType(1) : negative));
    }
  });
}

}  // namespace

DMLC_REGISTER_PARAMETER(ActivationParam);
DMLC_REGISTER_PARAMETER(LeakyReLUParam);

OPS_REGISTER_OP(Activation)
    .describe("Applies an activation function elementwise: relu max(x, 0), sigmoid "
              "1/(1+exp(-x)), tanh, softrelu log(1+exp(x)), softsign x/(1+|x|).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(ActivationParam::__FIELDS__())
    .set_attr_parser(ParamParser<ActivationParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FCompute>("FCompute<cpu>", ActivationCompute)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_Activation", true, true});

OPS_REGISTER_OP(_backward_Activation)
    .describe("Gradient of Activation.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<ActivationParam>)
    .set_attr<FCompute>("FCompute<cpu>", ActivationBackwardCompute);

OPS_REGISTER_OP(LeakyReLU)
    .describe("Leaky rectified linear unit: x for x > 0, slope * x (act_type=leaky) or "
              "slope * (exp(x) - 1) (act_type=elu) otherwise.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(LeakyReLUParam::__FIELDS__())
    .set_attr_parser(ParamParser<LeakyReLUParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FCompute>("FCompute<cpu>", LeakyReLUCompute)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_LeakyReLU", true, false});

OPS_REGISTER_OP(_backward_LeakyReLU)
    .describe("Gradient of LeakyReLU.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<LeakyReLUParam>)
    .set_attr<FCompute>("FCompute<cpu>", LeakyReLUBackwardCompute);

}  // namespace ops
