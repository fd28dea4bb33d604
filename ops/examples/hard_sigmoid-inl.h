// The worked example of docs/writing_an_operator.md: hard_sigmoid(alpha, beta), a piecewise
// linear sigmoid: y = min(max(alpha * x + beta, 0), 1). Its kernels, written once for every
// device; hard_sigmoid.cc registers the operator for the CPU, hard_sigmoid.cu for the GPU.
#ifndef OPS_EXAMPLES_HARD_SIGMOID_INL_H_
#define OPS_EXAMPLES_HARD_SIGMOID_INL_H_

#include <vector>

#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace examples {

// 1. The parameters, declared once: parsing, defaults, ranges, docs and errors come free.
struct HardSigmoidParam : public dmlc::Parameter<HardSigmoidParam> {
  float alpha;
  float beta;
  DMLC_DECLARE_PARAMETER(HardSigmoidParam) {
    DMLC_DECLARE_FIELD(alpha).set_default(0.2f).describe("Slope (any sign, as in MXNet).");
    DMLC_DECLARE_FIELD(beta).set_default(0.5f).describe("Offset.");
  }
};

// 2. The element functions, callable on the host and on the GPU (MSHADOW_XINLINE).
struct hard_sigmoid_forward {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType x, DType alpha, DType beta) {
    const DType z = alpha * x + beta;
    return z < DType(0) ? DType(0) : (z > DType(1) ? DType(1) : z);
  }
};

// The input's gradient from the output's gradient and the input.
struct hard_sigmoid_backward {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType out_grad, DType x, DType alpha, DType beta) {
    const DType z = alpha * x + beta;
    return (z > DType(0) && z < DType(1)) ? out_grad * alpha : DType(0);
  }
};

// 3. The compute functions for any device: one kernel launch over every element, the
// output's request (OpReqType) folded into the kernel.
template <typename xpu>
void HardSigmoidCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const HardSigmoidParam& param = GetParam<HardSigmoidParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<op_with_req<hard_sigmoid_forward, Req>, xpu>::Launch(
          ctx.get_stream<xpu>(), out[0].Size(), out[0].dptr<DType>(), in[0].dptr<DType>(),
          DType(param.alpha), DType(param.beta));
    });
  });
}

// Inputs (as the registration's FGradient says): the output's gradient, then the forward
// input. Output: the input's gradient.
template <typename xpu>
void HardSigmoidBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                                const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                const std::vector<TBlob>& out) {
  const HardSigmoidParam& param = GetParam<HardSigmoidParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<op_with_req<hard_sigmoid_backward, Req>, xpu>::Launch(
          ctx.get_stream<xpu>(), out[0].Size(), out[0].dptr<DType>(), in[0].dptr<DType>(),
          in[1].dptr<DType>(), DType(param.alpha), DType(param.beta));
    });
  });
}

}  // namespace examples
}  // namespace ops

#endif  // OPS_EXAMPLES_HARD_SIGMOID_INL_H_
