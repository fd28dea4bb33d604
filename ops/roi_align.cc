// _contrib_ROIAlign(pooled_size, spatial_scale, sample_ratio, position_sensitive, aligned):
// Mask R-CNN's bilinear region features; _contrib_RROIAlign(pooled_size, spatial_scale,
// sampling_ratio): the same of rotated regions. Geometry and shapes are here; the computation, for
// every device: roi_align-inl.h; FCompute<gpu>: roi_align.cu.
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "ops/infer_util.h"
#include "ops/registration_util.h"
#include "ops/roi_align-inl.h"

namespace ops {
namespace roi_align {

DMLC_REGISTER_PARAMETER(ROIAlignParam);
DMLC_REGISTER_PARAMETER(RROIAlignParam);

namespace {

// What both operators check and set: feature maps, `roi_size` numbers a region, the bins and
// the scale.
Geometry CommonGeometry(const TShape& pooled, float spatial_scale, const TShape& data,
                        const TShape& rois, index_t roi_size, const char* region) {
  std::ostringstream os;
  if (data.ndim() != 4) {
    os << "data must be feature maps (batch, channels, height, width), got " << data;
    throw dmlc::Error(os.str());
  }
  if (rois.ndim() != 2 || rois[1] != roi_size) {
    os << "rois must be (regions, " << roi_size << "), each " << region << ", got " << rois;
    throw dmlc::Error(os.str());
  }
  if (pooled.ndim() != 2 || pooled[0] < 1 || pooled[1] < 1) {
    os << "pooled_size " << pooled << " must be (height, width), both at least 1";
    throw dmlc::Error(os.str());
  }
  if (!(spatial_scale > 0 && std::isfinite(spatial_scale))) {
    os << "spatial_scale " << spatial_scale << " must be positive and finite";
    throw dmlc::Error(os.str());
  }
  Geometry g;
  g.batch = data[0], g.channels = data[1], g.height = data[2], g.width = data[3];
  g.regions = rois[0], g.pooled_h = pooled[0], g.pooled_w = pooled[1];
  g.spatial_scale = spatial_scale;
  g.out_channels = g.channels;
  g.position_sensitive = false, g.aligned = false, g.rotated = false;
  return g;
}

}  // namespace

Geometry GeometryOf(const ROIAlignParam& param, const TShape& data, const TShape& rois) {
  Geometry g = CommonGeometry(param.pooled_size, param.spatial_scale, data, rois, 5,
                              "[batch_index, x1, y1, x2, y2]");
  g.sample_ratio = param.sample_ratio;
  g.position_sensitive = param.position_sensitive;
  g.aligned = param.aligned;
  if (g.position_sensitive) {
    if (g.channels % (g.pooled_h * g.pooled_w) != 0) {
      std::ostringstream os;
      os << "position_sensitive: the channels, " << g.channels << ", must be a multiple of the "
         << "bins, " << g.pooled_h << " x " << g.pooled_w;
      throw dmlc::Error(os.str());
    }
    g.out_channels = g.channels / (g.pooled_h * g.pooled_w);
  }
  return g;
}

Geometry GeometryOf(const RROIAlignParam& param, const TShape& data, const TShape& rois) {
  Geometry g = CommonGeometry(param.pooled_size, param.spatial_scale, data, rois, 6,
                              "[batch_index, x_center, y_center, width, height, theta]");
  g.sample_ratio = param.sampling_ratio;
  g.rotated = true;
  return g;
}

namespace {

template <typename Param>
bool ROIAlignShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!ShapeIsKnown((*in)[0]) || !ShapeIsKnown((*in)[1])) return false;
  const Geometry g = GeometryOf(GetParam<Param>(attrs), (*in)[0], (*in)[1]);
  AssignOutputShape(out, 0, TShape{g.regions, g.out_channels, g.pooled_h, g.pooled_w});
  return true;
}

// The forward and backward operators of ROIAlign (regions as corners) or RROIAlign (rotated).
template <typename Param>
void RegisterRegionAlign(const std::string& name, const char* description, const char* rois) {
  Op& forward = RegisterOp(name);
  forward.describe(description)
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "Feature maps (N, C, H, W).")
      .add_argument("rois", "NDArray-or-Symbol", rois)
      .set_attr<FInferType>("FInferType", SameRealType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)  // the sample table
      .set_attr<FGradient>("FGradient", FGradient{"_backward" + name, true, false});
  forward.add_arguments(Param::__FIELDS__());
  forward.set_attr_parser(ParamParser<Param>);
  forward.set_attr<FInferShape>("FInferShape", ROIAlignShape<Param>);
  Op& backward = RegisterOp("_backward" + name);
  backward.describe("Gradient of " + name + " (zeros for the regions).")
      .set_num_inputs(3)
      .set_num_outputs(2)
      .set_attr<bool>("TIsBackward", true)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);
  backward.set_attr_parser(ParamParser<Param>);
}

const bool kRegistered = [] {
  RegisterRegionAlign<ROIAlignParam>(
      "_contrib_ROIAlign",
      "Region features of feature maps (N, C, H, W) for regions (R, 5), each [batch_index, "
      "x1, y1, x2, y2]: (R, C, PH, PW) (C / (PH * PW) channels position-sensitive), each "
      "bin the mean of bilinear samples without rounding (Mask R-CNN). A region whose batch "
      "index is outside the batch or whose corners are not finite gives zeros.",
      "Regions (R, 5) in image coordinates.");
  RegisterRegionAlign<RROIAlignParam>(
      "_contrib_RROIAlign",
      "Region features of feature maps (N, C, H, W) for rotated regions (R, 6), each "
      "[batch_index, x_center, y_center, width, height, theta in degrees]: (R, C, PH, PW), "
      "each bin the mean of bilinear samples of the region's grid turned by theta about its "
      "centre (RRPN). Width and height are at least 1 after scaling; a region whose batch "
      "index is outside the batch or whose numbers are not finite gives zeros.",
      "Rotated regions (R, 6) in image coordinates.");
  SetROIAlignCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace roi_align
}  // namespace ops
