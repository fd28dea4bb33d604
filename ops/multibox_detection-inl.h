// ops/multibox_detection-inl.h: MXNet 1.9.1's _contrib_MultiBoxDetection, SSD's detections
// from its class probabilities, box regressions and anchors, written once for every device.
//
// Per image and anchor: the most probable class other than the background (the first of
// equals) and its probability; an anchor scoring at least `threshold` is a detection, its box
// the anchor moved and scaled by the regression (SSD's encoding with `variances`), clipped to
// [0, 1] with `clip`. The detections in descending score order (ties in anchor order), the
// first nms_topk of them suppressing, greedily, the later ones of their class (any class with
// force_suppress) that overlap them by an IoU above nms_threshold; a suppressed detection, and
// one past nms_topk, keeps its row with class -1. Rows after the detections are -1. Each row
// is [class, score, xmin, ymin, xmax, ymax], class the index among the classes without the
// background. The inputs get zero gradients (MXNet registers none).
//
// Where MXNet 1.9.1's CPU build differs: it skips class 0 whatever background_id says (ours
// skips background_id), and with nms_topk it fills the rows past it with copies of other
// rows (ours keeps each detection's own values).
// multibox_detection.cc registers it with FCompute<cpu>; multibox_detection.cu adds
// FCompute<gpu>.
#ifndef OPS_MULTIBOX_DETECTION_INL_H_
#define OPS_MULTIBOX_DETECTION_INL_H_

#include <cmath>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/box_nms-inl.h"
#include "ops/float_tuple.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace bounding_box {

struct MultiBoxDetectionParam : public dmlc::Parameter<MultiBoxDetectionParam> {
  bool clip;
  float threshold;
  int background_id;
  float nms_threshold;
  bool force_suppress;
  FloatTuple variances;
  int nms_topk;
  DMLC_DECLARE_PARAMETER(MultiBoxDetectionParam) {
    DMLC_DECLARE_FIELD(clip).set_default(true).describe("Clip the boxes to [0, 1].");
    DMLC_DECLARE_FIELD(threshold).set_default(0.01f).describe("The least score of a detection.");
    DMLC_DECLARE_FIELD(background_id)
        .set_default(0)
        .describe("The background class, never detected; -1: none.");
    DMLC_DECLARE_FIELD(nms_threshold)
        .set_default(0.5f)
        .describe(
            "A detection whose IoU with a kept one of higher score exceeds this is suppressed.");
    DMLC_DECLARE_FIELD(force_suppress).set_default(false).describe("Suppress across classes too.");
    DMLC_DECLARE_FIELD(variances)
        .set_default(FloatTuple{{0.1f, 0.1f, 0.2f, 0.2f}})
        .describe("The regression's scales: centre x, centre y, width, height.");
    DMLC_DECLARE_FIELD(nms_topk).set_default(-1).describe(
        "Only the nms_topk best detections take part in the suppression (the rest get class "
        "-1); <= 0: all.");
  }
};

// What the kernel reads: the extents and the parameters.
struct DetectionLayout {
  index_t images = 0, classes = 0, anchors = 0;
  bool clip = true, force_suppress = false;
  float threshold = 0.01f, nms_threshold = 0.5f;
  int background_id = 0, nms_topk = -1;
  float variance[4] = {0.1f, 0.1f, 0.2f, 0.2f};
};

