// ops/proposal-inl.h: MXNet 1.9.1's _contrib_Proposal and _contrib_MultiProposal, Faster
// R-CNN's region proposals from the RPN's scores and box regressions, written once for every
// device.
//
// Per image: an anchor at every position of the (height, width) feature map (the base
// anchors of `ratios` x `scales` around a feature_stride cell, shifted by the stride), scored
// by its foreground channel (the second half of cls_prob's), moved by bbox_pred (Faster
// R-CNN's centre offsets and log sizes, or corner offsets with iou_loss) and clipped to the
// image (im_info: height, width, scale). Positions past the image's own extent
// (floor(height / feature_stride) rows, likewise columns; an image spanning more positions
// than the map has is an error, checked on the host first) score -1, as do boxes narrower or
// lower than rpn_min_size x scale (widened by it). The best rpn_pre_nms_top_n by score
// (ties in position order) go through greedy suppression at IoU `threshold` (MXNet's pixel
// convention: widths x2 - x1 + 1), until rpn_post_nms_top_n are kept; the output's
// rpn_post_nms_top_n rows per image [image, x1, y1, x2, y2] repeat the kept ones cyclically
// when fewer are kept. The scores of the rows are a second output, visible with
// output_score. The inputs get zero gradients (MXNet's).
//
// Where MXNet 1.9.1 differs: its order of equal scores is std::sort's, unspecified (boxes
// scoring -1 tie); `_contrib_Proposal` with more than one image fails inside its kernel,
// ours is a shape error at inference.
// proposal.cc registers them with FCompute<cpu>; proposal.cu adds FCompute<gpu>.
#ifndef OPS_PROPOSAL_INL_H_
#define OPS_PROPOSAL_INL_H_

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/box_nms-inl.h"
#include "ops/float_tuple.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace bounding_box {

struct ProposalParam : public dmlc::Parameter<ProposalParam> {
  int rpn_pre_nms_top_n;
  int rpn_post_nms_top_n;
  float threshold;
  int rpn_min_size;
  FloatTuple scales;
  FloatTuple ratios;
  int feature_stride;
  bool output_score;
  bool iou_loss;
  DMLC_DECLARE_PARAMETER(ProposalParam) {
    DMLC_DECLARE_FIELD(rpn_pre_nms_top_n)
        .set_default(6000)
        .describe("The best boxes by score that enter the suppression; <= 0: all.");
    DMLC_DECLARE_FIELD(rpn_post_nms_top_n)
        .set_default(300)
        .describe("The boxes kept per image (the output's rows per image).");
    DMLC_DECLARE_FIELD(threshold).set_default(0.7f).describe(
        "A box whose IoU with a kept one of higher score exceeds this is suppressed.");
    DMLC_DECLARE_FIELD(rpn_min_size)
        .set_default(16)
        .describe("Boxes narrower or lower than this times the image's scale score -1.");
    DMLC_DECLARE_FIELD(scales)
        .set_default(FloatTuple{{4.0f, 8.0f, 16.0f, 32.0f}})
        .describe("The anchors' sizes, in feature_stride cells.");
    DMLC_DECLARE_FIELD(ratios)
        .set_default(FloatTuple{{0.5f, 1.0f, 2.0f}})
        .describe("The anchors' height / width ratios.");
    DMLC_DECLARE_FIELD(feature_stride)
        .set_default(16)
        .describe("Image pixels per feature map position.");
    DMLC_DECLARE_FIELD(output_score).set_default(false).describe("Output the boxes' scores too.");
    DMLC_DECLARE_FIELD(iou_loss).set_default(false).describe(
        "bbox_pred holds corner offsets (IoU loss) instead of centre offsets and log sizes.");
  }
};

// What the kernel reads: the extents and the parameters.
struct ProposalLayout {
  index_t images = 0, anchors = 0, height = 0, width = 0;
  index_t pre_nms = 0;   // boxes entering the suppression
  index_t post_nms = 0;  // output rows per image
  float threshold = 0.7f, min_size = 16.0f, stride = 16.0f;
  bool iou_loss = false;
};

// An image's scratch: its boxes (5 values a position) and two key arrays, then the best
// pre_nms boxes' corners, areas and suppression flags (one array each) in DType; two orders
// and the kept boxes in ints.
MSHADOW_XINLINE index_t ProposalRealsPerImage(const ProposalLayout& l) {
  return l.anchors * l.height * l.width * 7 + l.pre_nms * 6;
}
MSHADOW_XINLINE index_t ProposalIntsPerImage(const ProposalLayout& l) {
  return l.anchors * l.height * l.width * 2 + l.post_nms;
}

