// ops/concat-inl.h: Concat(dim, num_args), _rnn_param_concat and their backward operators,
// written once for every device as copies of contiguous runs (CopyRows). concat.cc registers
// them with FCompute<cpu>, concat.cu adds FCompute<gpu>.
#ifndef OPS_CONCAT_INL_H_
#define OPS_CONCAT_INL_H_

#include <string>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/copy_rows.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"

namespace ops {
namespace concat {

struct ConcatParam : public dmlc::Parameter<ConcatParam> {
  int num_args;
  int dim;
  DMLC_DECLARE_PARAMETER(ConcatParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of inputs.");
    DMLC_DECLARE_FIELD(dim).set_default(1).describe("The axis to join along.");
  }
};

// Copies between the parts (the inputs, or their gradients) and the joined array, viewed as
// (outer, extent * inner) rows: each part's row is one contiguous run in both. kSplit: from
// the joined array into the parts.
template <bool kSplit, typename xpu>
void ConcatCopy(const NodeAttrs& attrs, mshadow::Stream<xpu>* s, const std::vector<TBlob>& parts,
                const TBlob& joined, const std::vector<OpReqType>& req) {
  const int axis = NormalizeAxis(GetParam<ConcatParam>(attrs).dim, joined.ndim(), "dim");
  const index_t outer = joined.shape_.ProdShape(0, axis);
  const index_t inner = joined.shape_.ProdShape(axis + 1, joined.ndim());
  const index_t joined_row = joined.shape_[axis] * inner;
  MSHADOW_SGL_DBL_TYPE_SWITCH(joined.type_flag_, DType, {
    index_t column = 0;
    for (size_t p = 0; p < parts.size(); ++p) {
      const index_t run = parts[p].shape_[axis] * inner;
      auto in_joined = RowsView(joined.dptr<DType>() + column, outer, run, joined_row, s);
      auto part = RowsView(parts[p].dptr<DType>(), outer, run, run, s);
      if (kSplit) {
        CopyRows(part, req[p], in_joined);
      } else {
        CopyRows(in_joined, req[0], part);
      }
      column += run;
    }
  });
}

template <typename xpu>
void ConcatCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  ConcatCopy<false>(attrs, ctx.get_stream<xpu>(), in, out[0], req);
}

// Inputs: out_grad. Outputs: one gradient per input.
template <typename xpu>
void ConcatBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  ConcatCopy<true>(attrs, ctx.get_stream<xpu>(), out, in[0], req);
}

// Adds FCompute<xpu> to Concat, _rnn_param_concat and their backward operators.
template <typename xpu>
void SetConcatCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  for (const char* name : {"Concat", "_rnn_param_concat"}) {
    RegisterOp(name).set_attr<FCompute>(attr_name, FCompute(ConcatCompute<xpu>));
    RegisterOp(std::string("_backward_") + name)
        .set_attr<FCompute>(attr_name, FCompute(ConcatBackwardCompute<xpu>));
  }
}

}  // namespace concat
}  // namespace ops

#endif  // OPS_CONCAT_INL_H_
