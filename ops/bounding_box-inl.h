// ops/bounding_box-inl.h: MXNet 1.9.1's bounding-box operators of single-shot detectors,
// written once for every device: _contrib_MultiBoxPrior (SSD's anchor boxes over a feature
// map) and _contrib_box_iou (the intersection over union of every pair of two sets of boxes).
// Both have MXNet's zero gradient. bounding_box.cc registers them with FCompute<cpu>;
// bounding_box.cu adds FCompute<gpu>.
#ifndef OPS_BOUNDING_BOX_INL_H_
#define OPS_BOUNDING_BOX_INL_H_

#include <cmath>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/float_tuple.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace bounding_box {

struct MultiBoxPriorParam : public dmlc::Parameter<MultiBoxPriorParam> {
  FloatTuple sizes;
  FloatTuple ratios;
  bool clip;
  FloatTuple steps;
  FloatTuple offsets;
  DMLC_DECLARE_PARAMETER(MultiBoxPriorParam) {
    DMLC_DECLARE_FIELD(sizes)
        .set_default(FloatTuple{{1.0f}})
        .describe("The anchors' sizes, as fractions of the map's height.");
    DMLC_DECLARE_FIELD(ratios)
        .set_default(FloatTuple{{1.0f}})
        .describe("The anchors' aspect ratios (width over height).");
    DMLC_DECLARE_FIELD(clip).set_default(false).describe("Clip the boxes to [0, 1].");
    DMLC_DECLARE_FIELD(steps)
        .set_default(FloatTuple{{-1.0f, -1.0f}})
        .describe("The step between anchor centres, (y, x); -1: 1 / the map's extent.");
    DMLC_DECLARE_FIELD(offsets)
        .set_default(FloatTuple{{0.5f, 0.5f}})
        .describe("The anchor centres' offset within a cell, (y, x), in steps.");
  }
};

enum BoxFormat { kCorner = 0, kCenter = 1 };

struct BoxIouParam : public dmlc::Parameter<BoxIouParam> {
  int format;
  DMLC_DECLARE_PARAMETER(BoxIouParam) {
    DMLC_DECLARE_FIELD(format)
        .add_enum("corner", kCorner)
        .add_enum("center", kCenter)
        .set_default(kCorner)
        .describe("Boxes as [xmin, ymin, xmax, ymax] (corner) or [x, y, width, height] (center).");
  }
};

// The anchors' geometry: a map of height x width positions, each with `per_position` anchors
// whose half extents (as fractions of the map) are in half_w / half_h.
constexpr int kMaxAnchors = 64;
struct AnchorGeometry {
  index_t height, width;
  int per_position;
  float step_y, step_x, offset_y, offset_x;
  float half_w[kMaxAnchors], half_h[kMaxAnchors];
  bool clip;
};

// Anchor k of cell (row, column): its four corners, computed in float as MXNet's, written as
// kReq says.
template <int kReq, typename DType>
MSHADOW_XINLINE void WriteAnchor(const AnchorGeometry& g, index_t row, index_t column, int k,
                                 DType* out) {
  const float cy = (static_cast<float>(row) + g.offset_y) * g.step_y;
  const float cx = (static_cast<float>(column) + g.offset_x) * g.step_x;
  float box[4] = {cx - g.half_w[k], cy - g.half_h[k], cx + g.half_w[k], cy + g.half_h[k]};
  for (int j = 0; j < 4; ++j) {
    if (g.clip) box[j] = box[j] < 0.0f ? 0.0f : (box[j] > 1.0f ? 1.0f : box[j]);
    AssignReq<kReq>(out + j, static_cast<DType>(box[j]));
  }
}

// GPU item: anchor i = (row, column, k).
template <int kReq>
struct multibox_prior {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, AnchorGeometry g) {
    const index_t k = i % g.per_position, cell = i / g.per_position;
    WriteAnchor<kReq>(g, cell / g.width, cell % g.width, static_cast<int>(k), out + i * 4);
  }
};

// CPU item: a row of cells, every anchor of each (the geometry, half a kilobyte, passed once a
// row: an anchor an item had copied it for each and run at 0.49x MXNet, docs/benchmarks.md).
template <int kReq>
struct multibox_prior_row {
  template <typename DType>
  static void Map(index_t row, DType* out, AnchorGeometry g) {
    DType* at = out + row * g.width * g.per_position * 4;
    for (index_t column = 0; column < g.width; ++column) {
      for (int k = 0; k < g.per_position; ++k, at += 4) WriteAnchor<kReq>(g, row, column, k, at);
    }
  }
};

// A box's corners from either format.
template <typename DType>
MSHADOW_XINLINE void Corners(const DType* b, int format, DType* c) {
  if (format == kCorner) {
    c[0] = b[0], c[1] = b[1], c[2] = b[2], c[3] = b[3];
  } else {
    c[0] = b[0] - b[2] / DType(2), c[1] = b[1] - b[3] / DType(2);
    c[2] = b[0] + b[2] / DType(2), c[3] = b[1] + b[3] / DType(2);
  }
}

// The intersection over union of two boxes given by their corners: 0 where they do not
// overlap (or one has no area), as MXNet.
template <typename DType>
MSHADOW_XINLINE DType IntersectionOverUnion(const DType* a, const DType* b) {
  const DType w = (a[2] < b[2] ? a[2] : b[2]) - (a[0] > b[0] ? a[0] : b[0]);
  const DType h = (a[3] < b[3] ? a[3] : b[3]) - (a[1] > b[1] ? a[1] : b[1]);
  if (!(w > DType(0) && h > DType(0))) return DType(0);
  const DType overlap = w * h;
  return overlap / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - overlap);
}

