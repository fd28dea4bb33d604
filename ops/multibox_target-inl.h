// ops/multibox_target-inl.h: MXNet 1.9.1's _contrib_MultiBoxTarget, SSD's training targets
// from its anchors, the images' labelled boxes and the class predictions, written once for
// every device.
//
// Per image: the labels are its rows up to the first of class -1 (padding, which must be -1
// throughout: checked on the host first). Anchors are matched to labels in two rounds: first
// each label its own anchor, the pair of highest IoU of the unmatched ones at a time (IoU
// above 1e-6); then, with overlap_threshold > 0, every other anchor whose best label overlaps
// it by more than overlap_threshold. A matched anchor is positive: its class target the
// label's class + 1 (0 is the background), its box target the label's box encoded against
// the anchor (SSD's centre offsets and log sizes over `variances`), its mask 1. Without
// negative mining every other anchor is negative (class 0, mask 0); with
// negative_mining_ratio > 0 only the anchors whose best IoU is below negative_mining_thresh
// can be, the hardest first (the lowest background probability of a softmax over cls_pred,
// ties in anchor order), positives x ratio of them (at least minimum_negative_samples, at
// most the anchors left); the rest get ignore_label. An image without labels is all
// ignore_label. The inputs get zero gradients (MXNet's).
//
// Where MXNet 1.9.1's CPU build differs: it ignores minimum_negative_samples (its GPU build
// honours it, as ours), and when fewer anchors qualify as negatives than mining asks for it
// stops with an error; ours takes the ones there are.
// multibox_target.cc registers it with FCompute<cpu>; multibox_target.cu adds FCompute<gpu>.
#ifndef OPS_MULTIBOX_TARGET_INL_H_
#define OPS_MULTIBOX_TARGET_INL_H_

#include <cmath>
#include <string>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/bounding_box-inl.h"
#include "ops/box_nms-inl.h"
#include "ops/float_tuple.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace bounding_box {

struct MultiBoxTargetParam : public dmlc::Parameter<MultiBoxTargetParam> {
  float overlap_threshold;
  float ignore_label;
  float negative_mining_ratio;
  float negative_mining_thresh;
  int minimum_negative_samples;
  FloatTuple variances;
  DMLC_DECLARE_PARAMETER(MultiBoxTargetParam) {
    DMLC_DECLARE_FIELD(overlap_threshold)
        .set_default(0.5f)
        .describe("An anchor whose best label overlaps it by an IoU above this is positive.");
    DMLC_DECLARE_FIELD(ignore_label)
        .set_default(-1.0f)
        .describe("The class target of anchors neither positive nor negative.");
    DMLC_DECLARE_FIELD(negative_mining_ratio)
        .set_default(-1.0f)
        .describe("Negatives per positive, the hardest first; <= 0: every other anchor.");
    DMLC_DECLARE_FIELD(negative_mining_thresh)
        .set_default(0.5f)
        .describe("With mining, only anchors whose best IoU is below this can be negatives.");
    DMLC_DECLARE_FIELD(minimum_negative_samples)
        .set_default(0)
        .describe("With mining, the fewest negatives an image with labels gets.");
    DMLC_DECLARE_FIELD(variances)
        .set_default(FloatTuple{{0.1f, 0.1f, 0.2f, 0.2f}})
        .describe("The box targets' scales: centre x, centre y, width, height.");
  }
};

// What the kernel reads: the extents and the parameters.
struct TargetLayout {
  index_t images = 0, anchors = 0, labels = 0, label_width = 0, classes = 0;
  float overlap_threshold = 0.5f, ignore_label = -1.0f;
  float negative_mining_ratio = -1.0f, negative_mining_thresh = 0.5f;
  int minimum_negative_samples = 0;
  float variance[4] = {0.1f, 0.1f, 0.2f, 0.2f};
};

// An image's scratch: overlaps (anchors x labels), best IoUs and two key arrays in DType;
// matches, flags, two orders and the labels' matched flags in ints.
MSHADOW_XINLINE index_t TargetRealsPerImage(const TargetLayout& l) {
  return l.anchors * (l.labels + 3);
}
MSHADOW_XINLINE index_t TargetIntsPerImage(const TargetLayout& l) {
  return 4 * l.anchors + l.labels;
}

enum AnchorFlag : int { kIgnoredAnchor = -1, kNegativeAnchor = 0, kPositiveAnchor = 1 };

// The best IoU of anchor row `overlap` (count labels) and its label (-1: none, all NaN).
template <typename DType>
MSHADOW_XINLINE int BestLabel(const DType* overlap, index_t count, DType* best) {
  int label = -1;
  *best = DType(-1);
  for (index_t k = 0; k < count; ++k) {
    const bool higher = overlap[k] > *best;
    *best = higher ? overlap[k] : *best;
    label = higher ? static_cast<int>(k) : label;
  }
  return label;
}

