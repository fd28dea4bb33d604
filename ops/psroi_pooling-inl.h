// ops/psroi_pooling-inl.h: _contrib_PSROIPooling, R-FCN's position-sensitive region-of-
// interest pooling as MXNet 1.9.1 has it, written once for every device. The data's channels
// are output_dim score maps for each of group_size x group_size positions of a region; each
// region [batch_index, x1, y1, x2, y2] (corners rounded, then scaled by spatial_scale, at
// least 0.1 wide and high) is cut into pooled_size x pooled_size bins, and bin (ph, pw) of
// output channel c averages the map of c for the bin's position in the group grid over the
// bin (0 for an empty bin). psroi_pooling.cc registers it with FCompute<cpu>;
// psroi_pooling.cu adds FCompute<gpu>.
//
// A region whose batch index is not an image of the batch (negative padding, too large, NaN)
// or whose corners are not finite pools nothing: its outputs are 0 and it gets no gradient,
// as ROIPooling here. The bins are computed in float for every data type, as MXNet's float32
// build computes them. The gradient goes a data plane per item (no atomics, the same sums on
// any thread count and device).
#ifndef OPS_PSROI_POOLING_INL_H_
#define OPS_PSROI_POOLING_INL_H_

#include <cmath>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace psroi_pooling {

struct PSROIPoolingParam : public dmlc::Parameter<PSROIPoolingParam> {
  float spatial_scale;
  int output_dim;
  int pooled_size;
  int group_size;
  DMLC_DECLARE_PARAMETER(PSROIPoolingParam) {
    DMLC_DECLARE_FIELD(spatial_scale)
        .set_range(0.0f, 1.0f)
        .describe(
            "The feature map's size over the image's (the reciprocal of the network's total "
            "stride); the regions' corners are multiplied by it.");
    DMLC_DECLARE_FIELD(output_dim).set_lower_bound(1).describe("The output's channels.");
    DMLC_DECLARE_FIELD(pooled_size)
        .set_lower_bound(1)
        .describe("The output's height and width: bins per region side.");
    DMLC_DECLARE_FIELD(group_size)
        .set_default(0)
        .set_lower_bound(0)
        .describe(
            "The side of the grid of positions the data's channels hold maps for; 0: "
            "pooled_size. data has output_dim * group_size^2 channels.");
  }
};

inline int GroupSizeOf(const PSROIPoolingParam& p) {
  return p.group_size > 0 ? p.group_size : p.pooled_size;
}

// The data (N, output_dim * group^2, H, W) and the output (R, output_dim, P, P).
struct PSRoiGeometry {
  index_t batch, channels, height, width, output_dim, pooled, group;
  float spatial_scale;
};

// A bin of a region: image, data channel, rows [h_begin, h_end) and columns [w_begin, w_end).
struct PSRoiBin {
  index_t image, channel, h_begin, h_end, w_begin, w_end;
};

// v rounded down into [0, limit] (NaN: 0; v is floor or ceil of a bin edge).
MSHADOW_XINLINE index_t ClampedEdge(float v, index_t limit) {
  return v >= 0.0f ? (v <= static_cast<float>(limit) ? static_cast<index_t>(v) : limit) : 0;
}

// Bin (ph, pw) of output channel c for region roi, or false where the region pools nothing
// (see the file's comment).
template <typename DType>
MSHADOW_XINLINE bool BinOf(const DType* roi, const PSRoiGeometry& g, index_t c, index_t ph,
                           index_t pw, PSRoiBin* bin) {
  const double image = static_cast<double>(roi[0]);
  if (!(image >= 0 && image < static_cast<double>(g.batch))) return false;
  float corner[4];
  for (int k = 0; k < 4; ++k) {
    corner[k] = static_cast<float>(roi[k + 1]);
    if (!(corner[k] - corner[k] == 0.0f)) return false;  // an infinity or NaN
  }
  bin->image = static_cast<index_t>(image);
  const float scale = g.spatial_scale;
  const float start_w = roundf(corner[0]) * scale, start_h = roundf(corner[1]) * scale;
  const float end_w = (roundf(corner[2]) + 1.0f) * scale;
  const float end_h = (roundf(corner[3]) + 1.0f) * scale;
  // Too small a region counts as 0.1 wide (or high): never a zero bin size.
  const float roi_w = end_w - start_w > 0.1f ? end_w - start_w : 0.1f;
  const float roi_h = end_h - start_h > 0.1f ? end_h - start_h : 0.1f;
  const float bin_w = roi_w / static_cast<float>(g.pooled);
  const float bin_h = roi_h / static_cast<float>(g.pooled);
  bin->h_begin = ClampedEdge(floorf(static_cast<float>(ph) * bin_h + start_h), g.height);
  bin->h_end = ClampedEdge(ceilf(static_cast<float>(ph + 1) * bin_h + start_h), g.height);
  bin->w_begin = ClampedEdge(floorf(static_cast<float>(pw) * bin_w + start_w), g.width);
  bin->w_end = ClampedEdge(ceilf(static_cast<float>(pw + 1) * bin_w + start_w), g.width);
  // The bin's position in the group grid.
  const index_t gh = static_cast<index_t>(ph * g.group / g.pooled);
  const index_t gw = static_cast<index_t>(pw * g.group / g.pooled);
  bin->channel = (c * g.group + gh) * g.group + gw;
  return true;
}

