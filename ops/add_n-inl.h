// ops/add_n-inl.h: add_n (alias ElementWiseSum), the sum of num_args arrays of one shape, and
// its backward operator (each input's gradient is the output gradient), written once for
// every device through the engine's elementwise evaluation. add_n.cc registers the CPU,
// add_n.cu adds FCompute<gpu>.
#ifndef OPS_ADD_N_INL_H_
#define OPS_ADD_N_INL_H_

#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"

namespace ops {
namespace add_n {

struct AddNParam : public dmlc::Parameter<AddNParam> {
  int num_args;
  DMLC_DECLARE_PARAMETER(AddNParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of inputs.");
  }
};

// out (as req says) = the first two inputs' sum (or the first), then each further one added.
template <typename xpu>
void AddNCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto y = Flat<xpu, DType>(out[0], s);
    size_t next = 1;
    if (in.size() == 1) {
      Assign(y, req[0], mshadow::expr::F<mshadow::op::identity>(Flat<xpu, DType>(in[0], s)));
    } else {
      Assign(y, req[0], Flat<xpu, DType>(in[0], s) + Flat<xpu, DType>(in[1], s));
      next = 2;
    }
    for (size_t k = next; k < in.size(); ++k) {
      Assign(y, kAddTo, mshadow::expr::F<mshadow::op::identity>(Flat<xpu, DType>(in[k], s)));
    }
  });
}

// Inputs: out_grad. Outputs: one gradient per input, each the output gradient.
template <typename xpu>
void AddNBackwardCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    for (size_t k = 0; k < out.size(); ++k) {
      Assign(Flat<xpu, DType>(out[k], s), req[k],
             mshadow::expr::F<mshadow::op::identity>(Flat<xpu, DType>(in[0], s)));
    }
  });
}

// Adds FCompute<xpu> to add_n and _backward_add_n.
template <typename xpu>
void SetAddNCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("add_n").set_attr<FCompute>(attr_name, FCompute(AddNCompute<xpu>));
  RegisterOp("_backward_add_n").set_attr<FCompute>(attr_name, FCompute(AddNBackwardCompute<xpu>));
}

}  // namespace add_n
}  // namespace ops

#endif  // OPS_ADD_N_INL_H_
