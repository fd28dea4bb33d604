// ops/roi_pooling-inl.h: ROIPooling, Fast R-CNN's region-of-interest max pooling as MXNet
// 1.9.1 has it, written once for every device. Each region [batch_index, x1, y1, x2, y2] is
// scaled by spatial_scale, rounded to whole positions and cut into pooled_size bins (a bin's
// edges the floor and ceiling of its share, so bins may overlap or be empty); each bin's
// output is its maximum (0 for an empty bin) and the hidden second output the maximum's
// position in its plane (-1 for none), which the gradient adds the output gradient back to.
// roi_pooling.cc registers it with FCompute<cpu>; roi_pooling.cu adds FCompute<gpu>.
//
// A region whose batch index is not an image of the batch (negative, as detection code pads
// with, too large, or NaN) or whose corners are not finite pools nothing: its outputs are 0
// and it gets no gradient. (MXNet's GPU kernel does so for negative indices; its CPU kernel
// reads outside the data for indices past the batch.) The bins are computed in float for
// every data type, as MXNet's float32 build computes them.
#ifndef OPS_ROI_POOLING_INL_H_
#define OPS_ROI_POOLING_INL_H_

#include <cmath>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace roi_pooling {

struct ROIPoolingParam : public dmlc::Parameter<ROIPoolingParam> {
  TShape pooled_size;
  float spatial_scale;
  DMLC_DECLARE_PARAMETER(ROIPoolingParam) {
    DMLC_DECLARE_FIELD(pooled_size)
        .describe("The output's (height, width): bins per region, both positive.");
    DMLC_DECLARE_FIELD(spatial_scale)
        .set_range(0.0f, 1.0f)
        .describe(
            "The feature map's size over the image's (the reciprocal of the network's "
            "total stride); the regions' corners are multiplied by it.");
  }
};

// The data (N, C, H, W) and the output (R, C, PH, PW) of R regions.
struct RoiGeometry {
  index_t batch, channels, height, width, regions, pooled_h, pooled_w;
  float spatial_scale;
};

// Region r's rows [h_begin, h_end) and columns [w_begin, w_end) of image `image` for bin (ph,
// pw), or false where the region pools nothing (see the file's comment).
struct RoiBin {
  index_t image, h_begin, h_end, w_begin, w_end;
};

// A corner scaled in float and rounded half away from zero (MXNet's float32 round), kept
// within +-2^40 so that no later integer conversion overflows.
template <typename DType>
MSHADOW_XINLINE index_t ScaledCorner(DType value, float scale) {
  const double v = ::round(static_cast<double>(static_cast<float>(value) * scale));
  const double bound = 1099511627776.0;
  return static_cast<index_t>(v < -bound ? -bound : (v > bound ? bound : v));
}

// The edges of bin `p` of `bins` over a region `extent` positions long from `start`, within
// [0, limit): [floor(p * size), ceil((p + 1) * size)) + start, size = extent / bins, in float
// whatever the data's type (MXNet's float32 arithmetic: p * size may round onto a whole
// number, and the bins must not depend on the data's precision).
MSHADOW_XINLINE void BinEdges(index_t p, index_t bins, index_t start, index_t extent, index_t limit,
                              index_t* begin, index_t* end) {
  const float size = static_cast<float>(extent) / static_cast<float>(bins);
  const index_t b = static_cast<index_t>(floorf(static_cast<float>(p) * size)) + start;
  const index_t e = static_cast<index_t>(ceilf(static_cast<float>(p + 1) * size)) + start;
  *begin = b < 0 ? 0 : (b > limit ? limit : b);
  *end = e < 0 ? 0 : (e > limit ? limit : e);
}

template <typename DType>
MSHADOW_XINLINE bool BinOf(const DType* roi, const RoiGeometry& g, index_t ph, index_t pw,
                           RoiBin* bin) {
  const double image = static_cast<double>(roi[0]);
  if (!(image >= 0 && image < static_cast<double>(g.batch))) return false;
  for (int k = 1; k < 5; ++k) {
    const double corner = static_cast<double>(roi[k]);
    if (!(corner - corner == 0)) return false;  // an infinity or NaN
  }
  bin->image = static_cast<index_t>(image);
  const index_t start_w = ScaledCorner(roi[1], g.spatial_scale);
  const index_t start_h = ScaledCorner(roi[2], g.spatial_scale);
  const index_t end_w = ScaledCorner(roi[3], g.spatial_scale);
  const index_t end_h = ScaledCorner(roi[4], g.spatial_scale);
  const index_t roi_h = end_h - start_h + 1 > 1 ? end_h - start_h + 1 : 1;
  const index_t roi_w = end_w - start_w + 1 > 1 ? end_w - start_w + 1 : 1;
  BinEdges(ph, g.pooled_h, start_h, roi_h, g.height, &bin->h_begin, &bin->h_end);
  BinEdges(pw, g.pooled_w, start_w, roi_w, g.width, &bin->w_begin, &bin->w_end);
  return true;
}

