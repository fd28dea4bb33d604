// ops/box_nms-inl.h: MXNet 1.9.1's _contrib_box_nms (non-maximum suppression of detected boxes)
// and its backward operator, written once for every device.
//
// Data (..., N, K): each of the leading positions (a batch item) holds N boxes of K values:
// a score, four coordinates from coord_start, optionally a class id, anything else. Per item:
// the valid boxes (score > valid_thresh, not of the background class) in descending score
// order (ties in input order), the first topk of them, then greedily each box not yet
// suppressed suppresses the later ones that overlap it by an IoU above overlap_thresh (of its
// own class unless force_suppress). The kept boxes fill the output's first rows in that order,
// converted to out_format, and -1 fills every other row. A hidden int32 output records each
// output row's input row (-1 for none), which the backward operator follows to send each
// kept row's gradient back; with in_format != out_format the gradient goes through the
// conversion (MXNet copies it unconverted).
//
// An item is one sequential pass (a stable merge sort, then O(kept x valid) overlaps), on the
// library's threads on the CPU and one thread an item on the GPU. box_nms.cc registers them
// with FCompute<cpu>, box_nms.cu adds FCompute<gpu>.
#ifndef OPS_BOX_NMS_INL_H_
#define OPS_BOX_NMS_INL_H_

#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/bounding_box-inl.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace bounding_box {

struct BoxNmsParam : public dmlc::Parameter<BoxNmsParam> {
  float overlap_thresh;
  float valid_thresh;
  int topk;
  int coord_start;
  int score_index;
  int id_index;
  int background_id;
  bool force_suppress;
  int in_format;
  int out_format;
  DMLC_DECLARE_PARAMETER(BoxNmsParam) {
    DMLC_DECLARE_FIELD(overlap_thresh)
        .set_default(0.5f)
        .describe("A box whose IoU with a kept box of higher score exceeds this is suppressed.");
    DMLC_DECLARE_FIELD(valid_thresh)
        .set_default(0.0f)
        .describe("Only boxes whose score exceeds this take part.");
    DMLC_DECLARE_FIELD(topk).set_default(-1).describe(
        "Only the topk highest-scoring valid boxes take part; <= 0: all of them.");
    DMLC_DECLARE_FIELD(coord_start)
        .set_default(2)
        .describe("The index in a box of the first of its four coordinates.");
    DMLC_DECLARE_FIELD(score_index).set_default(1).describe("The index in a box of its score.");
    DMLC_DECLARE_FIELD(id_index).set_default(-1).describe(
        "The index in a box of its class id; -1: no classes.");
    DMLC_DECLARE_FIELD(background_id)
        .set_default(-1)
        .describe("With id_index: the class whose boxes are dropped; -1: none.");
    DMLC_DECLARE_FIELD(force_suppress)
        .set_default(false)
        .describe("Suppress across classes too (with id_index; without, every box is one class).");
    DMLC_DECLARE_FIELD(in_format)
        .add_enum("corner", kCorner)
        .add_enum("center", kCenter)
        .set_default(kCorner)
        .describe("The input coordinates: [xmin, ymin, xmax, ymax] or [x, y, width, height].");
    DMLC_DECLARE_FIELD(out_format)
        .add_enum("corner", kCorner)
        .add_enum("center", kCenter)
        .set_default(kCorner)
        .describe("The output coordinates, as in_format.");
  }
};

// What the kernels read of the parameters, with the item's extents.
struct NmsLayout {
  index_t items = 0;  // the product of the leading axes
  index_t boxes = 0;  // N
  index_t width = 0;  // K
  int coord_start = 2, score_index = 1, id_index = -1, topk = -1;
  float overlap_thresh = 0.5f, valid_thresh = 0.0f;
  int background_id = -1;
  bool force_suppress = false;
  int in_format = kCorner, out_format = kCorner;
};

// One output value of a row: its input value, the coordinates converted between formats.
template <typename DType>
MSHADOW_XINLINE DType ConvertedValue(const NmsLayout& l, const DType* row, index_t k) {
  const index_t c = k - l.coord_start;
  if (c < 0 || c >= 4 || l.in_format == l.out_format) return row[k];
  const DType* b = row + l.coord_start;
  if (l.out_format == kCorner) {  // from [x, y, w, h]
    return c < 2 ? b[c] - b[c + 2] / DType(2) : b[c - 2] + b[c] / DType(2);
  }
  return c < 2 ? (b[c] + b[c + 2]) / DType(2) : b[c] - b[c - 2];  // from corners
}

