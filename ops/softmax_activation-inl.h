// ops/softmax_activation-inl.h: MXNet's SoftmaxActivation, the softmax over each instance
// (the last axis, as MXNet 1.9.1 computes it: its data flattened to 2-d keeps the last axis)
// or over the channels (axis 1) at each position. It
// runs the registered softmax operator's compute functions for the device on a reshaped view,
// so both devices get softmax's kernels. softmax_activation.cc registers the CPU,
// softmax_activation.cu adds FCompute<gpu>.
#ifndef OPS_SOFTMAX_ACTIVATION_INL_H_
#define OPS_SOFTMAX_ACTIVATION_INL_H_

#include <sstream>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"

namespace ops {
namespace softmax_activation {

enum Mode { kInstance = 0, kChannel = 1 };

struct SoftmaxActivationParam : public dmlc::Parameter<SoftmaxActivationParam> {
  int mode;
  DMLC_DECLARE_PARAMETER(SoftmaxActivationParam) {
    DMLC_DECLARE_FIELD(mode)
        .add_enum("instance", kInstance)
        .add_enum("channel", kChannel)
        .set_default(kInstance)
        .describe("instance: softmax over the last axis (MXNet 1.9.1 computes it so); "
                  "channel: over axis 1 at each position (data of rank 3 or more, as in "
                  "MXNet).");
  }
};

// The shape softmax runs on: (rest, last) with its last axis normalized, or (n, c, rest)
// with axis 1. A rank below the mode's minimum is a dmlc::Error.
inline TShape SoftmaxView(const SoftmaxActivationParam& param, const TShape& data) {
  const int least = param.mode == kInstance ? 1 : 3;
  if (data.ndim() < least) {
    std::ostringstream os;
    os << "SoftmaxActivation with mode=" << (param.mode == kInstance ? "instance" : "channel")
       << " takes data of rank " << least << " or more; the data is " << data;
    throw dmlc::Error(os.str());
  }
  if (param.mode == kInstance) {
    const index_t last = data[data.ndim() - 1];
    return TShape{data.ProdShape(0, data.ndim() - 1), last};
  }
  return TShape{data[0], data[1], data.ProdShape(2, data.ndim())};
}

// Runs the registered operator `name`'s compute function for xpu with softmax's axis.
template <typename xpu>
void RunSoftmaxOp(const char* name, int mode, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Op* op = Op::Get(name);
  const NodeAttrs attrs = ParseAttrs(op, {{"axis", mode == kInstance ? "-1" : "1"}});
  (*op->compute<xpu>())(attrs, ctx, in, req, out);
}

template <typename xpu>
void SoftmaxActivationCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const SoftmaxActivationParam& param = GetParam<SoftmaxActivationParam>(attrs);
  const TShape view = SoftmaxView(param, in[0].shape_);
  RunSoftmaxOp<xpu>("softmax", param.mode, ctx, {ReshapedBlob(in[0], view)}, req,
                    {ReshapedBlob(out[0], view)});
}

// Inputs: out_grad, output (softmax's backward inputs).
template <typename xpu>
void SoftmaxActivationBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                                      const std::vector<TBlob>& in,
                                      const std::vector<OpReqType>& req,
                                      const std::vector<TBlob>& out) {
  const SoftmaxActivationParam& param = GetParam<SoftmaxActivationParam>(attrs);
  const TShape view = SoftmaxView(param, in[1].shape_);
  RunSoftmaxOp<xpu>("_backward_softmax", param.mode, ctx,
                    {ReshapedBlob(in[0], view), ReshapedBlob(in[1], view)}, req, {ReshapedBlob(out[0], view)});
}

// Adds FCompute<xpu> to SoftmaxActivation and its backward operator.
template <typename xpu>
void SetSoftmaxActivationCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("SoftmaxActivation")
      .set_attr<FCompute>(attr_name, FCompute(SoftmaxActivationCompute<xpu>));
  RegisterOp("_backward_SoftmaxActivation")
      .set_attr<FCompute>(attr_name, FCompute(SoftmaxActivationBackwardCompute<xpu>));
}

}  // namespace softmax_activation
}  // namespace ops

#endif  // OPS_SOFTMAX_ACTIVATION_INL_H_