// Output element i = (r, c, ph, pw): its bin's average, 0 for an empty bin.
template <int kReq>
struct pool_region {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* data, const DType* rois,
                                  PSRoiGeometry g) {
    const index_t pw = i % g.pooled, ph = i / g.pooled % g.pooled;
    const index_t c = i / (g.pooled * g.pooled) % g.output_dim;
    const index_t r = i / (g.pooled * g.pooled * g.output_dim);
    PSRoiBin bin;
    DType value = DType(0);
    if (BinOf(rois + r * 5, g, c, ph, pw, &bin) && bin.h_begin < bin.h_end &&
        bin.w_begin < bin.w_end) {
      const DType* plane = data + (bin.image * g.channels + bin.channel) * g.height * g.width;
      DType sum = DType(0);
      for (index_t h = bin.h_begin; h < bin.h_end; ++h) {
        for (index_t w = bin.w_begin; w < bin.w_end; ++w) sum += plane[h * g.width + w];
      }
      value = sum / static_cast<DType>((bin.h_end - bin.h_begin) * (bin.w_end - bin.w_begin));
    }
    AssignReq<kReq>(out + i, value);
  }
};

// Plane i = (n, channel) of the data's gradient: every region of image n adds, for each of
// its bins pooled from this channel (those of the channel's cell of the group grid), the
// bin's output gradient over its area to the bin, regions and bins in order. The plane is
// zeroed first unless kAddTo.
template <int kReq>
struct scatter_region_gradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* out_grad, const DType* rois,
                                  index_t regions, PSRoiGeometry g) {
    const index_t n = i / g.channels, channel = i % g.channels;
    // The output channel and the cell of the group grid this channel feeds, and the bins in
    // that cell: ph * group / pooled == gh for ph in [PooledFirst(gh), PooledFirst(gh + 1)).
    const index_t c = channel / (g.group * g.group);
    const index_t gh = channel / g.group % g.group, gw = channel % g.group;
    auto pooled_first = [&g](index_t cell) { return (cell * g.pooled + g.group - 1) / g.group; };
    const index_t plane_size = g.height * g.width;
    DType* plane = grad + i * plane_size;
    if (kReq != kAddTo) {
      for (index_t k = 0; k < plane_size; ++k) plane[k] = DType(0);
    }
    for (index_t r = 0; r < regions; ++r) {
      const double image = static_cast<double>(rois[r * 5]);  // BinOf's image: truncated
      if (!(image >= static_cast<double>(n) && image < static_cast<double>(n + 1))) continue;
      for (index_t ph = pooled_first(gh); ph < pooled_first(gh + 1); ++ph) {
        for (index_t pw = pooled_first(gw); pw < pooled_first(gw + 1); ++pw) {
          PSRoiBin bin;
          if (!BinOf(rois + r * 5, g, c, ph, pw, &bin) || bin.h_begin >= bin.h_end ||
              bin.w_begin >= bin.w_end) {
            continue;
          }
          const index_t area = (bin.h_end - bin.h_begin) * (bin.w_end - bin.w_begin);
          const DType share = out_grad[((r * g.output_dim + c) * g.pooled + ph) * g.pooled + pw] /
                              static_cast<DType>(area);
          for (index_t h = bin.h_begin; h < bin.h_end; ++h) {
            for (index_t w = bin.w_begin; w < bin.w_end; ++w) plane[h * g.width + w] += share;
          }
        }
      }
    }
  }
};

inline PSRoiGeometry GeometryOf(const PSROIPoolingParam& p, const TShape& data) {
  return {data[0],      data[1],       data[2],        data[3],
          p.output_dim, p.pooled_size, GroupSizeOf(p), p.spatial_scale};
}

// Inputs data (N, C, H, W), rois (R, 5); output (R, output_dim, P, P).
template <typename xpu>
void PSROIPoolingCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const PSRoiGeometry g = GeometryOf(GetParam<PSROIPoolingParam>(attrs), in[0].shape_);
  MSHADOW_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], kReq, {
      Kernel<pool_region<kReq>, xpu>::Launch(ctx.get_stream<xpu>(), out[0].Size(),
                                             out[0].dptr<DType>(), in[0].dptr<DType>(),
                                             in[1].dptr<DType>(), g);
    });
  });
}

// Inputs: the output gradient, data, rois; outputs: data's gradient, rois' (zeros).
template <typename xpu>
void PSROIPoolingBackward(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TBlob &out_grad = in[0], &data = in[1], &rois = in[2];
  const PSRoiGeometry g = GeometryOf(GetParam<PSROIPoolingParam>(attrs), data.shape_);
  MSHADOW_REAL_TYPE_SWITCH(data.type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], kReq, {
      // An item a data plane, each visiting every region's bins.
      Kernel<scatter_region_gradient<kReq>, xpu>::LaunchItems(
          s, g.batch * g.channels, g.height * g.width + rois.shape_[0], out[0].dptr<DType>(),
          out_grad.dptr<DType>(), rois.dptr<DType>(), rois.shape_[0], g);
    });
    WriteZeroGradient<xpu, DType>(out[1], req[1], s);
  });
}

template <typename xpu>
void SetPSROIPoolingCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_PSROIPooling")
      .set_attr<FCompute>(attr_name, FCompute(PSROIPoolingCompute<xpu>));
  RegisterOp("_backward_PSROIPooling")
      .set_attr<FCompute>(attr_name, FCompute(PSROIPoolingBackward<xpu>));
}

}  // namespace psroi_pooling
}  // namespace ops

#endif  // OPS_PSROI_POOLING_INL_H_