// Output element i = (r, c, ph, pw): its bin's maximum and where it is (the first of equal
// maxima in row-major order, as MXNet's strict comparison keeps); 0 and -1 for an empty bin.
template <int kReq>
struct pool_region {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, int64_t* argmax, const DType* data,
                                  const DType* rois, RoiGeometry g) {
    const index_t pw = i % g.pooled_w, ph = i / g.pooled_w % g.pooled_h;
    const index_t c = i / (g.pooled_w * g.pooled_h) % g.channels;
    const index_t r = i / (g.pooled_w * g.pooled_h * g.channels);
    RoiBin bin;
    DType best = DType(0);
    int64_t best_at = -1;
    if (BinOf(rois + r * 5, g, ph, pw, &bin) && bin.h_begin < bin.h_end &&
        bin.w_begin < bin.w_end) {
      const DType* plane = data + (bin.image * g.channels + c) * g.height * g.width;
      best = plane[bin.h_begin * g.width + bin.w_begin];
      best_at = bin.h_begin * g.width + bin.w_begin;
      for (index_t h = bin.h_begin; h < bin.h_end; ++h) {
        for (index_t w = bin.w_begin; w < bin.w_end; ++w) {
          if (plane[h * g.width + w] > best) {
            best = plane[h * g.width + w];
            best_at = h * g.width + w;
          }
        }
      }
    }
    AssignReq<kReq>(out + i, best);
    argmax[i] = best_at;
  }
};

// Plane i = (n, c) of the data's gradient: every region of image n adds its bins' output
// gradients at their maxima, regions and bins in order (no two items write one element, and
// the sums do not depend on the thread count). The plane is zeroed first unless kAddTo.
template <int kReq>
struct scatter_region_gradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* out_grad,
                                  const int64_t* argmax, const DType* rois, RoiGeometry g) {
    const index_t n = i / g.channels, c = i % g.channels, plane_size = g.height * g.width;
    DType* plane = grad + i * plane_size;
    if (kReq != kAddTo) {
      for (index_t k = 0; k < plane_size; ++k) plane[k] = DType(0);
    }
    const index_t bins = g.pooled_h * g.pooled_w;
    for (index_t r = 0; r < g.regions; ++r) {
      const double image = static_cast<double>(rois[r * 5]);
      if (!(image >= 0 && image < static_cast<double>(g.batch)) ||
          static_cast<index_t>(image) != n) {
        continue;
      }
      const index_t first = (r * g.channels + c) * bins;
      for (index_t b = 0; b < bins; ++b) {
        const int64_t at = argmax[first + b];
        if (at >= 0 && at < plane_size) plane[at] += out_grad[first + b];
      }
    }
  }
};

inline RoiGeometry GeometryOf(const ROIPoolingParam& p, const TShape& data, const TShape& rois) {
  return {data[0], data[1],          data[2],          data[3],
          rois[0], p.pooled_size[0], p.pooled_size[1], p.spatial_scale};
}

// Inputs data, rois; outputs out, argmax (hidden).
template <typename xpu>
void ROIPoolingCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const RoiGeometry g = GeometryOf(GetParam<ROIPoolingParam>(attrs), in[0].shape_, in[1].shape_);
  const index_t window = ((g.height + g.pooled_h - 1) / g.pooled_h + 1) *
                         ((g.width + g.pooled_w - 1) / g.pooled_w + 1);
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    WithReqMode(req[0], [&](auto mode) {  // the maxima's positions even under kNullOp
      Kernel<pool_region<decltype(mode)::value>, xpu>::LaunchItems(
          ctx.get_stream<xpu>(), out[0].Size(), window, out[0].dptr<DType>(),
          out[1].dptr<int64_t>(), in[0].dptr<DType>(), in[1].dptr<DType>(), g);
    });
  });
}

// Inputs out_grad, argmax_grad (unused), data, rois, out, argmax; outputs the data's and the
// regions' gradients (the regions get zeros, as MXNet).
template <typename xpu>
void ROIPoolingBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                               const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                               const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const RoiGeometry g = GeometryOf(GetParam<ROIPoolingParam>(attrs), in[2].shape_, in[3].shape_);
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[2].type_flag_, DType, {
    if (req[0] != kNullOp) {
      OPS_REQ_SWITCH(req[0], kReq, {
        Kernel<scatter_region_gradient<kReq>, xpu>::LaunchItems(
            s, g.batch * g.channels, g.height * g.width + g.regions * g.pooled_h * g.pooled_w,
            out[0].dptr<DType>(), in[0].dptr<DType>(), in[5].dptr<int64_t>(), in[3].dptr<DType>(),
            g);
      });
    }
    WriteZeroGradient<xpu, DType>(out[1], req[1], s);
  });
}

// Adds FCompute<xpu> to ROIPooling and its backward operator.
template <typename xpu>
void SetROIPoolingCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("ROIPooling").set_attr<FCompute>(attr_name, FCompute(ROIPoolingCompute<xpu>));
  RegisterOp("_backward_ROIPooling")
      .set_attr<FCompute>(attr_name, FCompute(ROIPoolingBackwardCompute<xpu>));
}

}  // namespace roi_pooling
}  // namespace ops

#endif  // OPS_ROI_POOLING_INL_H_
