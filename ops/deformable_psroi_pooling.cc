// _contrib_DeformablePSROIPooling(data, rois[, trans]): Deformable R-FCN's position-sensitive
// region pooling, and its backward operator. Geometry and shapes are here; the computation,
// for every device: deformable_psroi_pooling-inl.h; FCompute<gpu>: deformable_psroi_pooling.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/deformable_psroi_pooling-inl.h"
#include "ops/infer_util.h"

namespace ops {
namespace deformable_psroi_pooling {

DMLC_REGISTER_PARAMETER(DeformablePSROIPoolingParam);

Geometry GeometryOf(const DeformablePSROIPoolingParam& p, const TShape& data, const TShape& rois,
                    const TShape& trans) {
  std::ostringstream os;
  os << "_contrib_DeformablePSROIPooling: ";
  const index_t group = p.group_size;
  if (data.ndim() != 4 || data[1] != p.output_dim * group * group) {
    os << "data has shape " << data << "; valid: 4 axes (batch, channel, height, width) with "
       << "output_dim * group_size^2 = " << p.output_dim << " * " << group
       << "^2 = " << p.output_dim * group * group << " channels";
    throw dmlc::Error(os.str());
  }
  if (rois.ndim() != 2 || rois[1] != 5) {
    os << "rois has shape " << rois << "; valid: (regions, 5), each region [batch_index, x1, "
       << "y1, x2, y2]";
    throw dmlc::Error(os.str());
  }
  Geometry g;
  g.batch = data[0], g.channels = data[1], g.height = data[2], g.width = data[3];
  g.regions = rois[0];
  g.output_dim = p.output_dim, g.group = group, g.pooled = p.pooled_size;
  g.part = p.part_size > 0 ? p.part_size : p.pooled_size;
  g.samples = p.sample_per_part;
  g.spatial_scale = p.spatial_scale, g.trans_std = p.trans_std;
  g.no_trans = p.no_trans;
  g.classes = 1;
  if (!p.no_trans) {
    if (trans.ndim() != 4 || trans[0] != g.regions || trans[1] < 2 || trans[1] % 2 != 0 ||
        g.output_dim % (trans[1] / 2) != 0 || trans[2] != g.part || trans[3] != g.part) {
      os << "trans has shape " << trans << "; valid: (" << g.regions << ", 2 * classes, " << g.part
         << ", " << g.part << "): a (dx, dy) pair for each class (classes dividing output_dim, "
         << g.output_dim << ") and part of each region";
      throw dmlc::Error(os.str());
    }
    g.classes = trans[1] / 2;
  }
  return g;
}

namespace {

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  if (GetParam<DeformablePSROIPoolingParam>(attrs).no_trans) return {"data", "rois"};
  return {"data", "rois", "trans"};
}

uint32_t NumInputs(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(InputNames(attrs).size());
}

// data (N, output_dim * group^2, H, W), rois (R, 5) [, trans (R, 2 * classes, part, part)]
// give (R, output_dim, P, P) twice: the pooled bins and their sample counts.
bool DeformablePSROIPoolingShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                                 std::vector<TShape>* out) {
  const DeformablePSROIPoolingParam& p = GetParam<DeformablePSROIPoolingParam>(attrs);
  for (const TShape& shape : *in) {
    if (!ShapeIsKnown(shape)) return false;
  }
  const Geometry g = GeometryOf(p, (*in)[0], (*in)[1], p.no_trans ? TShape() : (*in)[2]);
  const TShape pooled{g.regions, g.output_dim, g.pooled, g.pooled};
  AssignOutputShape(out, 0, pooled);
  AssignOutputShape(out, 1, pooled);
  return true;
}

const bool kRegistered = [] {
  SetDeformablePSROIPoolingCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(_contrib_DeformablePSROIPooling)
    .describe(
        "Deformable position-sensitive region-of-interest pooling (Deformable R-FCN): each "
        "region [batch_index, x1, y1, x2, y2] of rois, rounded, scaled by spatial_scale and "
        "shifted half a position, is cut into pooled_size x pooled_size bins; bin (ph, pw) of "
        "output channel c moves by trans_std times its part's (dx, dy) of trans (R, 2 * "
        "classes, part_size, part_size) times the region's extent and averages "
        "sample_per_part^2 bilinear samples of data's channel for c at the bin's place in a "
        "group_size x group_size grid (samples over half a position outside the map left out; "
        "0 for a bin without samples). A second, hidden output counts each bin's samples. A "
        "region whose batch index is not an image of the batch or whose numbers are not "
        "finite gives zeros.")
    .set_num_inputs(NumInputs)
    .set_num_outputs(2)
    .set_num_visible_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Score maps (N, output_dim * group_size^2, H, W).")
    .add_argument("rois", "NDArray-or-Symbol",
                  "Regions (R, 5): [batch_index, x1, y1, x2, y2], corners in image positions.")
    .add_argument("trans", "NDArray-or-Symbol",
                  "Part offsets (R, 2 * classes, part_size, part_size); not with no_trans.")
    .add_arguments(DeformablePSROIPoolingParam::__FIELDS__())
    .set_attr_parser(ParamParser<DeformablePSROIPoolingParam>)
    .set_attr<FListInputNames>("FListInputNames", InputNames)
    .set_attr<FInferShape>("FInferShape", DeformablePSROIPoolingShape)
    .set_attr<FInferType>("FInferType", SameRealType)
    .set_attr<FGradient>("FGradient",
                         FGradient{"_backward_contrib_DeformablePSROIPooling", true, false});

OPS_REGISTER_OP(_backward_contrib_DeformablePSROIPooling)
    .describe(
        "Gradient of _contrib_DeformablePSROIPooling: each bin's output gradient spread over "
        "its samples' neighbours, trans's through the samples' slopes; the regions' gradient "
        "is zero.")
    .set_num_inputs([](const NodeAttrs& attrs) { return 2 + NumInputs(attrs); })
    .set_num_outputs(NumInputs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<DeformablePSROIPoolingParam>);

}  // namespace deformable_psroi_pooling
}  // namespace ops