// The gradient of input coordinate k (a coordinate or not) of a row from its output row's
// gradient g: ConvertedValue's transpose.
template <typename DType>
MSHADOW_XINLINE DType ConvertedGradient(const NmsLayout& l, const DType* g, index_t k) {
  const index_t c = k - l.coord_start;
  if (c < 0 || c >= 4 || l.in_format == l.out_format) return g[k];
  const DType* d = g + l.coord_start;
  if (l.out_format == kCorner) {  // x = (x1 + x2) ... : dx = dx1 + dx2, dw = (dx2 - dx1) / 2
    return c < 2 ? d[c] + d[c + 2] : (d[c] - d[c - 2]) / DType(2);
  }
  // cx = (x1 + x2) / 2, w = x2 - x1: dx1 = dcx / 2 - dw, dx2 = dcx / 2 + dw
  return c < 2 ? d[c] / DType(2) - d[c + 2] : d[c - 2] / DType(2) + d[c];
}

// Adds an output row's gradient g to its input row's: straight when the formats agree.
template <typename DType>
MSHADOW_XINLINE void AddRowGradient(const NmsLayout& l, const DType* g, DType* target) {
  if (l.in_format == l.out_format) {
    for (index_t k = 0; k < l.width; ++k) target[k] += g[k];
  } else {
    for (index_t k = 0; k < l.width; ++k) target[k] += ConvertedGradient(l, g, k);
  }
}

// Sorts the entries (keys[k], order[k]), k < m, by descending key, equal keys in their order:
// a bottom-up merge sort into key_spare and spare (m entries each) and back, its comparisons
// reading the keys beside the indices. On return keys and order point at the sorted pair of
// buffers, key_spare and spare at the other.
template <typename DType>
MSHADOW_XINLINE void SortByDescendingKey(DType** keys, int** order, DType** key_spare, int** spare,
                                         index_t m) {
  // Runs of 16 by insertion (stable: an entry passes only lower keys), then merges.
  constexpr index_t kRun = 16;
  for (index_t lo = 0; lo < m; lo += kRun) {
    const index_t hi = lo + kRun < m ? lo + kRun : m;
    DType* k = *keys;
    int* o = *order;
    for (index_t i = lo + 1; i < hi; ++i) {
      const DType key = k[i];
      const int index = o[i];
      index_t j = i;
      for (; j > lo && k[j - 1] < key; --j) k[j] = k[j - 1], o[j] = o[j - 1];
      k[j] = key;
      o[j] = index;
    }
  }
  for (index_t run = kRun; run < m; run *= 2) {
    const DType* k = *keys;
    const int* o = *order;
    DType* ks = *key_spare;
    int* os = *spare;
    for (index_t lo = 0; lo < m; lo += 2 * run) {
      const index_t mid = lo + run < m ? lo + run : m, hi = lo + 2 * run < m ? lo + 2 * run : m;
      index_t a = lo, c = mid, w = lo;
      while (a < mid && c < hi) {
        const bool right = k[c] > k[a];
        const index_t from = right ? c++ : a++;
        ks[w] = k[from];
        os[w++] = o[from];
      }
      for (; a < mid; ++a, ++w) ks[w] = k[a], os[w] = o[a];
      for (; c < hi; ++c, ++w) ks[w] = k[c], os[w] = o[c];
    }
    DType* key_swap = *keys;
    *keys = *key_spare;
    *key_spare = key_swap;
    int* swap = *order;
    *order = *spare;
    *spare = swap;
  }
}

// Item b: the non-maximum suppression of batch item b. order and spare hold N ints each.
struct box_nms_item {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t b, NmsLayout l, const DType* data, DType* out, int* index,
                                  int* order_space, int* spare_space, DType* key_space,
                                  OpReqType req) {
    const index_t n = l.boxes, k_width = l.width;
    const DType* item = data + b * n * k_width;
    const auto score = [&](int i) { return item[i * k_width + l.score_index]; };
    const auto id = [&](int i) { return item[i * k_width + l.id_index]; };
    int* order = order_space + b * n;
    int* spare = spare_space + b * n;
    DType* keys = key_space + 2 * b * n;
    DType* key_spare = keys + n;
    // The valid boxes.
    index_t m = 0;
    for (index_t i = 0; i < n; ++i) {
      const bool background =
          l.id_index >= 0 && l.background_id >= 0 && id(i) == DType(l.background_id);
      if (score(i) > DType(l.valid_thresh) && !background) {
        keys[m] = score(i);
        order[m++] = static_cast<int>(i);
      }
    }
    SortByDescendingKey(&keys, &order, &key_spare, &spare, m);
    if (l.topk > 0 && m > l.topk) m = l.topk;
    // Greedy suppression: a suppressed entry becomes -1.
    for (index_t i = 0; i < m; ++i) {
      if (order[i] < 0) continue;
      DType kept[4];
      Corners(item + order[i] * k_width + l.coord_start, l.in_format, kept);
      for (index_t j = i + 1; j < m; ++j) {
        if (order[j] < 0) continue;
        if (!l.force_suppress && l.id_index >= 0 && id(order[i]) != id(order[j])) continue;
        DType other[4];
        Corners(item + order[j] * k_width + l.coord_start, l.in_format, other);
        if (IntersectionOverUnion(kept, other) > DType(l.overlap_thresh)) order[j] = -1;
      }
    }
    // The kept rows in order, then rows of -1.
    DType* out_item = out + b * n * k_width;
    int* index_item = index + b * n;
    index_t row = 0;
    for (index_t i = 0; i < m; ++i) {
      if (order[i] < 0) continue;
      const DType* source = item + order[i] * k_width;
      for (index_t k = 0; k < k_width; ++k) {
        AssignReq(out_item + row * k_width + k, ConvertedValue(l, source, k), req);
      }
      index_item[row++] = order[i];
    }
    for (; row < n; ++row) {
      for (index_t k = 0; k < k_width; ++k) AssignReq(out_item + row * k_width + k, DType(-1), req);
      index_item[row] = -1;
    }
  }
};

