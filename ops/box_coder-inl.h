// ops/box_coder-inl.h: _contrib_box_encode and _contrib_box_decode, MXNet 1.9.1's detector
// training targets as normalized offsets of boxes from their anchors, and the boxes those
// offsets give; written once for every device. An offset is ((x - ax) / aw, (y - ay) / ah,
// log(w / aw), log(h / ah)) between the centres and sizes of a box and its anchor. box_encode
// has MXNet's zero gradient (its outputs are targets); box_decode's gradient, which MXNet gives
// as zeros, is the derivative of its boxes in the offsets and in the anchors. box_coder.cc
// registers the CPU, box_coder.cu adds FCompute<gpu>.
#ifndef OPS_BOX_CODER_INL_H_
#define OPS_BOX_CODER_INL_H_

#include <cmath>
#include <sstream>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace box_coder {

enum BoxFormat { kCorner, kCenter };

struct BoxDecodeParam : public dmlc::Parameter<BoxDecodeParam> {
  float std0, std1, std2, std3;
  float clip;
  int format;
  DMLC_DECLARE_PARAMETER(BoxDecodeParam) {
    DMLC_DECLARE_FIELD(std0).set_default(1.0f).describe("Scales the first offset (x).");
    DMLC_DECLARE_FIELD(std1).set_default(1.0f).describe("Scales the second offset (y).");
    DMLC_DECLARE_FIELD(std2).set_default(1.0f).describe("Scales the third offset (log w).");
    DMLC_DECLARE_FIELD(std3).set_default(1.0f).describe("Scales the fourth offset (log h).");
    DMLC_DECLARE_FIELD(clip).set_default(-1.0f).describe(
        "Above 0: the scaled size offsets are at most this before exp.");
    DMLC_DECLARE_FIELD(format)
        .add_enum("corner", kCorner)
        .add_enum("center", kCenter)
        .set_default(kCenter)
        .describe("The anchors' format: [xmin, ymin, xmax, ymax] or [x, y, width, height].");
  }
};

// BoxDecodeParam as plain data for kernels on either device.
struct Decoding {
  float std[4];
  float clip;
  int format;
};

inline Decoding DecodingOf(const BoxDecodeParam& p) {
  return {{p.std0, p.std1, p.std2, p.std3}, p.clip, p.format};
}

// A box's centre and size.
template <typename DType>
struct Box {
  DType x, y, w, h;
};

template <typename DType>
MSHADOW_XINLINE Box<DType> FromCorners(const DType* b) {
  const DType w = b[2] - b[0], h = b[3] - b[1];
  return {b[0] + w / 2, b[1] + h / 2, w, h};
}

template <typename DType>
MSHADOW_XINLINE Box<DType> AnchorAt(const DType* a, int format) {
  return format == kCorner ? FromCorners(a) : Box<DType>{a[0], a[1], a[2], a[3]};
}

// ---- box_encode: item i is box i of the (B, N) samples.

// The first positive sample whose match is not a row of refs (m rows), as a message; "" when
// every one is.
template <typename DType>
std::string BadMatch(const DType* samples, const DType* matches, index_t count, index_t n,
                     index_t m) {
  const auto bad = [&](index_t i) {
    return samples[i] > DType(0.5) && !(matches[i] >= DType(0) && matches[i] < DType(m));
  };
  index_t bad_count = 0;  // counted branch-free in SIMD lanes; searched only when nonzero
  OPS_SIMD_SUM(bad_count)
  for (index_t i = 0; i < count; ++i) bad_count += bad(i) ? 1 : 0;
  for (index_t i = 0; i < count && bad_count > 0; ++i) {
    if (!bad(i)) continue;
    std::ostringstream os;
    os << "_contrib_box_encode: the positive sample (" << i / n << ", " << i % n
       << ") matches reference " << matches[i] << ", which refs' " << m
       << " rows do not have; valid matches of positive samples: [0, " << m << ")";
    return os.str();
  }
  return "";
}

