// ROIPooling(data, rois, pooled_size, spatial_scale): Fast R-CNN's region max pooling, the
// maxima's positions a hidden second output; and its backward operator. Kernels, for every
// device: roi_pooling-inl.h; FCompute<gpu>: roi_pooling.cu.
#include <sstream>
#include <vector>

#include "ops/roi_pooling-inl.h"

namespace ops {
namespace roi_pooling {
namespace {

void CheckPooledSize(const TShape& pooled) {
  if (pooled.ndim() != 2 || pooled[0] <= 0 || pooled[1] <= 0) {
    std::ostringstream os;
    os << "ROIPooling: pooled_size " << pooled << " is not valid; valid: two positive extents, "
       << "(height, width)";
    throw dmlc::ParamError(os.str());
  }
}

// data (N, C, H, W) and rois (R, 5) give out and argmax (R, C, PH, PW).
bool ROIPoolingShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ROIPoolingParam& p = GetParam<ROIPoolingParam>(attrs);
  const TShape &data = (*in)[0], &rois = (*in)[1];
  if (!ShapeIsKnown(data) || !ShapeIsKnown(rois)) return false;
  if (data.ndim() != 4) {
    std::ostringstream os;
    os << "ROIPooling: data has shape " << data << "; valid: 4 axes (batch, channel, height, "
       << "width)";
    throw dmlc::Error(os.str());
  }
  if (rois.ndim() != 2 || rois[1] != 5) {
    std::ostringstream os;
    os << "ROIPooling: rois has shape " << rois << "; valid: (regions, 5), each region "
       << "[batch_index, x1, y1, x2, y2]";
    throw dmlc::Error(os.str());
  }
  const TShape pooled{rois[0], data[1], p.pooled_size[0], p.pooled_size[1]};
  AssignOutputShape(out, 0, pooled);
  AssignOutputShape(out, 1, pooled);
  return true;
}

// data and rois one real type, out the same; argmax int64.
bool ROIPoolingType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  std::vector<int> first_out = {out->at(0)};
  if (!ElemwiseRealType<2, 1>(attrs, in, &first_out)) return false;
  AssignOutputType(out, 0, first_out[0]);
  AssignOutputType(out, 1, mshadow::kInt64);
  return true;
}

void ParseROIPooling(NodeAttrs* attrs) {
  ParamParser<ROIPoolingParam>(attrs);
  CheckPooledSize(GetParam<ROIPoolingParam>(*attrs).pooled_size);
}

const bool kRegistered = [] {
  SetROIPoolingCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(ROIPoolingParam);

OPS_REGISTER_OP(ROIPooling)
    .describe(
        "Region-of-interest max pooling (Fast R-CNN): each region [batch_index, x1, y1, x2, y2] "
        "of rois, scaled by spatial_scale and rounded, is cut into pooled_size bins whose "
        "maxima are the output (R, C, PH, PW); an empty bin gives 0. A region whose batch "
        "index is not an image of the batch (negative: padding) or whose corners are not "
        "finite gives zeros. The second output, hidden, is each maximum's position in its "
        "plane (int64, -1 for none), which the gradient uses.")
    .set_num_inputs(2)
    .set_num_outputs(2)
    .add_argument("data", "NDArray-or-Symbol", "Feature maps (N, C, H, W).")
    .add_argument("rois", "NDArray-or-Symbol",
                  "Regions (R, 5): [batch_index, x1, y1, x2, y2], corners in image positions.")
    .add_arguments(ROIPoolingParam::__FIELDS__())
    .set_attr_parser(ParseROIPooling)
    .set_num_visible_outputs(1)
    .set_attr<FInferShape>("FInferShape", ROIPoolingShape)
    .set_attr<FInferType>("FInferType", ROIPoolingType)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_ROIPooling", true, true});

OPS_REGISTER_OP(_backward_ROIPooling)
    .describe(
        "Gradient of ROIPooling: each bin's output gradient added at its maximum; the "
        "regions' gradient is zero.")
    .set_num_inputs(6)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParseROIPooling);

}  // namespace roi_pooling
}  // namespace ops