// The background's softmax probability of anchor j: column j of an image's (classes, anchors).
template <typename DType>
MSHADOW_XINLINE DType BackgroundProbability(const DType* pred, index_t classes, index_t n,
                                            index_t j) {
  DType top = pred[j];
  for (index_t c = 1; c < classes; ++c) top = pred[c * n + j] > top ? pred[c * n + j] : top;
  DType sum = DType(0);
  for (index_t c = 0; c < classes; ++c) sum += DType(std::exp(pred[c * n + j] - top));
  return DType(std::exp(pred[j] - top)) / sum;
}

// Item b: image b's targets.
struct multibox_target_item {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t b, TargetLayout l, const DType* anchors,
                                  const DType* labels, const DType* cls_pred, DType* loc_target,
                                  DType* loc_mask, DType* cls_target, DType* real_space,
                                  int* int_space, OpReqType loc_req, OpReqType mask_req,
                                  OpReqType cls_req) {
    const index_t n = l.anchors, width = l.label_width;
    const DType* label = labels + b * l.labels * width;
    index_t valid = 0;
    while (valid < l.labels && label[valid * width] != DType(-1)) ++valid;
    DType* overlap = real_space + b * TargetRealsPerImage(l);
    DType* best_iou = overlap + n * l.labels;
    DType* keys = best_iou + n;
    int* match = int_space + b * TargetIntsPerImage(l);
    int* flag = match + n;
    int* order = flag + n;
    int* label_taken = order + 2 * n;
    for (index_t j = 0; j < n; ++j) {
      flag[j] = kIgnoredAnchor;
      match[j] = -1;
      best_iou[j] = DType(-1);
      for (index_t k = 0; k < valid; ++k) {
        overlap[j * valid + k] = IntersectionOverUnion(anchors + j * 4, label + k * width + 1);
      }
    }
    if (valid > 0) {
      MatchAnchors(l, n, valid, cls_pred + b * l.classes * n, overlap, best_iou, keys, match, flag,
                   order, label_taken);
    }
    DType* loc = loc_target + b * n * 4;
    DType* mask = loc_mask + b * n * 4;
    for (index_t j = 0; j < n; ++j) {
      DType box[4] = {DType(0), DType(0), DType(0), DType(0)};
      const bool positive = flag[j] == kPositiveAnchor;
      if (positive) EncodeBox(l, anchors + j * 4, label + match[j] * width + 1, box);
      for (int v = 0; v < 4; ++v) {
        AssignReq(loc + j * 4 + v, box[v], loc_req);
        AssignReq(mask + j * 4 + v, DType(positive ? 1 : 0), mask_req);
      }
      const DType cls = positive ? label[match[j] * width] + DType(1)
                                 : DType(flag[j] == kNegativeAnchor ? 0.0f : l.ignore_label);
      AssignReq(cls_target + b * n + j, cls, cls_req);
    }
  }

  // Sets flag and match of an image with `valid` labels (overlap: anchors x valid).
  template <typename DType>
  MSHADOW_XINLINE static void MatchAnchors(const TargetLayout& l, index_t n, index_t valid,
                                           const DType* pred, const DType* overlap, DType* best_iou,
                                           DType* keys, int* match, int* flag, int* order,
                                           int* label_taken) {
    for (index_t k = 0; k < valid; ++k) label_taken[k] = 0;
    // Round one: each label its anchor, the best remaining pair at a time.
    index_t positives = 0;
    for (index_t round = 0; round < valid; ++round) {
      DType best = DType(1e-6f);
      int best_anchor = -1, best_label = -1;
      for (index_t j = 0; j < n; ++j) {
        if (flag[j] == kPositiveAnchor) continue;
        for (index_t k = 0; k < valid; ++k) {
          if (label_taken[k] || !(overlap[j * valid + k] > best)) continue;
          best = overlap[j * valid + k];
          best_anchor = static_cast<int>(j);
          best_label = static_cast<int>(k);
        }
      }
      if (best_anchor < 0) break;
      flag[best_anchor] = kPositiveAnchor;
      match[best_anchor] = best_label;
      best_iou[best_anchor] = best;
      label_taken[best_label] = 1;
      ++positives;
    }
    // Round two: every other anchor overlapping its best label enough.
    if (l.overlap_threshold > 0) {
      for (index_t j = 0; j < n; ++j) {
        if (flag[j] == kPositiveAnchor) continue;
        match[j] = BestLabel(overlap + j * valid, valid, best_iou + j);
        if (match[j] >= 0 && best_iou[j] > DType(l.overlap_threshold)) {
          flag[j] = kPositiveAnchor;
          ++positives;
        }
      }
    }
    if (!(l.negative_mining_ratio > 0)) {
      for (index_t j = 0; j < n; ++j) {
        flag[j] = flag[j] == kPositiveAnchor ? kPositiveAnchor : kNegativeAnchor;
      }
      return;
    }
    // Mining: the candidates' keys are minus their background probability, sorted descending.
    const index_t left = n - positives;
    const float wanted = static_cast<float>(positives) * l.negative_mining_ratio;
    index_t negatives = wanted >= static_cast<float>(left) ? left : static_cast<index_t>(wanted);
    if (negatives < l.minimum_negative_samples) negatives = l.minimum_negative_samples;
    if (negatives > left) negatives = left;
    if (negatives <= 0) return;
    index_t candidates = 0;
    for (index_t j = 0; j < n; ++j) {
      if (flag[j] == kPositiveAnchor) continue;
      if (best_iou[j] < DType(0)) match[j] = BestLabel(overlap + j * valid, valid, best_iou + j);
      if (!(best_iou[j] < DType(l.negative_mining_thresh))) continue;
      keys[candidates] = -BackgroundProbability(pred, l.classes, n, j);
      order[candidates++] = static_cast<int>(j);
    }
    DType* key_spare = keys + n;
    int* spare = order + n;
    SortByDescendingKey(&keys, &order, &key_spare, &spare, candidates);
    if (negatives > candidates) negatives = candidates;
    for (index_t k = 0; k < negatives; ++k) flag[order[k]] = kNegativeAnchor;
  }

  // SSD's box encoding of `truth` (corners) against `anchor` (corners).
  template <typename DType>
  MSHADOW_XINLINE static void EncodeBox(const TargetLayout& l, const DType* anchor,
                                        const DType* truth, DType* box) {
    const DType aw = anchor[2] - anchor[0], ah = anchor[3] - anchor[1];
    const DType ax = (anchor[0] + anchor[2]) / DType(2), ay = (anchor[1] + anchor[3]) / DType(2);
    const DType gw = truth[2] - truth[0], gh = truth[3] - truth[1];
    const DType gx = (truth[0] + truth[2]) / DType(2), gy = (truth[1] + truth[3]) / DType(2);
    box[0] = (gx - ax) / aw / DType(l.variance[0]);
    box[1] = (gy - ay) / ah / DType(l.variance[1]);
    box[2] = DType(std::log(gw / aw)) / DType(l.variance[2]);
    box[3] = DType(std::log(gh / ah)) / DType(l.variance[3]);
  }
};

