// ops/activation-inl.h: Activation(act_type) and LeakyReLU(act_type, slope) with their
// backward operators, written once for every device. activation.cc registers them with
// FCompute<cpu>, activation.cu adds FCompute<gpu>.
#ifndef OPS_ACTIVATION_INL_H_
#define OPS_ACTIVATION_INL_H_

#include <cmath>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/float_compute.h"
#include "ops/grad_functors.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"

namespace ops {
namespace activation {

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

template <typename xpu>
void ActivationCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  namespace op = mshadow::op;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_REAL_TYPE_SWITCH_EX(out[0].type_flag_, DType, {
    auto x = Flat<xpu, DType>(in[0], s);
    auto y = Flat<xpu, DType>(out[0], s);
    switch (GetParam<ActivationParam>(attrs).act_type) {
      case kRelu:
        Assign(y, req[0], F<InComputeType<DType, op::relu>>(x));
        break;
      case kSigmoid:
        Assign(y, req[0], F<InComputeType<DType, op::sigmoid>>(x));
        break;
      case kTanh:
        Assign(y, req[0], F<InComputeType<DType, op::tanh>>(x));
        break;
      case kSoftReLU:
        Assign(y, req[0], F<InComputeType<DType, op::softrelu>>(x));
        break;
      case kSoftSign:
        Assign(y, req[0], F<InComputeType<DType, fn::softsign>>(x));
        break;
    }
  });
}

// Inputs: out_grad, x, y.
template <typename xpu>
void ActivationBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                               const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                               const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_REAL_TYPE_SWITCH_EX(out[0].type_flag_, DType, {
    auto og = Flat<xpu, DType>(in[0], s);
    auto x = Flat<xpu, DType>(in[1], s);
    auto y = Flat<xpu, DType>(in[2], s);
    auto ig = Flat<xpu, DType>(out[0], s);
    switch (GetParam<ActivationParam>(attrs).act_type) {
      case kRelu:
        Assign(ig, req[0], og * F<InComputeType<DType, fn::relu_grad>>(y));
        break;
      case kSigmoid:
        Assign(ig, req[0], og * F<InComputeType<DType, fn::sigmoid_grad>>(y));
        break;
      case kTanh:
        Assign(ig, req[0], og * F<InComputeType<DType, fn::tanh_grad>>(y));
        break;
      case kSoftReLU:
        Assign(ig, req[0], og * F<InComputeType<DType, fn::softrelu_grad>>(y));
        break;
      case kSoftSign:
        Assign(ig, req[0], og * F<InComputeType<DType, fn::softsign_grad>>(x));
        break;
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

// The functions of (x, slope) and their derivatives with respect to x.
struct leaky {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType x, DType slope) { return x > DType(0) ? x : slope * x; }
};
struct leaky_grad {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType x, DType slope) {
    return x > DType(0) ? DType(1) : slope;
  }
};
struct elu {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType x, DType slope) {
    return x > DType(0) ? x : slope * DType(std::expm1(x));
  }
};
struct elu_grad {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType x, DType slope) {
    return x > DType(0) ? DType(1) : slope * DType(std::exp(x));
  }
};

}  // namespace activation
}  // namespace ops

// Their packet forms (x, slope), so that LeakyReLU runs on the engine's vector path.
namespace mshadow {
namespace packet {

// a: x, b: the slope.
MSHADOW_DEFINE_PACKET_BINARY(ops::activation::leaky, SelectPositive(a, a, b* a))
MSHADOW_DEFINE_PACKET_BINARY(ops::activation::leaky_grad, SelectPositive(a, P::Fill(DType(1)), b))
MSHADOW_DEFINE_PACKET_BINARY(ops::activation::elu, SelectPositive(a, a, b* Expm1(a)))
MSHADOW_DEFINE_PACKET_BINARY(ops::activation::elu_grad,
                             SelectPositive(a, P::Fill(DType(1)), b* Exp(a)))

}  // namespace packet
}  // namespace mshadow

namespace ops {
namespace activation {

template <typename xpu>
void LeakyReLUCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const LeakyReLUParam& param = GetParam<LeakyReLUParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto x = Flat<xpu, DType>(in[0], s);
    auto y = Flat<xpu, DType>(out[0], s);
    const DType slope = static_cast<DType>(param.slope);
    if (param.act_type == kLeaky) {
      Assign(y, req[0], F<leaky>(x, slope));
    } else {
      Assign(y, req[0], F<elu>(x, slope));
    }
  });
}

// Inputs: out_grad, x.
template <typename xpu>
void LeakyReLUBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const LeakyReLUParam& param = GetParam<LeakyReLUParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto og = Flat<xpu, DType>(in[0], s);
    auto x = Flat<xpu, DType>(in[1], s);
    auto ig = Flat<xpu, DType>(out[0], s);
    const DType slope = static_cast<DType>(param.slope);
    if (param.act_type == kLeaky) {
      Assign(ig, req[0], og * F<leaky_grad>(x, slope));
    } else {
      Assign(ig, req[0], og * F<elu_grad>(x, slope));
    }
  });
}

// Adds FCompute<xpu> to Activation, LeakyReLU and their backward operators.
template <typename xpu>
void SetActivationCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("Activation").set_attr<FCompute>(attr_name, FCompute(ActivationCompute<xpu>));
  RegisterOp("_backward_Activation")
      .set_attr<FCompute>(attr_name, FCompute(ActivationBackwardCompute<xpu>));
  RegisterOp("LeakyReLU").set_attr<FCompute>(attr_name, FCompute(LeakyReLUCompute<xpu>));
  RegisterOp("_backward_LeakyReLU")
      .set_attr<FCompute>(attr_name, FCompute(LeakyReLUBackwardCompute<xpu>));
}

}  // namespace activation
}  // namespace ops

#endif  // OPS_ACTIVATION_INL_H_
