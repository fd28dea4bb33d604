// FCompute<gpu> of Convolution: cuDNN's algorithms (ops/cudnn_convolution.h), or with
// cudnn_off, or for a shape cuDNN cannot take, the device-generic im2col path of
// convolution-inl.h.
#include <algorithm>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/convolution-inl.h"
#include "ops/cudnn_convolution.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace convolution {
namespace {

// The cuDNN plan for a call on `data`, or null for the im2col path.
const cudnn::ConvolutionPlan* PlanFor(const ConvolutionParam& param, const TShape& data,
                                      int type_flag, mshadow::Stream<gpu>* stream) {
  if (param.cudnn_off) return nullptr;
  return cudnn::PlanConvolution(stream, Geometry(param, data), data[0], param.num_filter,
                                param.num_group, type_flag, param.workspace);
}

void ConvolutionComputeGpu(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const ConvolutionParam& param = GetParam<ConvolutionParam>(attrs);
  mshadow::Stream<gpu>* stream = ctx.get_stream<gpu>();
  const cudnn::ConvolutionPlan* plan = PlanFor(param, in[0].shape_, out[0].type_flag_, stream);
  if (plan == nullptr) return ConvolutionCompute<gpu>(attrs, ctx, in, req, out);
  cudnn::Forward(stream, *plan, in[0].dptr_, in[1].dptr_, param.no_bias ? nullptr : in[2].dptr_,
                 out[0].dptr_, req[0] == kAddTo,
                 TempBytes(ctx, cudnn::ForwardWorkspace(*plan), stream));
}

void ConvolutionBackwardComputeGpu(const NodeAttrs& attrs, const OpContext& ctx,
                                   const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                   const std::vector<TBlob>& out) {
  const ConvolutionParam& param = GetParam<ConvolutionParam>(attrs);
  mshadow::Stream<gpu>* stream = ctx.get_stream<gpu>();
  const cudnn::ConvolutionPlan* plan = PlanFor(param, in[1].shape_, in[0].type_flag_, stream);
  if (plan == nullptr) return ConvolutionBackwardCompute<gpu>(attrs, ctx, in, req, out);
  // One workspace serves both products: they run one after the other on the stream.
  size_t bytes = 0;
  if (req[0] != kNullOp) bytes = cudnn::BackwardDataWorkspace(*plan);
  if (req[1] != kNullOp) bytes = std::max(bytes, cudnn::BackwardFilterWorkspace(*plan));
  void* workspace = TempBytes(ctx, bytes, stream);
  if (req[0] != kNullOp) {
    cudnn::BackwardData(stream, *plan, in[2].dptr_, in[0].dptr_, out[0].dptr_, req[0] == kAddTo,
                        workspace);
  }
  if (req[1] != kNullOp) {
    cudnn::BackwardFilter(stream, *plan, in[1].dptr_, in[0].dptr_, out[1].dptr_, req[1] == kAddTo,
                          workspace);
  }
  if (!param.no_bias) BiasGradient<gpu>(stream, in[0], req[2], out[2]);
}

const bool kRegistered = [] {
  const char* attr_name = ComputeAttrName<gpu>();
  RegisterOp("Convolution").set_attr<FCompute>(attr_name, FCompute(ConvolutionComputeGpu));
  RegisterOp("_backward_Convolution")
      .set_attr<FCompute>(attr_name, FCompute(ConvolutionBackwardComputeGpu));
  return true;
}();

}  // namespace
}  // namespace convolution
}  // namespace ops