TargetLayout TargetLayoutOf(const MultiBoxTargetParam& p, const TShape& anchor, const TShape& label,
                            const TShape& cls_pred);

// Throws dmlc::Error when the row ending an image's labels (class -1) is not -1 throughout.
template <typename DType>
void CheckLabelPadding(const DType* labels, const TargetLayout& l) {
  for (index_t b = 0; b < l.images; ++b) {
    for (index_t k = 0; k < l.labels; ++k) {
      const DType* row = labels + (b * l.labels + k) * l.label_width;
      if (row[0] != DType(-1)) continue;
      for (int v = 1; v <= 4; ++v) {
        if (row[v] == DType(-1)) continue;
        throw dmlc::Error("label row " + std::to_string(k) + " of image " + std::to_string(b) +
                          " has class -1, which ends an image's labels, but value " +
                          std::to_string(static_cast<double>(row[v])) + " at position " +
                          std::to_string(v) + ": padding rows must be -1 throughout");
      }
      break;
    }
  }
}

template <typename xpu>
void MultiBoxTargetCompute(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  const TargetLayout l = TargetLayoutOf(GetParam<MultiBoxTargetParam>(attrs), in[0].shape_,
                                        in[1].shape_, in[2].shape_);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    WithIndicesOnHost<xpu, DType>(in[1], s,
                                  [&](const DType* host, index_t) { CheckLabelPadding(host, l); });
    const index_t reals = l.images * TargetRealsPerImage(l);
    DType* real_space = static_cast<DType*>(
        TempBytes(ctx, reals * sizeof(DType) + l.images * TargetIntsPerImage(l) * sizeof(int), s));
    Kernel<multibox_target_item, xpu>::LaunchItems(
        s, l.images, l.anchors * (l.labels + l.classes), l, in[0].dptr<DType>(),
        in[1].dptr<DType>(), in[2].dptr<DType>(), out[0].dptr<DType>(), out[1].dptr<DType>(),
        out[2].dptr<DType>(), real_space, reinterpret_cast<int*>(real_space + reals), req[0],
        req[1], req[2]);
  });
}

// Adds FCompute<xpu> to the operator and its zero gradient.
template <typename xpu>
void SetMultiBoxTargetCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_MultiBoxTarget")
      .set_attr<FCompute>(attr_name, FCompute(MultiBoxTargetCompute<xpu>));
  RegisterOp("_backward_contrib_MultiBoxTarget")
      .set_attr<FCompute>(attr_name, FCompute(ZeroGradientCompute<xpu>));
}

}  // namespace bounding_box
}  // namespace ops

#endif  // OPS_MULTIBOX_TARGET_INL_H_