struct box_encode_item {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* targets, DType* masks, const DType* samples,
                                  const DType* matches, const DType* anchors, const DType* refs,
                                  const DType* means, const DType* stds, index_t n, index_t m,
                                  OpReqType target_req, OpReqType mask_req) {
    const bool positive = samples[i] > DType(0.5);
    DType t[4] = {0, 0, 0, 0};
    if (positive) {
      const Box<DType> a = FromCorners(anchors + 4 * i);
      const Box<DType> r = FromCorners(refs + 4 * (i / n * m + static_cast<index_t>(matches[i])));
      t[0] = (r.x - a.x) / a.w;
      t[1] = (r.y - a.y) / a.h;
      t[2] = std::log(r.w / a.w);
      t[3] = std::log(r.h / a.h);
      for (int k = 0; k < 4; ++k) t[k] = (t[k] - means[k]) / stds[k];
    }
    for (int k = 0; k < 4; ++k) {
      AssignReq(targets + 4 * i + k, t[k], target_req);
      AssignReq(masks + 4 * i + k, positive ? DType(1) : DType(0), mask_req);
    }
  }
};

// Inputs: samples (B, N), matches (B, N), anchors (B, N, 4), refs (B, M, 4), means (4), stds
// (4). Outputs: targets and masks (B, N, 4). A positive sample's match outside refs is a
// dmlc::Error (MXNet reads past refs).
template <typename xpu>
void BoxEncodeCompute(const NodeAttrs& /*attrs*/, const OpContext& ctx,
                      const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                      const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t count = in[0].Size(), n = in[0].shape_[1], m = in[3].shape_[1];
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    WithIndicesOnHost<xpu, DType>(in[0], s, [&](const DType* samples, index_t) {
      WithIndicesOnHost<xpu, DType>(in[1], s, [&](const DType* matches, index_t) {
        const std::string bad = BadMatch(samples, matches, count, n, m);
        if (!bad.empty()) throw dmlc::Error(bad);
      });
    });
    Kernel<box_encode_item, xpu>::Launch(
        s, count, out[0].dptr<DType>(), out[1].dptr<DType>(), in[0].dptr<DType>(),
        in[1].dptr<DType>(), in[2].dptr<DType>(), in[3].dptr<DType>(), in[4].dptr<DType>(),
        in[5].dptr<DType>(), n, m, req[0], req[1]);
  });
}

// ---- box_decode: item i is box i of the (B, N) offsets; anchors (1, N, 4).

// A box's scaled offsets, the size offsets clipped (`unclipped` says which were not).
template <typename DType>
MSHADOW_XINLINE void ScaledOffsets(const DType* d, const Decoding& p, DType (&o)[4],
                                   bool (&unclipped)[2]) {
  for (int k = 0; k < 4; ++k) o[k] = d[k] * DType(p.std[k]);
  for (int k = 0; k < 2; ++k) {
    unclipped[k] = !(p.clip > 0 && o[2 + k] > DType(p.clip));
    if (!unclipped[k]) o[2 + k] = DType(p.clip);
  }
}

template <int kReq>
struct box_decode_item {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* data, const DType* anchors,
                                  index_t n, Decoding p) {
    const Box<DType> a = AnchorAt(anchors + 4 * (i % n), p.format);
    DType o[4];
    bool unclipped[2];
    ScaledOffsets(data + 4 * i, p, o, unclipped);
    const DType x = o[0] * a.w + a.x, y = o[1] * a.h + a.y;
    const DType half_w = std::exp(o[2]) * a.w / 2, half_h = std::exp(o[3]) * a.h / 2;
    AssignReq<kReq>(out + 4 * i, x - half_w);
    AssignReq<kReq>(out + 4 * i + 1, y - half_h);
    AssignReq<kReq>(out + 4 * i + 2, x + half_w);
    AssignReq<kReq>(out + 4 * i + 3, y + half_h);
  }
};

// The offsets' gradient, box by box: x moves both x corners by scaled w, a size offset moves
// them apart by the half size (nothing where it was clipped).
struct box_decode_data_grad {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* og, const DType* data,
                                  const DType* anchors, index_t n, Decoding p, OpReqType req) {
    const Box<DType> a = AnchorAt(anchors + 4 * (i % n), p.format);
    DType o[4];
    bool unclipped[2];
    ScaledOffsets(data + 4 * i, p, o, unclipped);
    const DType* g = og + 4 * i;
    const DType half_w = std::exp(o[2]) * a.w / 2, half_h = std::exp(o[3]) * a.h / 2;
    AssignReq(grad + 4 * i, (g[0] + g[2]) * DType(p.std[0]) * a.w, req);
    AssignReq(grad + 4 * i + 1, (g[1] + g[3]) * DType(p.std[1]) * a.h, req);
    AssignReq(grad + 4 * i + 2, unclipped[0] ? (g[2] - g[0]) * half_w * DType(p.std[2]) : DType(0),
              req);
    AssignReq(grad + 4 * i + 3, unclipped[1] ? (g[3] - g[1]) * half_h * DType(p.std[3]) : DType(0),
              req);
  }
};