// Item b: image b's detections. records holds 6 values an anchor; keys two DTypes and order
// and spare an int each.
struct multibox_detection_item {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t b, DetectionLayout l, const DType* cls_prob,
                                  const DType* loc_pred, const DType* anchors, DType* out,
                                  DType* record_space, DType* key_space, int* order_space,
                                  int* spare_space, OpReqType req) {
    const index_t n = l.anchors;
    const DType* prob = cls_prob + b * l.classes * n;
    const DType* loc = loc_pred + b * n * 4;
    DType* records = record_space + b * n * 6;
    DType* keys = key_space + 2 * b * n;
    DType* key_spare = keys + n;
    int* order = order_space + b * n;
    int* spare = spare_space + b * n;
    // Each anchor's best class (in spare) and score (in keys), a class's row at a time: the
    // first class read sets them, a later one replaces them only with a higher score. The
    // loops in SIMD lanes, which GCC's -O2 had left scalar (docs/benchmarks.md).
    int first = 0;
    while (first == l.background_id) ++first;
    if (first >= static_cast<int>(l.classes)) first = -1;
    OPS_SIMD_LOOP
    for (index_t i = 0; i < n; ++i) {
      spare[i] = first;
      keys[i] = first < 0 ? DType(0) : prob[first * n + i];
    }
    for (index_t c = first + 1; first >= 0 && c < l.classes; ++c) {
      if (static_cast<int>(c) == l.background_id) continue;
      const DType* row = prob + c * n;
      OPS_SIMD_LOOP
      for (index_t i = 0; i < n; ++i) {
        const bool higher = row[i] > keys[i];
        keys[i] = higher ? row[i] : keys[i];
        spare[i] = higher ? static_cast<int>(c) : spare[i];
      }
    }
    // The detections: their records, their scores moved down to keys[0, m).
    index_t m = 0;
    for (index_t i = 0; i < n; ++i) {
      const int best = spare[i];
      const DType score = keys[i];
      if (best < 0 || !(score >= DType(l.threshold))) continue;
      DType* r = records + i * 6;
      r[0] = DType(best - (l.background_id >= 0 && best > l.background_id ? 1 : 0));
      r[1] = score;
      const DType* a = anchors + i * 4;
      const DType* p = loc + i * 4;
      const DType aw = a[2] - a[0], ah = a[3] - a[1];
      const DType x = p[0] * DType(l.variance[0]) * aw + (a[0] + a[2]) / DType(2);
      const DType y = p[1] * DType(l.variance[1]) * ah + (a[1] + a[3]) / DType(2);
      const DType half_w = DType(std::exp(p[2] * DType(l.variance[2]))) * aw / DType(2);
      const DType half_h = DType(std::exp(p[3] * DType(l.variance[3]))) * ah / DType(2);
      const DType box[4] = {x - half_w, y - half_h, x + half_w, y + half_h};
      for (int k = 0; k < 4; ++k) {
        const DType v = box[k];
        r[2 + k] = l.clip ? (v < DType(0) ? DType(0) : (v > DType(1) ? DType(1) : v)) : v;
      }
      keys[m] = score;
      order[m++] = static_cast<int>(i);
    }
    SortByDescendingKey(&keys, &order, &key_spare, &spare, m);
    const index_t contenders = l.nms_topk > 0 && m > l.nms_topk ? l.nms_topk : m;
    for (index_t k = contenders; k < m; ++k) records[order[k] * 6] = DType(-1);
    for (index_t k = 0; k < contenders; ++k) {
      const DType* kept = records + order[k] * 6;
      if (kept[0] < DType(0)) continue;
      for (index_t j = k + 1; j < contenders; ++j) {
        DType* other = records + order[j] * 6;
        if (other[0] < DType(0) || (!l.force_suppress && other[0] != kept[0])) continue;
        if (IntersectionOverUnion(kept + 2, other + 2) > DType(l.nms_threshold))
          other[0] = DType(-1);
      }
    }
    DType* image = out + b * n * 6;
    for (index_t k = 0; k < n; ++k) {
      const DType* from = k < m ? records + order[k] * 6 : nullptr;
      DType* to = image + k * 6;
      if (req == kAddTo) {
        for (int v = 0; v < 6; ++v) to[v] += from != nullptr ? from[v] : DType(-1);
      } else {
        for (int v = 0; v < 6; ++v) to[v] = from != nullptr ? from[v] : DType(-1);
      }
    }
  }
};

DetectionLayout DetectionLayoutOf(const MultiBoxDetectionParam& p, const TShape& cls_prob);

template <typename xpu>
void MultiBoxDetectionCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const DetectionLayout l =
      DetectionLayoutOf(GetParam<MultiBoxDetectionParam>(attrs), in[0].shape_);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t rows = l.images * l.anchors;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    // The records and two key arrays (8 DTypes a row), then two orders of ints.
    DType* records =
        static_cast<DType*>(TempBytes(ctx, rows * (8 * sizeof(DType) + 2 * sizeof(int)), s));
    DType* keys = records + 6 * rows;
    int* orders = reinterpret_cast<int*>(keys + 2 * rows);
    Kernel<multibox_detection_item, xpu>::LaunchItems(
        s, l.images, l.anchors * l.classes, l, in[0].dptr<DType>(), in[1].dptr<DType>(),
        in[2].dptr<DType>(), out[0].dptr<DType>(), records, keys, orders, orders + rows, req[0]);
  });
}

// Adds FCompute<xpu> to the operator and its zero gradient.
template <typename xpu>
void SetMultiBoxDetectionCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_MultiBoxDetection")
      .set_attr<FCompute>(attr_name, FCompute(MultiBoxDetectionCompute<xpu>));
  RegisterOp("_backward_contrib_MultiBoxDetection")
      .set_attr<FCompute>(attr_name, FCompute(ZeroGradientCompute<xpu>));
}

}  // namespace bounding_box
}  // namespace ops

#endif  // OPS_MULTIBOX_DETECTION_INL_H_