// Item b: image b's proposals.
struct proposal_item {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t b, ProposalLayout l, const DType* cls_prob,
                                  const DType* bbox_pred, const DType* im_info,
                                  const DType* anchors, DType* rois, DType* scores,
                                  DType* real_space, int* int_space, OpReqType rois_req,
                                  OpReqType score_req) {
    const index_t a_count = l.anchors, plane = l.height * l.width, count = a_count * plane;
    DType* boxes = real_space + b * ProposalRealsPerImage(l);
    DType* keys = boxes + 5 * count;
    DType* corners = keys + 2 * count;  // x1, y1, x2, y2 arrays of pre_nms each
    DType* area = corners + 4 * l.pre_nms;
    DType* suppressed = area + l.pre_nms;
    int* order = int_space + b * ProposalIntsPerImage(l);
    int* kept = order + 2 * count;
    const DType im_height = im_info[b * 3], im_width = im_info[b * 3 + 1];
    const DType min_size = DType(l.min_size) * im_info[b * 3 + 2];
    // Positions past floor(extent / stride) lie outside the image (all, for a NaN extent).
    const DType rows = DType(std::floor(im_height / DType(l.stride)));
    const DType columns = DType(std::floor(im_width / DType(l.stride)));
    const DType* score_planes = cls_prob + (b * 2 + 1) * a_count * plane;
    const DType* deltas = bbox_pred + b * 4 * a_count * plane;
    for (index_t p = 0; p < count; ++p) {
      const index_t a = p % a_count, position = p / a_count;
      const index_t h = position / l.width, w = position % l.width;
      const DType shift_x = DType(w) * DType(l.stride), shift_y = DType(h) * DType(l.stride);
      DType* box = boxes + 5 * p;
      const DType anchor[4] = {anchors[4 * a] + shift_x, anchors[4 * a + 1] + shift_y,
                               anchors[4 * a + 2] + shift_x, anchors[4 * a + 3] + shift_y};
      const DType* d = deltas + 4 * a * plane + position;
      MoveBox(l.iou_loss, anchor, d[0], d[plane], d[2 * plane], d[3 * plane], box);
      const DType clip[4] = {im_width - DType(1), im_height - DType(1), im_width - DType(1),
                             im_height - DType(1)};
      for (int k = 0; k < 4; ++k) {
        const DType v = box[k] < clip[k] ? box[k] : clip[k];
        box[k] = v > DType(0) ? v : DType(0);
      }
      const bool inside = DType(h) < rows && DType(w) < columns;
      box[4] = inside ? score_planes[a * plane + position] : DType(-1);
      // Too small: widened by the least size, scored -1.
      if (box[2] - box[0] + DType(1) < min_size || box[3] - box[1] + DType(1) < min_size) {
        const DType half = min_size / DType(2);
        box[0] -= half, box[1] -= half, box[2] += half, box[3] += half;
        box[4] = DType(-1);
      }
      keys[p] = box[4];
      order[p] = static_cast<int>(p);
    }
    DType* key_spare = keys + count;
    int* spare = order + count;
    SortByDescendingKey(&keys, &order, &key_spare, &spare, count);
    // Greedy suppression over the best pre_nms, until post_nms are kept: their corners in
    // arrays of their own, so that each kept box's pass over the rest runs on SIMD lanes.
    const index_t pre = l.pre_nms;
    DType *x1 = corners, *y1 = x1 + pre, *x2 = y1 + pre, *y2 = x2 + pre;
    for (index_t i = 0; i < pre; ++i) {
      const DType* box = boxes + 5 * order[i];
      x1[i] = box[0], y1[i] = box[1], x2[i] = box[2], y2[i] = box[3];
      area[i] = (box[2] - box[0] + DType(1)) * (box[3] - box[1] + DType(1));
      suppressed[i] = DType(0);
    }
    const index_t wanted = l.post_nms < pre ? l.post_nms : pre;
    const DType threshold = DType(l.threshold);
    index_t kept_count = 0;
    for (index_t i = 0; i < pre && kept_count < wanted; ++i) {
      if (suppressed[i] != DType(0)) continue;
      kept[kept_count++] = order[i];
      const DType left = x1[i], top = y1[i], right = x2[i], bottom = y2[i], own = area[i];
      OPS_SIMD_LOOP
      for (index_t j = i + 1; j < pre; ++j) {
        const DType iw = (right < x2[j] ? right : x2[j]) - (left > x1[j] ? left : x1[j]) + DType(1);
        const DType ih = (bottom < y2[j] ? bottom : y2[j]) - (top > y1[j] ? top : y1[j]) + DType(1);
        const DType overlap = (iw > DType(0) ? iw : DType(0)) * (ih > DType(0) ? ih : DType(0));
        const bool over = overlap / (own + area[j] - overlap) > threshold;
        suppressed[j] = over ? DType(1) : suppressed[j];
      }
    }
    for (index_t r = 0; r < l.post_nms; ++r) {
      const DType* box = boxes + 5 * kept[r % kept_count];
      DType* row = rois + (b * l.post_nms + r) * 5;
      AssignReq(row, DType(b), rois_req);
      for (int k = 0; k < 4; ++k) AssignReq(row + 1 + k, box[k], rois_req);
      if (scores != nullptr) AssignReq(scores + b * l.post_nms + r, box[4], score_req);
    }
  }

  // The anchor's corners moved by the regression (dx, dy, dw, dh), or by corner offsets.
  template <typename DType>
  MSHADOW_XINLINE static void MoveBox(bool iou_loss, const DType* anchor, DType d0, DType d1,
                                      DType d2, DType d3, DType* box) {
    if (iou_loss) {
      box[0] = anchor[0] + d0, box[1] = anchor[1] + d1;
      box[2] = anchor[2] + d2, box[3] = anchor[3] + d3;
      return;
    }
    const DType width = anchor[2] - anchor[0] + DType(1);
    const DType height = anchor[3] - anchor[1] + DType(1);
    const DType x = d0 * width + anchor[0] + DType(0.5f) * (width - DType(1));
    const DType y = d1 * height + anchor[1] + DType(0.5f) * (height - DType(1));
    const DType half_w = DType(0.5f) * (DType(std::exp(d2)) * width - DType(1));
    const DType half_h = DType(0.5f) * (DType(std::exp(d3)) * height - DType(1));
    box[0] = x - half_w, box[1] = y - half_h, box[2] = x + half_w, box[3] = y + half_h;
  }
};

