// _contrib_ROIAlign(pooled_size, spatial_scale, sample_ratio, position_sensitive, aligned):
// Mask R-CNN's bilinear region features. Geometry and shapes are here; the computation, for
// every device: roi_align-inl.h; FCompute<gpu>: roi_align.cu.
#include <cmath>
#include <sstream>
#include <vector>

#include "ops/infer_util.h"
#include "ops/registration_util.h"
#include "ops/roi_align-inl.h"

namespace ops {
namespace roi_align {

DMLC_REGISTER_PARAMETER(ROIAlignParam);

Geometry GeometryOf(const ROIAlignParam& param, const TShape& data, const TShape& rois) {
  std::ostringstream os;
  if (data.ndim() != 4) {
    os << "data must be feature maps (batch, channels, height, width), got " << data;
    throw dmlc::Error(os.str());
  }
  if (rois.ndim() != 2 || rois[1] != 5) {
    os << "rois must be (regions, 5), each [batch_index, x1, y1, x2, y2], got " << rois;
    throw dmlc::Error(os.str());
  }
  const TShape& pooled = param.pooled_size;
  if (pooled.ndim() != 2 || pooled[0] < 1 || pooled[1] < 1) {
    os << "pooled_size " << pooled << " must be (height, width), both at least 1";
    throw dmlc::Error(os.str());
  }
  if (!(param.spatial_scale > 0 && std::isfinite(param.spatial_scale))) {
    os << "spatial_scale " << param.spatial_scale << " must be positive and finite";
    throw dmlc::Error(os.str());
  }
  Geometry g;
  g.batch = data[0], g.channels = data[1], g.height = data[2], g.width = data[3];
  g.regions = rois[0], g.pooled_h = pooled[0], g.pooled_w = pooled[1];
  g.spatial_scale = param.spatial_scale;
  g.sample_ratio = param.sample_ratio;
  g.position_sensitive = param.position_sensitive;
  g.aligned = param.aligned;
  g.out_channels = g.channels;
  if (g.position_sensitive) {
    if (g.channels % (g.pooled_h * g.pooled_w) != 0) {
      os << "position_sensitive: the channels, " << g.channels << ", must be a multiple of the "
         << "bins, " << g.pooled_h << " x " << g.pooled_w;
      throw dmlc::Error(os.str());
    }
    g.out_channels = g.channels / (g.pooled_h * g.pooled_w);
  }
  return g;
}

namespace {

bool ROIAlignShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!ShapeIsKnown((*in)[0]) || !ShapeIsKnown((*in)[1])) return false;
  const Geometry g = GeometryOf(GetParam<ROIAlignParam>(attrs), (*in)[0], (*in)[1]);
  AssignOutputShape(out, 0, TShape{g.regions, g.out_channels, g.pooled_h, g.pooled_w});
  return true;
}

const bool kRegistered = [] {
  RegisterOp("_contrib_ROIAlign")
      .describe(
          "Region features of feature maps (N, C, H, W) for regions (R, 5), each [batch_index, "
          "x1, y1, x2, y2]: (R, C, PH, PW) (C / (PH * PW) channels position-sensitive), each "
          "bin the mean of bilinear samples without rounding (Mask R-CNN). A region whose batch "
          "index is outside the batch or whose corners are not finite gives zeros.")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "Feature maps (N, C, H, W).")
      .add_argument("rois", "NDArray-or-Symbol", "Regions (R, 5) in image coordinates.")
      .add_arguments(ROIAlignParam::__FIELDS__())
      .set_attr_parser(ParamParser<ROIAlignParam>)
      .set_attr<FInferShape>("FInferShape", ROIAlignShape)
      .set_attr<FInferType>("FInferType", SameRealType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)  // the sample table
      .set_attr<FGradient>("FGradient", FGradient{"_backward_contrib_ROIAlign", true, false});
  RegisterOp("_backward_contrib_ROIAlign")
      .describe("Gradient of _contrib_ROIAlign (zeros for the regions).")
      .set_num_inputs(3)
      .set_num_outputs(2)
      .set_attr<bool>("TIsBackward", true)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
      .set_attr_parser(ParamParser<ROIAlignParam>);
  SetROIAlignCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace roi_align
}  // namespace ops
