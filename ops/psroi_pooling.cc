// _contrib_PSROIPooling(data, rois): R-FCN's position-sensitive region average pooling; and
// its backward operator. Kernels, for every device: psroi_pooling-inl.h; FCompute<gpu>:
// psroi_pooling.cu.
#include <sstream>
#include <vector>

#include "ops/psroi_pooling-inl.h"

namespace ops {
namespace psroi_pooling {
namespace {

// data (N, output_dim * group^2, H, W) and rois (R, 5) give (R, output_dim, P, P).
bool PSROIPoolingShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const PSROIPoolingParam& p = GetParam<PSROIPoolingParam>(attrs);
  const TShape &data = (*in)[0], &rois = (*in)[1];
  if (!ShapeIsKnown(data) || !ShapeIsKnown(rois)) return false;
  const index_t group = GroupSizeOf(p);
  if (data.ndim() != 4 || data[1] != p.output_dim * group * group) {
    std::ostringstream os;
    os << "_contrib_PSROIPooling: data has shape " << data << "; valid: 4 axes (batch, "
       << "channel, height, width) with output_dim * group_size^2 = " << p.output_dim << " * "
       << group << "^2 = " << p.output_dim * group * group << " channels";
    throw dmlc::Error(os.str());
  }
  if (rois.ndim() != 2 || rois[1] != 5) {
    std::ostringstream os;
    os << "_contrib_PSROIPooling: rois has shape " << rois << "; valid: (regions, 5), each "
       << "region [batch_index, x1, y1, x2, y2]";
    throw dmlc::Error(os.str());
  }
  AssignOutputShape(out, 0, TShape{rois[0], p.output_dim, p.pooled_size, p.pooled_size});
  return true;
}

const bool kRegistered = [] {
  SetPSROIPoolingCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(PSROIPoolingParam);

OPS_REGISTER_OP(_contrib_PSROIPooling)
    .describe(
        "Position-sensitive region-of-interest average pooling (R-FCN): each region "
        "[batch_index, x1, y1, x2, y2] of rois, rounded and scaled by spatial_scale, is cut "
        "into pooled_size x pooled_size bins; bin (ph, pw) of output channel c averages data's "
        "channel for c at the bin's place in a group_size x group_size grid (0 for an empty "
        "bin). A region whose batch index is not an image of the batch or whose corners are "
        "not finite gives zeros.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Score maps (N, output_dim * group_size^2, H, W).")
    .add_argument("rois", "NDArray-or-Symbol",
                  "Regions (R, 5): [batch_index, x1, y1, x2, y2], corners in image positions.")
    .add_arguments(PSROIPoolingParam::__FIELDS__())
    .set_attr_parser(ParamParser<PSROIPoolingParam>)
    .set_attr<FInferShape>("FInferShape", PSROIPoolingShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_PSROIPooling", true, false});

OPS_REGISTER_OP(_backward_PSROIPooling)
    .describe(
        "Gradient of _contrib_PSROIPooling: each bin's output gradient spread evenly over the "
        "bin; the regions' gradient is zero.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<PSROIPoolingParam>);

}  // namespace psroi_pooling
}  // namespace ops
