// _contrib_MultiBoxTarget: SSD's training targets from anchors, labels and class predictions.
// Parameters and shapes are checked here; the computation, for every device:
// multibox_target-inl.h; FCompute<gpu>: multibox_target.cu.
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "ops/infer.h"
#include "ops/infer_util.h"
#include "ops/multibox_target-inl.h"

namespace ops {
namespace bounding_box {

DMLC_REGISTER_PARAMETER(MultiBoxTargetParam);

TargetLayout TargetLayoutOf(const MultiBoxTargetParam& p, const TShape& anchor, const TShape& label,
                            const TShape& cls_pred) {
  if (p.variances.size() != 4) {
    throw dmlc::ParamError("variances must hold 4 values (x, y, width, height), got " +
                           std::to_string(p.variances.size()));
  }
  for (size_t k = 0; k < 4; ++k) {
    if (!(p.variances[k] > 0) || !std::isfinite(p.variances[k])) {
      throw dmlc::ParamError(
          "variances must be positive and finite (the box targets divide "
          "by them), got " +
          std::to_string(p.variances[k]) + " at position " + std::to_string(k));
    }
  }
  if (p.negative_mining_ratio > 0 && !(p.negative_mining_thresh > 0)) {
    throw dmlc::ParamError(
        "negative_mining_thresh must be positive when mining negatives "
        "(negative_mining_ratio " +
        std::to_string(p.negative_mining_ratio) + "), got " +
        std::to_string(p.negative_mining_thresh));
  }
  TargetLayout l;
  l.images = label[0];
  l.anchors = anchor[1];
  l.labels = label[1];
  l.label_width = label[2];
  l.classes = cls_pred[1];
  l.overlap_threshold = p.overlap_threshold;
  l.ignore_label = p.ignore_label;
  l.negative_mining_ratio = p.negative_mining_ratio;
  l.negative_mining_thresh = p.negative_mining_thresh;
  l.minimum_negative_samples = p.minimum_negative_samples;
  for (int k = 0; k < 4; ++k) l.variance[k] = p.variances[k];
  return l;
}

namespace {

// anchor (1, N, 4), label (B, M, W >= 5), cls_pred (B, C, N) -> (B, 4N), (B, 4N), (B, N).
bool MultiBoxTargetShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                         std::vector<TShape>* out) {
  const TShape &anchor = (*in)[0], &label = (*in)[1], &pred = (*in)[2];
  if (!ShapeIsKnown(anchor) || !ShapeIsKnown(label) || !ShapeIsKnown(pred)) return false;
  std::ostringstream os;
  if (anchor.ndim() != 3 || anchor[0] != 1 || anchor[2] != 4) {
    os << "anchor must be (1, anchors, 4), corners shared by the batch, got " << anchor;
    throw dmlc::Error(os.str());
  }
  if (label.ndim() != 3 || label[1] < 1 || label[2] < 5) {
    os << "label must be (batch, labels >= 1, width >= 5), rows [class, xmin, ymin, xmax, "
          "ymax, ...] padded with -1, got "
       << label;
    throw dmlc::Error(os.str());
  }
  const index_t n = anchor[1];
  if (pred.ndim() != 3 || pred[0] != label[0] || pred[1] < 1 || pred[2] != n) {
    os << "cls_pred " << pred << " must be (" << label[0] << ", classes, " << n << "): label "
       << label << "'s batch, anchor " << anchor << "'s anchors";
    throw dmlc::Error(os.str());
  }
  TargetLayoutOf(GetParam<MultiBoxTargetParam>(attrs), anchor, label, pred);
  AssignOutputShape(out, 0, TShape{label[0], 4 * n});
  AssignOutputShape(out, 1, TShape{label[0], 4 * n});
  AssignOutputShape(out, 2, TShape{label[0], n});
  return true;
}

const bool kRegistered = [] {
  Op& op = RegisterOp("_contrib_MultiBoxTarget");
  op.describe(
        "SSD's training targets: box targets (batch, anchors * 4), their mask (batch, "
        "anchors * 4) and class targets (batch, anchors). Each label gets the anchor it "
        "overlaps best, then every anchor overlapping a label by an IoU above "
        "overlap_threshold is positive (class + 1, the label's box encoded with variances, "
        "mask 1); the others are negative (class 0) or, with negative_mining_ratio > 0, only "
        "the hardest ratio x positives of those below negative_mining_thresh, the rest "
        "ignore_label. Label rows end at the first of class -1.")
      .set_num_inputs(3)
      .set_num_outputs(3)
      .add_argument("anchor", "NDArray-or-Symbol", "Anchor boxes (1, anchors, 4), corners.")
      .add_argument("label", "NDArray-or-Symbol",
                    "Labels (batch, labels, width >= 5): class, corners, padded with -1.")
      .add_argument("cls_pred", "NDArray-or-Symbol",
                    "Class predictions (batch, classes, anchors), class 0 the background.")
      .add_arguments(MultiBoxTargetParam::__FIELDS__())
      .set_attr_parser(ParamParser<MultiBoxTargetParam>)
      .set_attr<FInferShape>("FInferShape", MultiBoxTargetShape)
      .set_attr<FInferType>("FInferType", SameRealType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);  // overlaps, orders
  SetZeroGradient(op, "_backward_contrib_MultiBoxTarget", ParamParser<MultiBoxTargetParam>);
  SetMultiBoxTargetCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace bounding_box
}  // namespace ops
