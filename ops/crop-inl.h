// ops/crop-inl.h: MXNet 1.9.1's Crop (deprecated there for slice, kept for the networks that
// use it, FCN's crop_like first), written once for every device. Images (N, C, H, W) are cut
// to a window of (h, w) at an offset: h_w, or the height and width of a second input
// (crop_like), at `offset` or centred. The window is a strided view of the images: the
// forward gathers it, the gradient scatters the output gradient back into zeros (crop_like
// gets zeros). crop.cc registers it with FCompute<cpu>; crop.cu adds FCompute<gpu>.
#ifndef OPS_CROP_INL_H_
#define OPS_CROP_INL_H_

#include <type_traits>
#include <vector>

#include "mshadow/streaming_stores.h"
#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"
#include "ops/pad-inl.h"
#include "ops/strided_copy.h"

namespace ops {
namespace crop {

struct CropParam : public dmlc::Parameter<CropParam> {
  int num_args;
  TShape offset;
  TShape h_w;
  bool center_crop;
  DMLC_DECLARE_PARAMETER(CropParam) {
    DMLC_DECLARE_FIELD(num_args).set_range(1, 2).describe(
        "Inputs: 1, the window's size is h_w; 2, it is the height and width of the second "
        "input, crop_like.");
    DMLC_DECLARE_FIELD(offset)
        .set_default(TShape{0, 0})
        .describe("The window's top-left corner, (y, x), unless center_crop.");
    DMLC_DECLARE_FIELD(h_w)
        .set_default(TShape{0, 0})
        .describe("The window's height and width, (h, w), with one input.");
    DMLC_DECLARE_FIELD(center_crop)
        .set_default(false)
        .describe("Centre the window (corner ((H - h) / 2, (W - w) / 2)) instead of `offset`.");
  }
};

// The window of images `data` (N, C, H, W): its shape (N, C, h, w) and where it starts in the
// images; a dmlc::Error for data of another rank, or a window that does not fit.
struct Window {
  TShape shape;
  index_t y = 0, x = 0;
};
Window WindowOf(const CropParam& param, const TShape& data, const TShape& crop_like);

// The window as a view of the images: (N, C, h, w) read with the images' strides.
inline StridedIndex<1> WindowView(const Window& window, const TShape& data) {
  const index_t width = data[3], plane = data[2] * width;
  return StridedIndex<1>::Of({window.shape[0], window.shape[1], window.shape[2], window.shape[3]},
                             {{{data[1] * plane, plane, width, 1}}});
}

// The window as Pad's constant mode sees it: the window (N, C, h, w) padded on its last two
// axes to the images (N, C, H, W).
inline pad::PadGeometry AsPadding(const Window& window, const TShape& data) {
  pad::PadGeometry g;
  g.ndim = 4;
  for (int d = 0; d < 4; ++d) {
    g.in[d] = window.shape[d];
    g.out[d] = data[d];
  }
  g.before[2] = window.y;
  g.before[3] = window.x;
  g.after[2] = data[2] - window.y - window.shape[2];
  g.after[3] = data[3] - window.x - window.shape[3];
  return g;
}

// Whether the CPU writes `bytes` of window rows (or of images around them) by streaming
// stores: from the threshold of the kernels that write several output lines at once
// (mshadow::TileStreamingStoreMinBytes()), as CopyToEach. Against the engine's rule for maps,
// which kept the benchmark's 75 MB window in cached stores, that halved the forward's time
// (docs/benchmarks.md, seventy-eighth session).
template <typename DType>
bool StreamsWindowRows(index_t elements) {
  return elements * static_cast<index_t>(sizeof(DType)) >= mshadow::TileStreamingStoreMinBytes();
}

// The CPU's overwritten gradient, written as Pad's forward writes its output (AsPadding):
// each plane front to back, zeros around the window's rows. Zeroed first and scattered into
// after, the images' gradient had been written twice (docs/benchmarks.md, seventy-eighth
// session). Windows of at least one element.
template <typename DType>
void WriteGradientOnCpu(mshadow::Stream<cpu>* s, const Window& window, const TShape& data,
                        DType* grad, const DType* out_grad) {
  const pad::PadGeometry g = AsPadding(window, data);
  const index_t planes = data[0] * data[1], plane = data[2] * data[3];
  pad::WithStreamingStores(StreamsWindowRows<DType>(planes * plane), [&](auto streaming) {
    Kernel<pad::pad_forward_constant_plane<decltype(streaming)::value>, cpu>::LaunchItems(
        s, planes, plane, grad, out_grad, g, DType(0));
  });
}

// The CPU's overwritten forward where StreamsWindowRows, as Pad's gradient reads its window:
// a window row at a time, by streaming stores; false elsewhere (the strided gather's cached
// stores there).
template <int kReq, typename DType>
bool StreamWindowOnCpu(mshadow::Stream<cpu>* s, const Window& window, const TShape& data,
                       DType* out, const DType* images) {
  const index_t window_plane = window.shape[2] * window.shape[3];
  const index_t planes = data[0] * data[1];
  if (kReq == kAddTo || window_plane == 0 || !StreamsWindowRows<DType>(planes * window_plane)) {
    return false;
  }
  Kernel<pad::pad_backward_constant_plane<kReq, true>, cpu>::LaunchItems(
      s, planes, window_plane, out, images, AsPadding(window, data));
  mshadow::FenceStreamingStores();  // this thread's part (ParallelFor fences its workers)
  return true;
}

// Forward: the window of in[0] into out[0]. Backward (inputs: the output gradient; outputs:
// the images' gradient and, with two inputs, crop_like's zeros): the output gradient written
// into the window, zeros around it.
template <typename xpu, bool kBackward>
void CropCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const CropParam& param = GetParam<CropParam>(attrs);
  const TBlob& images = kBackward ? out[0] : in[0];
  const TShape crop_like = param.num_args == 2 ? (kBackward ? out[1] : in[1]).shape_ : TShape();
  const Window window = WindowOf(param, images.shape_, crop_like);
  const index_t base = window.y * images.shape_[3] + window.x;
  const auto view = WindowView(window, images.shape_);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    if constexpr (kBackward) {
      if (param.num_args == 2) WriteZeroGradient<xpu, DType>(out[1], req[1], s);
    }
    if (req[0] == kNullOp) return;
    OPS_REQ_SWITCH(req[0], Req, {
      if constexpr (std::is_same_v<xpu, cpu>) {
        if constexpr (kBackward) {
          if (Req != kAddTo && window.shape.Size() > 0) {
            return WriteGradientOnCpu(s, window, images.shape_, out[0].dptr<DType>(),
                                      in[0].dptr<DType>());
          }
        } else if (StreamWindowOnCpu<Req>(s, window, images.shape_, out[0].dptr<DType>(),
                                          in[0].dptr<DType>())) {
          return;
        }
      }
      if constexpr (kBackward) {
        WriteZeroGradient<xpu, DType>(out[0], req[0], s);
        StridedScatter<Req>(s, out[0].dptr<DType>(), in[0].dptr<DType>(), base, view);
      } else {
        StridedGather<Req>(s, out[0].dptr<DType>(), in[0].dptr<DType>(), base, view);
      }
    });
  });
}

// Adds FCompute<xpu> to Crop and _backward_Crop.
template <typename xpu>
void SetCropCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("Crop").set_attr<FCompute>(attr_name, FCompute(CropCompute<xpu, false>));
  RegisterOp("_backward_Crop").set_attr<FCompute>(attr_name, FCompute(CropCompute<xpu, true>));
}

}  // namespace crop
}  // namespace ops

#endif  // OPS_CROP_INL_H_
