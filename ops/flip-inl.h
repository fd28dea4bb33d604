// ops/flip-inl.h: reverse (alias flip), the input with the given axes reversed, written once
// for every device: each output element reads the input through strides that are negative on
// the reversed axes. Its gradient is the same reversal of the output gradient. flip.cc
// registers the CPU, flip.cu adds FCompute<gpu>.
#ifndef OPS_FLIP_INL_H_
#define OPS_FLIP_INL_H_

#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/strided_copy.h"
#include "ops/strided_index.h"

namespace ops {
namespace flip {

struct FlipParam : public dmlc::Parameter<FlipParam> {
  TShape axis;
  DMLC_DECLARE_PARAMETER(FlipParam) {
    DMLC_DECLARE_FIELD(axis).describe("The axes to reverse (negative counts from the end).");
  }
};

// Which axes of a rank-`ndim` input are reversed; a bad axis is a dmlc::Error. An axis given
// twice is reversed once, as in MXNet.
inline std::vector<bool> FlippedAxes(const FlipParam& param, int ndim) {
  std::vector<bool> flipped(ndim, false);
  for (const index_t a : param.axis) flipped[NormalizeAxis(a, ndim)] = true;
  return flipped;
}

// Inputs: data (forward) or out_grad (backward): both reverse the same axes.
template <typename xpu>
void FlipCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& shape = in[0].shape_;
  const std::vector<bool> flipped = FlippedAxes(GetParam<FlipParam>(attrs), shape.ndim());
  std::vector<index_t> strides = RowMajorStrides(shape);
  index_t base = 0;
  for (int d = 0; d < shape.ndim(); ++d) {
    if (!flipped[d]) continue;
    base += (shape[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  const auto at = StridedIndex<1>::Of(std::vector<index_t>(shape.begin(), shape.end()), {strides});
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      StridedGather<Req>(ctx.get_stream<xpu>(), out[0].dptr<DType>(), in[0].dptr<DType>(), base,
                         at);
    });
  });
}

// Adds FCompute<xpu> to reverse and _backward_reverse.
template <typename xpu>
void SetFlipCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("reverse").set_attr<FCompute>(attr_name, FCompute(FlipCompute<xpu>));
  RegisterOp("_backward_reverse").set_attr<FCompute>(attr_name, FCompute(FlipCompute<xpu>));
}

}  // namespace flip
}  // namespace ops

#endif  // OPS_FLIP_INL_H_