// Item r (an output row of the whole batch): its gradient added to the input row it came from.
struct box_nms_scatter_gradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t r, NmsLayout l, const DType* out_grad, const int* index,
                                  DType* in_grad) {
    const int source = index[r];
    if (source < 0) return;
    const index_t item = r / l.boxes;
    DType* target = in_grad + (item * l.boxes + source) * l.width;
    const DType* g = out_grad + r * l.width;
    AddRowGradient(l, g, target);
  }
};

// Item i (a batch item, on the CPU): its rows of the input gradient zeroed (unless added to)
// and its kept rows' gradients added, on one thread, so no row's cache line is zeroed on one
// core and added to on another.
struct box_nms_item_gradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, NmsLayout l, const DType* out_grad, const int* index,
                                  DType* in_grad, bool add_to) {
    DType* item_grad = in_grad + i * l.boxes * l.width;
    if (!add_to) {
      for (index_t k = 0; k < l.boxes * l.width; ++k) item_grad[k] = DType(0);
    }
    for (index_t r = i * l.boxes; r < (i + 1) * l.boxes; ++r) {
      if (index[r] < 0) continue;
      AddRowGradient(l, out_grad + r * l.width, item_grad + index[r] * l.width);
    }
  }
};

NmsLayout NmsLayoutOf(const BoxNmsParam& p, const TShape& data);

// Input data; outputs the kept boxes and (hidden) their input rows.
template <typename xpu>
void BoxNmsCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const NmsLayout l = NmsLayoutOf(GetParam<BoxNmsParam>(attrs), in[0].shape_);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t items = l.items, rows = l.items * l.boxes;
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    // Two orders of ints and two of keys, one entry each a row.
    DType* keys = static_cast<DType*>(TempBytes(ctx, 2 * rows * (sizeof(DType) + sizeof(int)), s));
    int* orders = reinterpret_cast<int*>(keys + 2 * rows);
    Kernel<box_nms_item, xpu>::LaunchItems(s, items, l.boxes * l.boxes, l, in[0].dptr<DType>(),
                                           out[0].dptr<DType>(), out[1].dptr<int>(), orders,
                                           orders + rows, keys, req[0]);
  });
}

// Inputs dOut, dIndex (ignored), out, index: each kept row's gradient back at its input row,
// zero elsewhere.
template <typename xpu>
void BoxNmsBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const NmsLayout l = NmsLayoutOf(GetParam<BoxNmsParam>(attrs), out[0].shape_);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  // The index comes back from the host: a row past the item's would be written outside the
  // gradient. A GPU's is read on the host for the check (rows ints, one wait).
  WithIndicesOnHost<xpu, int>(in[3], s, [&l](const int* index, index_t rows) {
    const index_t bad = FirstOutside(index, rows, -2.0, static_cast<double>(l.boxes));
    if (bad < rows) {
      throw dmlc::Error("the index input (the forward's hidden output) holds " +
                        std::to_string(index[bad]) + " at row " + std::to_string(bad) +
                        "; valid: -1 (no input row) or an input row 0 to " +
                        std::to_string(l.boxes - 1));
    }
  });
  const int* index = in[3].dptr<int>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    if constexpr (std::is_same_v<xpu, cpu>) {
      Kernel<box_nms_item_gradient, xpu>::LaunchItems(
          s, l.items, 2 * l.boxes * l.width, l, in[0].dptr<DType>(), index, out[0].dptr<DType>(),
          req[0] == kAddTo);
    } else {
      if (req[0] != kAddTo)
        Assign(Flat<xpu, DType>(out[0], s), kWriteTo, mshadow::expr::scalar<DType>(0));
      Kernel<box_nms_scatter_gradient, xpu>::Launch(s, in[3].Size(), l, in[0].dptr<DType>(),
                                                    index, out[0].dptr<DType>());
    }
  });
}

// Adds FCompute<xpu> to _contrib_box_nms and its backward operator.
template <typename xpu>
void SetBoxNmsCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_box_nms").set_attr<FCompute>(attr_name, FCompute(BoxNmsCompute<xpu>));
  RegisterOp("_backward_contrib_box_nms")
      .set_attr<FCompute>(attr_name, FCompute(BoxNmsBackwardCompute<xpu>));
}

}  // namespace bounding_box
}  // namespace ops

#endif  // OPS_BOX_NMS_INL_H_
