// ops/contrib_elemwise-inl.h: MXNet 1.9.1's elementwise operators of its contrib namespace
// that take scalar parameters, written once for every device: _contrib_quadratic
// (a x^2 + b x + c) and _contrib_gradientmultiplier (the identity, whose gradient is scaled:
// -1 reverses it, as a domain-adversarial network's gradient reversal layer), and their
// backward operators. contrib_elemwise.cc registers them with FCompute<cpu>,
// contrib_elemwise.cu adds FCompute<gpu>.
#ifndef OPS_CONTRIB_ELEMWISE_INL_H_
#define OPS_CONTRIB_ELEMWISE_INL_H_

#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace contrib {

struct QuadraticParam : public dmlc::Parameter<QuadraticParam> {
  float a;
  float b;
  float c;
  DMLC_DECLARE_PARAMETER(QuadraticParam) {
    DMLC_DECLARE_FIELD(a).set_default(0.0f).describe("The coefficient of x^2.");
    DMLC_DECLARE_FIELD(b).set_default(0.0f).describe("The coefficient of x.");
    DMLC_DECLARE_FIELD(c).set_default(0.0f).describe("The constant.");
  }
};

struct GradientMultiplierParam : public dmlc::Parameter<GradientMultiplierParam> {
  double scalar;
  DMLC_DECLARE_PARAMETER(GradientMultiplierParam) {
    DMLC_DECLARE_FIELD(scalar).set_default(1.0).describe("The gradient's factor.");
  }
};

// a x^2 + b x + c, in Horner's form.
struct quadratic_forward {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType x, DType a, DType b, DType c) {
    return (a * x + b) * x + c;
  }
};

// dOut (2 a x + b).
struct quadratic_backward {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType out_grad, DType x, DType a, DType b) {
    return out_grad * (DType(2) * a * x + b);
  }
};

struct scaled_copy {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType x, DType scale) {
    return x * scale;
  }
};

// Input x: out = a x^2 + b x + c.
template <typename xpu>
void QuadraticCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const QuadraticParam& p = GetParam<QuadraticParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<op_with_req<quadratic_forward, Req>, xpu>::Launch(
          ctx.get_stream<xpu>(), out[0].Size(), out[0].dptr<DType>(), in[0].dptr<DType>(),
          DType(p.a), DType(p.b), DType(p.c));
    });
  });
}

// Inputs dOut, x: dx = dOut (2 a x + b).
template <typename xpu>
void QuadraticBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const QuadraticParam& p = GetParam<QuadraticParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<op_with_req<quadratic_backward, Req>, xpu>::Launch(
          ctx.get_stream<xpu>(), out[0].Size(), out[0].dptr<DType>(), in[0].dptr<DType>(),
          in[1].dptr<DType>(), DType(p.a), DType(p.b));
    });
  });
}

// out = in times `scale`: the gradient multiplier's forward (scale 1) and backward.
template <typename xpu, bool backward>
void GradientMultiplierCompute(const NodeAttrs& attrs, const OpContext& ctx,
                               const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                               const std::vector<TBlob>& out) {
  const double scale = backward ? GetParam<GradientMultiplierParam>(attrs).scalar : 1.0;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<op_with_req<scaled_copy, Req>, xpu>::Launch(ctx.get_stream<xpu>(), out[0].Size(),
                                                         out[0].dptr<DType>(), in[0].dptr<DType>(),
                                                         DType(scale));
    });
  });
}

// Adds FCompute<xpu> to the operators and their backward operators.
template <typename xpu>
void SetContribElemwiseCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_quadratic").set_attr<FCompute>(attr_name, FCompute(QuadraticCompute<xpu>));
  RegisterOp("_backward_contrib_quadratic")
      .set_attr<FCompute>(attr_name, FCompute(QuadraticBackwardCompute<xpu>));
  RegisterOp("_contrib_gradientmultiplier")
      .set_attr<FCompute>(attr_name, FCompute(GradientMultiplierCompute<xpu, false>));
  RegisterOp("_backward_contrib_gradientmultiplier")
      .set_attr<FCompute>(attr_name, FCompute(GradientMultiplierCompute<xpu, true>));
}

}  // namespace contrib
}  // namespace ops

#endif  // OPS_CONTRIB_ELEMWISE_INL_H_
