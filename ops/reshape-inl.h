// ops/reshape-inl.h: the computation of Reshape, Flatten, expand_dims, squeeze, _copy and their
// shared backward operator
// _backward_copy, written once for every device: a copy of the elements (nothing when in
// place). reshape.cc registers them with FCompute<cpu>, reshape.cu adds FCompute<gpu>.
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

// Adds FCompute<xpu> to the copying operators and _backward_copy.
template <typename xpu>
void SetCopyCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  for (const char* name :
       {"Reshape", "Flatten", "expand_dims", "squeeze", "_copy", "_backward_copy"}) {
    RegisterOp(name).set_attr<FCompute>(attr_name, FCompute(CopyCompute<xpu>));
  }
}

}  // namespace reshape
}  // namespace ops

#endif  // OPS_RESHAPE_INL_H_
