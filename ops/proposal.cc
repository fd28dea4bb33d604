// _contrib_Proposal and _contrib_MultiProposal: Faster R-CNN's region proposals. Parameters,
// shapes and the base anchors are made here; the computation, for every device:
// proposal-inl.h; FCompute<gpu>: proposal.cu.
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "ops/infer.h"
#include "ops/infer_util.h"
#include "ops/proposal-inl.h"

namespace ops {
namespace bounding_box {

DMLC_REGISTER_PARAMETER(ProposalParam);

namespace {

void CheckPositive(const FloatTuple& values, const char* name) {
  if (values.size() == 0) throw dmlc::ParamError(std::string(name) + " must not be empty");
  for (size_t k = 0; k < values.size(); ++k) {
    if (values[k] > 0 && std::isfinite(values[k])) continue;
    throw dmlc::ParamError(std::string(name) + " must be positive and finite, got " +
                           std::to_string(values[k]) + " at position " + std::to_string(k));
  }
}

}  // namespace

ProposalLayout ProposalLayoutOf(const ProposalParam& p, const TShape& cls_prob) {
  CheckPositive(p.scales, "scales");
  CheckPositive(p.ratios, "ratios");
  if (p.feature_stride < 1) {
    throw dmlc::ParamError("feature_stride must be at least 1, got " +
                           std::to_string(p.feature_stride));
  }
  if (p.rpn_post_nms_top_n < 1) {
    throw dmlc::ParamError("rpn_post_nms_top_n must be at least 1 (the rows per image), got " +
                           std::to_string(p.rpn_post_nms_top_n));
  }
  ProposalLayout l;
  l.images = cls_prob[0];
  l.anchors = cls_prob[1] / 2;
  l.height = cls_prob[2];
  l.width = cls_prob[3];
  const index_t count = l.anchors * l.height * l.width;
  l.pre_nms = p.rpn_pre_nms_top_n > 0 && p.rpn_pre_nms_top_n < count ? p.rpn_pre_nms_top_n : count;
  l.post_nms = p.rpn_post_nms_top_n;
  l.threshold = p.threshold;
  l.min_size = static_cast<float>(p.rpn_min_size);
  l.stride = static_cast<float>(p.feature_stride);
  l.iou_loss = p.iou_loss;
  return l;
}

std::vector<float> BaseAnchors(const ProposalParam& p) {
  // Faster R-CNN's generate_anchors: the cell's area over each ratio, its square root
  // rounded, times each scale; float arithmetic as MXNet's.
  const float side = static_cast<float>(p.feature_stride);
  const float centre = 0.5f * (side - 1.0f);
  std::vector<float> anchors;
  for (size_t r = 0; r < p.ratios.size(); ++r) {
    for (size_t k = 0; k < p.scales.size(); ++k) {
      const float ratio = p.ratios[r], scale = p.scales[k];
      const float area_over_ratio = std::floor(side * side / ratio);
      const float w = std::floor(std::sqrt(area_over_ratio) + 0.5f) * scale;
      const float h = std::floor(w / scale * ratio + 0.5f) * scale;
      for (float v : {centre - 0.5f * (w - 1.0f), centre - 0.5f * (h - 1.0f),
                      centre + 0.5f * (w - 1.0f), centre + 0.5f * (h - 1.0f)}) {
        anchors.push_back(v);
      }
    }
  }
  return anchors;
}

namespace {

// cls_prob (B, 2A, H, W), bbox_pred (B, 4A, H, W), im_info (B, 3) -> rois (B * post, 5) and
// scores (B * post, 1); A = ratios x scales; _contrib_Proposal takes one image.
bool ProposalShape(bool one_image, const NodeAttrs& attrs, std::vector<TShape>* in,
                   std::vector<TShape>* out) {
  const TShape &prob = (*in)[0], &pred = (*in)[1], &info = (*in)[2];
  if (!ShapeIsKnown(prob) || !ShapeIsKnown(pred) || !ShapeIsKnown(info)) return false;
  const ProposalParam& p = GetParam<ProposalParam>(attrs);
  const index_t anchors = static_cast<index_t>(p.ratios.size() * p.scales.size());
  std::ostringstream os;
  if (prob.ndim() != 4 || prob[1] != 2 * anchors) {
    os << "cls_prob must be (batch, 2 x " << anchors << ", height, width): background and "
       << "foreground scores of " << p.ratios.size() << " ratios x " << p.scales.size()
       << " scales of anchors, got " << prob;
    throw dmlc::Error(os.str());
  }
  if (one_image && prob[0] != 1) {
    os << "_contrib_Proposal takes one image, cls_prob " << prob << " holds " << prob[0]
       << " (_contrib_MultiProposal takes a batch)";
    throw dmlc::Error(os.str());
  }
  if (pred.ndim() != 4 || pred[0] != prob[0] || pred[1] != 4 * anchors || pred[2] != prob[2] ||
      pred[3] != prob[3]) {
    os << "bbox_pred " << pred << " must be (" << prob[0] << ", " << 4 * anchors << ", " << prob[2]
       << ", " << prob[3] << "): four values for each anchor of cls_prob " << prob;
    throw dmlc::Error(os.str());
  }
  if (info.ndim() != 2 || info[0] != prob[0] || info[1] != 3) {
    os << "im_info " << info << " must be (" << prob[0] << ", 3): each image's height, width "
       << "and scale";
    throw dmlc::Error(os.str());
  }
  const ProposalLayout l = ProposalLayoutOf(p, prob);
  AssignOutputShape(out, 0, TShape{l.images * l.post_nms, 5});
  AssignOutputShape(out, 1, TShape{l.images * l.post_nms, 1});
  return true;
}

void RegisterProposal(const char* name, bool one_image, const char* images) {
  Op& op = RegisterOp(name);
  op.describe(std::string("Faster R-CNN's region proposals for ") + images +
              ": rows [image, x1, y1, x2, y2], rpn_post_nms_top_n per image, of the anchors "
              "at every feature map position moved by bbox_pred and clipped to the image, "
              "the best rpn_pre_nms_top_n by foreground score suppressed greedily at IoU "
              "threshold (kept ones repeated when fewer remain); their scores with "
              "output_score.")
      .set_num_inputs(3)
      .set_num_outputs(2)
      .set_num_visible_outputs([](const NodeAttrs& attrs) -> uint32_t {
        return GetParam<ProposalParam>(attrs).output_score ? 2 : 1;
      })
      .add_argument("cls_prob", "NDArray-or-Symbol",
                    "Scores (batch, 2 x anchors, height, width): background, then foreground.")
      .add_argument("bbox_pred", "NDArray-or-Symbol",
                    "Box regressions (batch, 4 x anchors, height, width).")
      .add_argument("im_info", "NDArray-or-Symbol", "Images' (height, width, scale) (batch, 3).")
      .add_arguments(ProposalParam::__FIELDS__())
      .set_attr_parser(ParamParser<ProposalParam>)
      .set_attr<FInferShape>(
          "FInferShape",
          [one_image](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
            return ProposalShape(one_image, attrs, in, out);
          })
      .set_attr<FInferType>("FInferType", SameRealType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);  // boxes, orders
  SetZeroGradient(op, std::string("_backward") + name, ParamParser<ProposalParam>);
}

const bool kRegistered = [] {
  RegisterProposal("_contrib_Proposal", true, "one image");
  RegisterProposal("_contrib_MultiProposal", false, "a batch of images");
  SetProposalCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace bounding_box
}  // namespace ops
