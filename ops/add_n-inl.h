// ops/add_n-inl.h: add_n (alias ElementWiseSum), the sum of num_args arrays of one shape, and
// its backward operator (each input's gradient is the output gradient), written once for
// every device through the engine's elementwise evaluation. add_n.cc registers the CPU,
// add_n.cu adds FCompute<gpu>.
#ifndef OPS_ADD_N_INL_H_
#define OPS_ADD_N_INL_H_

#include <algorithm>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace add_n {

struct AddNParam : public dmlc::Parameter<AddNParam> {
  int num_args;
  DMLC_DECLARE_PARAMETER(AddNParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of inputs.");
  }
};

// fn(start + in[first] + ... + in[first + count - 1]) as one expression added left to right,
// count 0 to 3.
template <typename xpu, typename DType, typename Fn>
void WithSumOf(const mshadow::Tensor<xpu, 1, DType>& start, const std::vector<TBlob>& in,
               size_t first, size_t count, mshadow::Stream<xpu>* s, Fn&& fn) {
  auto x = [&](size_t k) { return Flat<xpu, DType>(in[first + k], s); };
  switch (count) {
    case 0:
      return fn(start);
    case 1:
      return fn(start + x(0));
    case 2:
      return fn(start + x(0) + x(1));
    default:
      return fn(start + x(0) + x(1) + x(2));
  }
}

// out (as req says) = in[0] + in[1] + ..., added left to right as MXNet does: four inputs in
// the first pass over memory, three more and the partial sum in each further one. (A pass
// per input had run at 0.8 of MXNet's speed on four.)
template <typename xpu>
void AddNCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto y = Flat<xpu, DType>(out[0], s);
    const size_t first = std::min<size_t>(in.size(), 4);
    WithSumOf(Flat<xpu, DType>(in[0], s), in, 1, first - 1, s,
              [&](const auto& sum) { Assign(y, req[0], sum); });
    for (size_t k = first; k < in.size(); k += 3) {
      WithSumOf(y, in, k, std::min<size_t>(in.size() - k, 3), s,
                [&](const auto& sum) { Assign(y, kWriteTo, sum); });
    }
  });
}

// Inputs: out_grad. Outputs: one gradient per input, each the output gradient.
template <typename xpu>
void AddNBackwardCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    if constexpr (std::is_same_v<xpu, cpu>) {
      std::vector<DType*> grads;
      for (const TBlob& g : out) grads.push_back(g.dptr<DType>());
      CopyToEach(in[0].dptr<DType>(), static_cast<index_t>(in[0].Size()), grads, req);
    } else {
      for (size_t k = 0; k < out.size(); ++k) {
        Assign(Flat<xpu, DType>(out[k], s), req[k],
               mshadow::expr::F<mshadow::op::identity>(Flat<xpu, DType>(in[0], s)));
      }
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