ProposalLayout ProposalLayoutOf(const ProposalParam& p, const TShape& cls_prob);

// The base anchors (ratios x scales, 4 corners each) around the cell at the origin.
std::vector<float> BaseAnchors(const ProposalParam& p);

// Throws dmlc::Error when an image (im_info: height, width, scale per image) spans more
// feature map positions than the map has, or its size is not a number (MXNet's check).
template <typename DType>
void CheckImageSizes(const DType* im_info, const ProposalLayout& l) {
  for (index_t b = 0; b < l.images; ++b) {
    const double height = static_cast<double>(im_info[b * 3]);
    const double width = static_cast<double>(im_info[b * 3 + 1]);
    const double rows = std::floor(height / l.stride), columns = std::floor(width / l.stride);
    if (rows <= static_cast<double>(l.height) && columns <= static_cast<double>(l.width)) continue;
    std::ostringstream os;
    os << "im_info of image " << b << ": height " << height << " and width " << width
       << " at feature_stride " << l.stride << " span " << rows << " x " << columns
       << " positions, more than the " << l.height << " x " << l.width << " feature map of "
       << "cls_prob";
    throw dmlc::Error(os.str());
  }
}

template <typename xpu>
void ProposalCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ProposalParam& param = GetParam<ProposalParam>(attrs);
  const ProposalLayout l = ProposalLayoutOf(param, in[0].shape_);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    WithIndicesOnHost<xpu, DType>(in[2], s,
                                  [&](const DType* host, index_t) { CheckImageSizes(host, l); });
    const std::vector<float> base = BaseAnchors(param);
    std::vector<DType> host(base.begin(), base.end());
    const index_t reals = l.images * ProposalRealsPerImage(l) + 4 * l.anchors;
    DType* real_space = static_cast<DType*>(TempBytes(
        ctx, reals * sizeof(DType) + l.images * ProposalIntsPerImage(l) * sizeof(int), s));
    DType* anchors = real_space + reals - 4 * l.anchors;
    mshadow::Copy(
        mshadow::Tensor<xpu, 1, DType>(anchors, mshadow::Shape1(4 * l.anchors), s),
        mshadow::Tensor<mshadow::cpu, 1, DType>(host.data(), mshadow::Shape1(4 * l.anchors)), s);
    // The scores' output exists, hidden, without output_score.
    DType* scores = req[1] != kNullOp ? out[1].dptr<DType>() : nullptr;
    Kernel<proposal_item, xpu>::LaunchItems(
        s, l.images, l.anchors * l.height * l.width * 16, l, in[0].dptr<DType>(),
        in[1].dptr<DType>(), in[2].dptr<DType>(), anchors, out[0].dptr<DType>(), scores, real_space,
        reinterpret_cast<int*>(real_space + reals), req[0], req[1]);
    if constexpr (!std::is_same_v<xpu, mshadow::cpu>) s->Wait();  // `host` goes out of scope
  });
}

// Adds FCompute<xpu> to both operators and their zero gradients.
template <typename xpu>
void SetProposalCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  for (const char* name : {"_contrib_Proposal", "_contrib_MultiProposal"}) {
    RegisterOp(name).set_attr<FCompute>(attr_name, FCompute(ProposalCompute<xpu>));
    RegisterOp(std::string("_backward") + name)
        .set_attr<FCompute>(attr_name, FCompute(ZeroGradientCompute<xpu>));
  }
}

}  // namespace bounding_box
}  // namespace ops

#endif  // OPS_PROPOSAL_INL_H_