// Item (the GPU; the CPU runs BoxIouOnCpu): pair i = (a, b) of lhs box a and rhs box b.
template <int kReq>
struct box_iou {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* lhs, const DType* rhs,
                                  index_t rhs_count, int format) {
    DType a[4], b[4];
    Corners(lhs + i / rhs_count * 4, format, a);
    Corners(rhs + i % rhs_count * 4, format, b);
    AssignReq<kReq>(out + i, IntersectionOverUnion(a, b));
  }
};

AnchorGeometry AnchorGeometryOf(const MultiBoxPriorParam& param, const TShape& data);

template <typename xpu>
void MultiBoxPriorCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  const AnchorGeometry g = AnchorGeometryOf(GetParam<MultiBoxPriorParam>(attrs), in[0].shape_);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<multibox_prior_row<Req>, cpu>::LaunchItems(s, g.height, g.width * g.per_position * 4,
                                                          out[0].dptr<DType>(), g);
      } else {
        Kernel<multibox_prior<Req>, xpu>::Launch(s, out[0].Size() / 4, out[0].dptr<DType>(), g);
      }
    });
  });
}

// The CPU's box_iou: the rhs boxes' corners and areas laid out a coordinate per array once,
// then a row of the output per lhs box, a packet of rhs boxes at a time (the per-item kernel
// divides its index by the rhs count for every pair and branches on the overlap: 2.7 ms for
// 1000 x 1000 boxes, MXNet 2.0). Same arithmetic as IntersectionOverUnion.
template <bool kAdd, typename DType>
void BoxIouOnCpu(DType* out, const DType* lhs, index_t lhs_count, const DType* rhs,
                 index_t rhs_count, int format) {
  std::vector<DType> columns(5 * static_cast<size_t>(rhs_count));
  DType* const x0 = columns.data();
  DType* const y0 = x0 + rhs_count;
  DType* const x1 = y0 + rhs_count;
  DType* const y1 = x1 + rhs_count;
  DType* const area = y1 + rhs_count;
  for (index_t j = 0; j < rhs_count; ++j) {
    DType c[4];
    Corners(rhs + 4 * j, format, c);
    x0[j] = c[0], y0[j] = c[1], x1[j] = c[2], y1[j] = c[3];
    area[j] = (c[2] - c[0]) * (c[3] - c[1]);
  }
  ParallelRows(lhs_count, rhs_count, [&](index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i) {
      DType a[4];
      Corners(lhs + 4 * i, format, a);
      const DType a_area = (a[2] - a[0]) * (a[3] - a[1]);
      DType* row = out + i * rhs_count;
      vec::ForEach<DType>(rhs_count, [&](index_t j, auto tag) {
        using P = vec::PacketOf<decltype(tag)>;
        using mshadow::packet::SelectLess;
        using mshadow::packet::SelectPositive;
        const P ax0 = P::Fill(a[0]), ay0 = P::Fill(a[1]), ax1 = P::Fill(a[2]), ay1 = P::Fill(a[3]);
        const P bx0 = P::LoadUnAligned(x0 + j), by0 = P::LoadUnAligned(y0 + j);
        const P bx1 = P::LoadUnAligned(x1 + j), by1 = P::LoadUnAligned(y1 + j);
        // min(p, q) as p < q ? p : q, max as p > q ? p : q: the scalar kernel's choices.
        const P w = SelectLess(ax1, bx1, ax1, bx1) - SelectLess(bx0, ax0, ax0, bx0);
        const P h = SelectLess(ay1, by1, ay1, by1) - SelectLess(by0, ay0, ay0, by0);
        const P overlap = w * h;
        const P iou = overlap / (P::Fill(a_area) + P::LoadUnAligned(area + j) - overlap);
        const P zero = P::Fill(DType(0));
        vec::Store<kAdd>(row + j, SelectPositive(w, SelectPositive(h, iou, zero), zero));
      });
    }
  });
}

template <typename xpu>
void BoxIouCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int format = GetParam<BoxIouParam>(attrs).format;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const index_t rhs_count = static_cast<index_t>(in[1].Size() / 4);
    if constexpr (std::is_same_v<xpu, cpu>) {
      vec::WithReq(req[0], [&](auto add) {
        BoxIouOnCpu<decltype(add)::value>(out[0].dptr<DType>(), in[0].dptr<DType>(),
                                          static_cast<index_t>(in[0].Size() / 4),
                                          in[1].dptr<DType>(), rhs_count, format);
      });
    } else {
      OPS_REQ_SWITCH(req[0], Req, {
        Kernel<box_iou<Req>, xpu>::Launch(s, out[0].Size(), out[0].dptr<DType>(),
                                          in[0].dptr<DType>(), in[1].dptr<DType>(), rhs_count,
                                          format);
      });
    }
  });
}

// Adds FCompute<xpu> to both operators and their zero gradients.
template <typename xpu>
void SetBoundingBoxCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_MultiBoxPrior")
      .set_attr<FCompute>(attr_name, FCompute(MultiBoxPriorCompute<xpu>));
  RegisterOp("_contrib_box_iou").set_attr<FCompute>(attr_name, FCompute(BoxIouCompute<xpu>));
  for (const char* backward : {"_backward_contrib_MultiBoxPrior", "_backward_contrib_box_iou"}) {
    RegisterOp(backward).set_attr<FCompute>(attr_name, FCompute(ZeroGradientCompute<xpu>));
  }
}

}  // namespace bounding_box
}  // namespace ops

#endif  // OPS_BOUNDING_BOX_INL_H_