// The anchors' gradient, anchor j summing the B boxes made from it in batch order; in the
// anchors' own format (corner: through x = (x1 + x2) / 2, w = x2 - x1).
struct box_decode_anchor_grad {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t j, DType* grad, const DType* og, const DType* data,
                                  index_t batch, index_t n, Decoding p, OpReqType req) {
    DType gx = 0, gy = 0, gw = 0, gh = 0;
    for (index_t b = 0; b < batch; ++b) {
      const index_t i = b * n + j;
      DType o[4];
      bool unclipped[2];
      ScaledOffsets(data + 4 * i, p, o, unclipped);
      const DType* g = og + 4 * i;
      gx += g[0] + g[2];
      gy += g[1] + g[3];
      gw += (g[0] + g[2]) * o[0] + (g[2] - g[0]) * std::exp(o[2]) / 2;
      gh += (g[1] + g[3]) * o[1] + (g[3] - g[1]) * std::exp(o[3]) / 2;
    }
    DType* out = grad + 4 * j;
    if (p.format == kCenter) {
      AssignReq(out, gx, req);
      AssignReq(out + 1, gy, req);
      AssignReq(out + 2, gw, req);
      AssignReq(out + 3, gh, req);
    } else {
      AssignReq(out, gx / 2 - gw, req);
      AssignReq(out + 1, gy / 2 - gh, req);
      AssignReq(out + 2, gx / 2 + gw, req);
      AssignReq(out + 3, gy / 2 + gh, req);
    }
  }
};

// Inputs: data (B, N, 4), anchors (1, N, 4). Output: corner boxes (B, N, 4).
template <typename xpu>
void BoxDecodeCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Decoding param = DecodingOf(GetParam<BoxDecodeParam>(attrs));
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<box_decode_item<Req>, xpu>::Launch(s, in[0].Size() / 4, out[0].dptr<DType>(),
                                                in[0].dptr<DType>(), in[1].dptr<DType>(),
                                                in[1].shape_[1], param);
    });
  });
}

// Inputs: out_grad, data, anchors. Outputs: the gradients of data and anchors.
template <typename xpu>
void BoxDecodeBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const Decoding param = DecodingOf(GetParam<BoxDecodeParam>(attrs));
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t n = in[2].shape_[1];
  const index_t batch = in[1].shape_[0];
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[1].type_flag_, DType, {
    if (req[0] != kNullOp) {
      Kernel<box_decode_data_grad, xpu>::Launch(s, batch * n, out[0].dptr<DType>(),
                                                in[0].dptr<DType>(), in[1].dptr<DType>(),
                                                in[2].dptr<DType>(), n, param, req[0]);
    }
    if (req[1] != kNullOp) {
      Kernel<box_decode_anchor_grad, xpu>::Launch(s, n, out[1].dptr<DType>(), in[0].dptr<DType>(),
                                                  in[1].dptr<DType>(), batch, n, param, req[1]);
    }
  });
}

// Adds FCompute<xpu> to box_encode, box_decode and their backward operators.
template <typename xpu>
void SetBoxCoderCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_box_encode").set_attr<FCompute>(attr_name, FCompute(BoxEncodeCompute<xpu>));
  RegisterOp("_backward_contrib_box_encode")
      .set_attr<FCompute>(attr_name, FCompute(ZeroGradientCompute<xpu>));
  RegisterOp("_contrib_box_decode").set_attr<FCompute>(attr_name, FCompute(BoxDecodeCompute<xpu>));
  RegisterOp("_backward_contrib_box_decode")
      .set_attr<FCompute>(attr_name, FCompute(BoxDecodeBackwardCompute<xpu>));
}

}  // namespace box_coder
}  // namespace ops

#endif  // OPS_BOX_CODER_INL_H_
