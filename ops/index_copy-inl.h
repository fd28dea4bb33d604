// ops/index_copy-inl.h: MXNet 1.9.1's _contrib_index_copy (a copy of old_tensor whose rows
// index_vector names are new_tensor's rows, in order) and its backward operator, written once
// for every device.
//
// The indices (any index type, truncated toward zero) are read on the host first (a GPU's
// copied there): one outside old_tensor's rows, or a row named twice (whose result would
// depend on the order of writes), is a dmlc::Error naming it; MXNet writes past its buffer for
// the first and leaves the second to chance. Gradients: old_tensor's is the output's with the
// replaced rows zero, new_tensor's the output's rows it went to, the indices' zero.
// index_copy.cc registers them with FCompute<cpu>; index_copy.cu adds FCompute<gpu>.
#ifndef OPS_INDEX_COPY_INL_H_
#define OPS_INDEX_COPY_INL_H_

#include <sstream>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace index_copy {

// Element e of the M x R copied rows: row e / R of new goes to row index[e / R] of out; with
// `difference` (kAddTo, out already holding old) it adds new - old there instead.
struct copy_row_element {
  template <typename DType, typename IType>
  MSHADOW_XINLINE static void Map(index_t e, index_t width, const IType* index, const DType* from,
                                  const DType* old, DType* out, bool difference) {
    const index_t target = static_cast<index_t>(index[e / width]) * width + e % width;
    out[target] = difference ? out[target] + from[e] - old[target] : from[e];
  }
};

// Element e of the M x R copied rows: new's gradient, the output gradient's row index[e / R];
// and the replaced row's gradient in old's: zero (`remove` its output gradient for kAddTo).
struct row_gradient_element {
  template <typename DType, typename IType>
  MSHADOW_XINLINE static void Map(index_t e, index_t width, const IType* index,
                                  const DType* out_grad, DType* new_grad, OpReqType new_req,
                                  DType* old_grad, OpReqType old_req) {
    const index_t source = static_cast<index_t>(index[e / width]) * width + e % width;
    if (new_req != kNullOp) AssignReq(new_grad + e, out_grad[source], new_req);
    if (old_req == kAddTo) {
      old_grad[source] -= out_grad[source];
    } else if (old_req != kNullOp) {
      old_grad[source] = DType(0);
    }
  }
};

// Every index a row of old (index_t n of them) and no row twice; a dmlc::Error naming the
// first that is not.
template <typename xpu, typename IType>
void CheckRows(const TBlob& index, index_t n, mshadow::Stream<xpu>* s) {
  WithIndicesOnHost<xpu, IType>(index, s, [n](const IType* values, index_t count) {
    const index_t bad = FirstOutside(values, count, -1, static_cast<double>(n));
    std::ostringstream os;
    if (bad < count) {
      os << "index " << static_cast<double>(values[bad]) << " at position " << bad
         << " is outside old_tensor's " << n << " rows (valid: 0 to " << n - 1 << ")";
      throw dmlc::Error(os.str());
    }
    std::vector<index_t> first(static_cast<size_t>(n), -1);
    for (index_t j = 0; j < count; ++j) {
      index_t& seen = first[static_cast<index_t>(values[j])];
      if (seen >= 0) {
        os << "row " << static_cast<index_t>(values[j]) << " is named twice (positions " << seen
           << " and " << j << "); valid: distinct rows";
        throw dmlc::Error(os.str());
      }
      seen = j;
    }
  });
}

// Inputs old (N, ...), index (M), new (M, ...): out = old with rows replaced.
template <typename xpu>
void IndexCopyCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t n = in[0].shape_[0], width = n == 0 ? 0 : in[0].Size() / n;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    WithIndexType(in[1].type_flag_, [&](auto tag) {
      using IType = typename decltype(tag)::type;
      CheckRows<xpu, IType>(in[1], n, s);
      Assign(Flat<xpu, DType>(out[0], s), req[0], Flat<xpu, DType>(in[0], s));
      Kernel<copy_row_element, xpu>::Launch(s, in[2].Size(), width, in[1].dptr<IType>(),
                                            in[2].dptr<DType>(), in[0].dptr<DType>(),
                                            out[0].dptr<DType>(), req[0] == kAddTo);
    });
  });
}

// Inputs dOut, old, index, new; outputs dOld, dIndex (zero), dNew.
template <typename xpu>
void IndexCopyBackwardCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                              const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t n = in[1].shape_[0], width = n == 0 ? 0 : in[1].Size() / n;
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    WithIndexType(in[2].type_flag_, [&](auto tag) {
      using IType = typename decltype(tag)::type;
      CheckRows<xpu, IType>(in[2], n, s);
      if (req[0] != kNullOp)
        Assign(Flat<xpu, DType>(out[0], s), req[0], Flat<xpu, DType>(in[0], s));
      Kernel<row_gradient_element, xpu>::Launch(s, in[3].Size(), width, in[2].dptr<IType>(),
                                                in[0].dptr<DType>(), out[2].dptr<DType>(), req[2],
                                                out[0].dptr<DType>(), req[0]);
      WriteZeroGradient<xpu, IType>(out[1], req[1], s);
    });
  });
}

// Adds FCompute<xpu> to the operator and its backward operator.
template <typename xpu>
void SetIndexCopyCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_index_copy").set_attr<FCompute>(attr_name, FCompute(IndexCopyCompute<xpu>));
  RegisterOp("_backward_contrib_index_copy")
      .set_attr<FCompute>(attr_name, FCompute(IndexCopyBackwardCompute<xpu>));
}

}  // namespace index_copy
}  // namespace ops

#endif  // OPS_INDEX_COPY_INL_H_
