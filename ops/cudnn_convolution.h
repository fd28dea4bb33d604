// ops/cudnn_convolution.h: Convolution's three products on the GPU through cuDNN (the
// forward, the data gradient and the weight gradient), for convolution.cu. Built with
// --config=cuda only.
//
//   const cudnn::ConvolutionPlan* plan =
//       cudnn::PlanConvolution(stream, g, batch, filters, groups, type_flag, workspace_mib);
//   if (plan == nullptr) { ...the device-generic im2col path... }
//   cudnn::Forward(stream, *plan, x, w, y, /*accumulate=*/false, workspace);
//
// A plan holds cuDNN's descriptors and the algorithm cuDNN's heuristics rank first for each
// product among those whose workspace fits the limit, with float32 computed in float32 (FMA
// math: no TF32, as cuBLAS here). Plans are made once per shape and device and kept for the
// process's life; they are read-only, so threads share them. Each host thread has its own
// cuDNN handle per device, set to the call's stream.
#ifndef OPS_CUDNN_CONVOLUTION_H_
#define OPS_CUDNN_CONVOLUTION_H_

#include <cstddef>
#include <cstdint>

#include "mshadow/cuda/stream.h"
#include "ops/conv_geometry.h"

namespace ops {
namespace cudnn {

class ConvolutionPlan;

// The plan for a convolution of geometry `g` (batch images, `filters` output channels in
// `groups` groups, float32 or float64) on the current device, with workspaces of at most
// `workspace_mib` MiB (MXNet's workspace parameter), made on the first call and kept. Null
// where cuDNN's 32-bit extents or element counts cannot hold the shape, or where cuDNN offers
// no algorithm for one of the three products within the limit: the caller then takes the
// im2col path.
const ConvolutionPlan* PlanConvolution(mshadow::Stream<mshadow::gpu>* stream, const ConvGeometry& g,
                                       index_t batch, index_t filters, index_t groups,
                                       int type_flag, uint64_t workspace_mib);

// Workspace bytes of each product under `plan`.
size_t ForwardWorkspace(const ConvolutionPlan& plan);
size_t BackwardDataWorkspace(const ConvolutionPlan& plan);
size_t BackwardFilterWorkspace(const ConvolutionPlan& plan);

// y = conv(x, w) (+ bias where bias is not null); with `accumulate`, added to y instead.
void Forward(mshadow::Stream<mshadow::gpu>* stream, const ConvolutionPlan& plan, const void* x,
             const void* w, const void* bias, void* y, bool accumulate, void* workspace);
// dx = the data gradient of dy through w; with `accumulate`, added to dx.
void BackwardData(mshadow::Stream<mshadow::gpu>* stream, const ConvolutionPlan& plan, const void* w,
                  const void* dy, void* dx, bool accumulate, void* workspace);
// dw = the weight gradient of dy for data x; with `accumulate`, added to dw.
void BackwardFilter(mshadow::Stream<mshadow::gpu>* stream, const ConvolutionPlan& plan,
                    const void* x, const void* dy, void* dw, bool accumulate, void* workspace);

}  // namespace cudnn
}  // namespace ops

#endif  // OPS_CUDNN_CONVOLUTION_H_
