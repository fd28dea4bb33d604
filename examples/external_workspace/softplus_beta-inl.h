// softplus_beta(beta, threshold): y = log(1 + exp(beta * x)) / beta, and y = x where
// beta * x > threshold (PyTorch's Softplus), with its gradient sigmoid(beta * x). Its kernels,
// written once for both devices; softplus_beta.cc registers the operator and its CPU
// compute, softplus_beta.cu (built with --config=cuda) its GPU compute.
#ifndef SOFTPLUS_BETA_INL_H_
#define SOFTPLUS_BETA_INL_H_

#include <cmath>
#include <vector>

#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace example {

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

// The element functions, in double whatever the data's type, on the host and the GPU.
struct softplus_beta_forward {
  template <typename DType>
  MSHADOW_XINLINE static double Map(DType x, double beta, double threshold) {
    const double z = beta * static_cast<double>(x);
    return z > threshold ? static_cast<double>(x) : ::log1p(::exp(z)) / beta;
  }
};

struct softplus_beta_backward {
  template <typename DType>
  MSHADOW_XINLINE static double Map(DType out_grad, DType x, double beta, double threshold) {
    const double z = beta * static_cast<double>(x);
    return static_cast<double>(out_grad) * (z > threshold ? 1.0 : 1.0 / (1.0 + ::exp(-z)));
  }
};

template <typename xpu>
void SoftplusBetaCompute(const ops::NodeAttrs& attrs, const ops::OpContext& ctx,
                         const std::vector<ops::TBlob>& in, const std::vector<ops::OpReqType>& req,
                         const std::vector<ops::TBlob>& out) {
  const auto& param = ops::GetParam<SoftplusBetaParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      ops::Kernel<ops::op_with_req<softplus_beta_forward, Req>, xpu>::Launch(
          ctx.get_stream<xpu>(), out[0].Size(), out[0].dptr<DType>(), in[0].dptr<DType>(),
          param.beta, param.threshold);
    });
  });
}

// Inputs (as the registration's FGradient says): the output's gradient, then the input.
template <typename xpu>
void SoftplusBetaBackwardCompute(const ops::NodeAttrs& attrs, const ops::OpContext& ctx,
                                 const std::vector<ops::TBlob>& in,
                                 const std::vector<ops::OpReqType>& req,
                                 const std::vector<ops::TBlob>& out) {
  const auto& param = ops::GetParam<SoftplusBetaParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      ops::Kernel<ops::op_with_req<softplus_beta_backward, Req>, xpu>::Launch(
          ctx.get_stream<xpu>(), out[0].Size(), out[0].dptr<DType>(), in[0].dptr<DType>(),
          in[1].dptr<DType>(), param.beta, param.threshold);
    });
  });
}

}  // namespace example

#endif  // SOFTPLUS_BETA_INL_H_
