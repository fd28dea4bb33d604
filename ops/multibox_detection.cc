// _contrib_MultiBoxDetection: SSD's detections from class probabilities, box regressions and
// anchors. Parameters and shapes are checked here; the computation, for every device:
// multibox_detection-inl.h; FCompute<gpu>: multibox_detection.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/infer.h"
#include "ops/infer_util.h"
#include "ops/multibox_detection-inl.h"

namespace ops {
namespace bounding_box {

DMLC_REGISTER_PARAMETER(MultiBoxDetectionParam);

DetectionLayout DetectionLayoutOf(const MultiBoxDetectionParam& p, const TShape& cls_prob) {
  if (p.variances.size() != 4) {
    throw dmlc::ParamError("variances must hold 4 values (x, y, width, height), got " +
                           std::to_string(p.variances.size()));
  }
  DetectionLayout l;
  l.images = cls_prob[0];
  l.classes = cls_prob[1];
  l.anchors = cls_prob[2];
  l.clip = p.clip;
  l.force_suppress = p.force_suppress;
  l.threshold = p.threshold;
  l.nms_threshold = p.nms_threshold;
  l.background_id = p.background_id;
  l.nms_topk = p.nms_topk;
  for (int k = 0; k < 4; ++k) l.variance[k] = p.variances[k];
  return l;
}

namespace {

// cls_prob (B, C, N), loc_pred (B, 4N), anchor (1, N, 4) -> (B, N, 6).
bool MultiBoxDetectionShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                            std::vector<TShape>* out) {
  const TShape &prob = (*in)[0], &loc = (*in)[1], &anchor = (*in)[2];
  if (!ShapeIsKnown(prob) || !ShapeIsKnown(loc) || !ShapeIsKnown(anchor)) return false;
  std::ostringstream os;
  if (prob.ndim() != 3 || prob[1] < 1) {
    os << "cls_prob must be (batch, classes, anchors), got " << prob;
    throw dmlc::Error(os.str());
  }
  const index_t n = prob[2];
  if (anchor.ndim() != 3 || anchor[0] != 1 || anchor[1] != n || anchor[2] != 4) {
    os << "anchor " << anchor << " must be (1, " << n << ", 4): cls_prob " << prob << "'s " << n
       << " anchors, shared by the batch";
    throw dmlc::Error(os.str());
  }
  if (loc.ndim() != 2 || loc[0] != prob[0] || loc[1] != 4 * n) {
    os << "loc_pred " << loc << " must be (" << prob[0] << ", " << 4 * n
       << "): four values for each anchor of each image";
    throw dmlc::Error(os.str());
  }
  DetectionLayoutOf(GetParam<MultiBoxDetectionParam>(attrs), prob);
  AssignOutputShape(out, 0, TShape{prob[0], n, 6});
  return true;
}

const bool kRegistered = [] {
  Op& op = RegisterOp("_contrib_MultiBoxDetection");
  op.describe(
        "SSD's detections (batch, anchors, 6), rows [class, score, xmin, ymin, xmax, ymax]: "
        "each anchor's most probable non-background class scoring at least threshold, its box "
        "decoded from loc_pred with variances (clipped to [0, 1] with clip), by descending "
        "score, the later of two overlapping detections of a class (any with force_suppress) "
        "marked class -1, rows past the detections -1.")
      .set_num_inputs(3)
      .set_num_outputs(1)
      .add_argument("cls_prob", "NDArray-or-Symbol",
                    "Class probabilities (batch, classes, anchors).")
      .add_argument("loc_pred", "NDArray-or-Symbol", "Box regressions (batch, anchors * 4).")
      .add_argument("anchor", "NDArray-or-Symbol", "Anchor boxes (1, anchors, 4), corners.")
      .add_arguments(MultiBoxDetectionParam::__FIELDS__())
      .set_attr_parser(ParamParser<MultiBoxDetectionParam>)
      .set_attr<FInferShape>("FInferShape", MultiBoxDetectionShape)
      .set_attr<FInferType>("FInferType", SameRealType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);  // records, orders
  SetZeroGradient(op, "_backward_contrib_MultiBoxDetection", ParamParser<MultiBoxDetectionParam>);
  SetMultiBoxDetectionCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace bounding_box
}  // namespace ops
