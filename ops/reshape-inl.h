// ops/reshape-inl.h: the computation of Reshape, Flatten, expand_dims, squeeze, _copy,
// reshape_like and their backward operators (_backward_copy, _backward_reshape_like), written
// once for every device: a copy of the elements (nothing when in place). reshape.cc registers them
// with FCompute<cpu>, reshape.cu adds FCompute<gpu>.
#ifndef OPS_RESHAPE_INL_H_
#define OPS_RESHAPE_INL_H_

#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"

namespace ops {
namespace reshape {

// out = in, element for element, whatever the two shapes (same size).
template <typename xpu>
void CopyCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kWriteInplace && in[0].dptr_ == out[0].dptr_) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    Assign(Flat<xpu, DType>(out[0], s), req[0],
           mshadow::expr::F<mshadow::op::identity>(Flat<xpu, DType>(in[0], s)));
  });
}

// reshape_like's gradient: lhs's, the output gradient copied; rhs's (it gives only a
// shape), zero. Inputs: out_grad, lhs, rhs.
template <typename xpu>
void ReshapeLikeBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  CopyCompute<xpu>(attrs, ctx, {in[0]}, {req[0]}, {out[0]});
  ZeroGradientCompute<xpu>(attrs, ctx, {}, {req[1]}, {out[1]});
}

// Adds FCompute<xpu> to the copying operators and _backward_copy.
template <typename xpu>
void SetCopyCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  for (const char* name : {"Reshape", "Flatten", "expand_dims", "squeeze", "_copy", "reshape_like",
                           "_backward_copy"}) {
    RegisterOp(name).set_attr<FCompute>(attr_name, FCompute(CopyCompute<xpu>));
  }
  RegisterOp("_backward_reshape_like")
      .set_attr<FCompute>(attr_name, FCompute(ReshapeLikeBackward<xpu>));
}

}  // namespace reshape
}  // namespace ops

#endif  // OPS_RESHAPE_INL_H_
