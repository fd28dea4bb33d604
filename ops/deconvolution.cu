// FCompute<gpu> of Deconvolution: cuDNN's products of the equivalent convolution
// (ops/cudnn_convolution.h; the one Geometry in deconvolution-inl.h describes, from the
// deconvolution's output to its data), or with cudnn_off, or for a shape cuDNN cannot take, the
// device-generic im2col path of deconvolution-inl.h. With that convolution's roles:
//   output         = its data gradient (of the deconvolution's data, through the weight)
//   data gradient  = its forward (of the output gradient)
//   weight gradient = its weight gradient (for data = the output gradient, dy = the data).
#include <algorithm>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/cudnn_convolution.h"
#include "ops/deconvolution-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace deconvolution {
namespace {

// The cuDNN plan of the equivalent convolution for a call on `data`, or null for im2col.
const cudnn::ConvolutionPlan* PlanFor(const DeconvolutionParam& param, const TShape& data,
                                      int type_flag, mshadow::Stream<gpu>* stream) {
  if (param.cudnn_off) return nullptr;
  // The convolution's filters are the deconvolution's data channels.
  return cudnn::PlanConvolution(stream, Geometry(param, data), data[0], data[1], param.num_group,
                                type_flag, param.workspace);
}

void DeconvolutionComputeGpu(const NodeAttrs& attrs, const OpContext& ctx,
                             const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                             const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const DeconvolutionParam& param = GetParam<DeconvolutionParam>(attrs);
  mshadow::Stream<gpu>* stream = ctx.get_stream<gpu>();
  const cudnn::ConvolutionPlan* plan = PlanFor(param, in[0].shape_, out[0].type_flag_, stream);
  if (plan == nullptr) return Deconvolve<gpu>(param, ctx, in, req, out);
  cudnn::BackwardData(stream, *plan, in[1].dptr_, in[0].dptr_, out[0].dptr_, req[0] == kAddTo,
                      TempBytes(ctx, cudnn::BackwardDataWorkspace(*plan), stream));
  if (param.no_bias) return;
  const TShape& s = out[0].shape_;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto y = out[0].get_with_shape<gpu, 3, DType>(
        mshadow::Shape3(s[0], s[1], s.ProdShape(2, s.ndim())), stream);
    y += mshadow::expr::broadcast<1>(in[2].get<gpu, 1, DType>(stream), y.shape_);
  });
}

void DeconvolutionBackwardComputeGpu(const NodeAttrs& attrs, const OpContext& ctx,
                                     const std::vector<TBlob>& in,
                                     const std::vector<OpReqType>& req,
                                     const std::vector<TBlob>& out) {
  const DeconvolutionParam& param = GetParam<DeconvolutionParam>(attrs);
  mshadow::Stream<gpu>* stream = ctx.get_stream<gpu>();
  const cudnn::ConvolutionPlan* plan = PlanFor(param, in[1].shape_, in[0].type_flag_, stream);
  if (plan == nullptr) return DeconvolveBackward<gpu>(param, ctx, in, req, out);
  // One workspace serves both products: they run one after the other on the stream.
  size_t bytes = 0;
  if (req[0] != kNullOp) bytes = cudnn::ForwardWorkspace(*plan);
  if (req[1] != kNullOp) bytes = std::max(bytes, cudnn::BackwardFilterWorkspace(*plan));
  void* workspace = TempBytes(ctx, bytes, stream);
  if (req[0] != kNullOp) {
    cudnn::Forward(stream, *plan, in[0].dptr_, in[2].dptr_, nullptr, out[0].dptr_, req[0] == kAddTo,
                   workspace);
  }
  if (req[1] != kNullOp) {
    cudnn::BackwardFilter(stream, *plan, in[0].dptr_, in[1].dptr_, out[1].dptr_, req[1] == kAddTo,
                          workspace);
  }
  if (!param.no_bias) BiasGradient<gpu>(stream, in[0], req[2], out[2]);
}

const bool kRegistered = [] {
  const char* attr_name = ComputeAttrName<gpu>();
  RegisterOp("Deconvolution").set_attr<FCompute>(attr_name, FCompute(DeconvolutionComputeGpu));
  RegisterOp("_backward_Deconvolution")
      .set_attr<FCompute>(attr_name, FCompute(DeconvolutionBackwardComputeGpu));
  return true;
}();

}  // namespace
}  // namespace deconvolution
}  // namespace ops
