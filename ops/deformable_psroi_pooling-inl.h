// ops/deformable_psroi_pooling-inl.h: _contrib_DeformablePSROIPooling, Deformable R-FCN's
// position-sensitive region pooling with learned part offsets, as MXNet 1.9.1's GPU kernel
// computes it (its CPU build has none: its forward leaves the output at -FLT_MAX), written once
// for every device.
//
// Region r, [batch_index, x1, y1, x2, y2] (corners rounded, scaled by spatial_scale, shifted
// half a position back, at least 0.1 wide and high), is cut into pooled_size^2 bins; bin
// (ph, pw) of output channel c moves by trans_std times its part's (dx, dy) of trans (part
// (floor(ph * part_size / pooled_size), likewise pw), class c / (output_dim / classes)) times
// the region's extent, and averages sample_per_part^2 bilinear samples of the data channel
// for c at the bin's place in the group_size^2 grid, at the bin's corner and sub-bin steps from
// it. A sample more than half a position outside the map is left out of the average (a bin
// without samples is 0); the others are clamped into the map. The hidden second output counts
// each bin's samples, as MXNet's.
//
// A region whose batch index is not an image of the batch or whose numbers are not finite pools
// nothing (zeros, no gradient). The gradient: the data's spread back onto the samples'
// neighbours (a data plane per CPU item, in region order; atomics on the GPU), trans's the
// slopes of the samples along x and y times trans_std and the region's extent (an item per
// trans pair, summing its class's channels and its part's bins), as MXNet's; rois' is zero.
// deformable_psroi_pooling.cc registers it with FCompute<cpu> and shape inference;
// deformable_psroi_pooling.cu adds FCompute<gpu>.
#ifndef OPS_DEFORMABLE_PSROI_POOLING_INL_H_
#define OPS_DEFORMABLE_PSROI_POOLING_INL_H_

#include <cmath>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace deformable_psroi_pooling {

struct DeformablePSROIPoolingParam : public dmlc::Parameter<DeformablePSROIPoolingParam> {
  float spatial_scale;
  int output_dim;
  int group_size;
  int pooled_size;
  int part_size;
  int sample_per_part;
  float trans_std;
  bool no_trans;
  DMLC_DECLARE_PARAMETER(DeformablePSROIPoolingParam) {
    DMLC_DECLARE_FIELD(spatial_scale)
        .set_range(0.0f, 1.0f)
        .describe(
            "The feature map's size over the image's (the reciprocal of the network's total "
            "stride); the regions' corners are multiplied by it.");
    DMLC_DECLARE_FIELD(output_dim).set_lower_bound(1).describe("The output's channels.");
    DMLC_DECLARE_FIELD(group_size)
        .set_lower_bound(1)
        .describe(
            "The side of the grid of positions the data's channels hold maps for: data has "
            "output_dim * group_size^2 channels.");
    DMLC_DECLARE_FIELD(pooled_size)
        .set_lower_bound(1)
        .describe("The output's height and width: bins per region side.");
    DMLC_DECLARE_FIELD(part_size).set_default(0).set_lower_bound(0).describe(
        "The side of trans's grid of part offsets; 0: pooled_size.");
    DMLC_DECLARE_FIELD(sample_per_part)
        .set_default(1)
        .set_lower_bound(1)
        .describe("Bilinear samples per bin and axis.");
    DMLC_DECLARE_FIELD(trans_std)
        .set_default(0.0f)
        .set_range(0.0f, 1.0f)
        .describe("The factor of trans's offsets (in region extents).");
    DMLC_DECLARE_FIELD(no_trans).set_default(false).describe(
        "Whether to pool without part offsets (no trans input).");
  }
};

// The data (N, output_dim * group^2, H, W), rois (R, 5), trans (R, 2 * classes, part, part)
// and the output (R, output_dim, pooled, pooled).
struct Geometry {
  index_t batch, channels, height, width, regions;
  index_t output_dim, group, pooled, part, samples, classes;
  float spatial_scale, trans_std;
  bool no_trans;

  MSHADOW_XINLINE index_t Bins() const { return pooled * pooled; }
  MSHADOW_XINLINE index_t ChannelsPerClass() const { return output_dim / classes; }
  // Where part (part_h, part_w)'s dx of class k of region r is in trans; its dy a part plane on.
  MSHADOW_XINLINE index_t TransAt(index_t r, index_t k, index_t part_h, index_t part_w) const {
    return ((r * classes + k) * 2 * part + part_h) * part + part_w;
  }
  // The part bin p (a row or column) moves with: floor(p / pooled * part), exactly (MXNet
  // computes it in floating point, which for some sizes gives the part before, e.g. 12 for bin
  // 13 of 22 with 22 parts).
  MSHADOW_XINLINE index_t PartOf(index_t p) const { return p * part / pooled; }
};

// Output element (r, c, ph, pw)'s bin: its data plane, its first sample, the steps between its
// samples, the region's extent and its trans pair (-1 without trans); false where the region
// pools nothing.
template <typename DType>
struct Bin {
  index_t image, channel, trans_at;
  DType w_start, h_start, step_w, step_h, roi_w, roi_h;
};

template <typename DType>
MSHADOW_XINLINE bool BinOf(const DType* rois, const DType* trans, const Geometry& g, index_t r,
                           index_t c, index_t ph, index_t pw, Bin<DType>* bin) {
  const DType* roi = rois + r * 5;
  if (!(roi[0] >= DType(0) && roi[0] < DType(g.batch))) return false;
  bin->image = static_cast<index_t>(roi[0]);
  const DType scale = static_cast<DType>(g.spatial_scale);
  const DType start_w = DType(round(roi[1])) * scale - DType(0.5);
  const DType start_h = DType(round(roi[2])) * scale - DType(0.5);
  const DType end_w = (DType(round(roi[3])) + DType(1)) * scale - DType(0.5);
  const DType end_h = (DType(round(roi[4])) + DType(1)) * scale - DType(0.5);
  bin->roi_w = end_w - start_w > DType(0.1) ? end_w - start_w : DType(0.1);
  bin->roi_h = end_h - start_h > DType(0.1) ? end_h - start_h : DType(0.1);
  const DType bin_w = bin->roi_w / DType(g.pooled), bin_h = bin->roi_h / DType(g.pooled);
  bin->step_w = bin_w / DType(g.samples);
  bin->step_h = bin_h / DType(g.samples);
  bin->w_start = DType(pw) * bin_w + start_w;
  bin->h_start = DType(ph) * bin_h + start_h;
  bin->trans_at = -1;
  if (!g.no_trans) {
    const index_t k = c / g.ChannelsPerClass();
    bin->trans_at = g.TransAt(r, k, g.PartOf(ph), g.PartOf(pw));
    bin->w_start += trans[bin->trans_at] * DType(g.trans_std) * bin->roi_w;
    bin->h_start += trans[bin->trans_at + g.part * g.part] * DType(g.trans_std) * bin->roi_h;
  }
  // Any number not finite leaves a sum whose difference with itself is not 0.
  const DType sum = bin->w_start + bin->h_start + bin->step_w + bin->step_h;
  if (!(sum - sum == DType(0))) return false;
  const index_t gw = pw * g.group / g.pooled, gh = ph * g.group / g.pooled;
  bin->channel = (c * g.group + gh) * g.group + gw;
  return true;
}

// A sample clamped into the map: its four neighbours (the same where it lies on a row or
// column) and its distances from the first.
template <typename DType>
struct Sample {
  index_t x0, x1, y0, y1;
  DType dx, dy;
};

// Calls fn(sample) for each of the bin's samples within half a position of the map; returns
// how many.
template <typename DType, typename Fn>
MSHADOW_XINLINE int ForEachSample(const Bin<DType>& bin, const Geometry& g, Fn&& fn) {
  int count = 0;
  for (index_t ih = 0; ih < g.samples; ++ih) {
    for (index_t iw = 0; iw < g.samples; ++iw) {
      DType w = bin.w_start + DType(iw) * bin.step_w, h = bin.h_start + DType(ih) * bin.step_h;
      if (w < DType(-0.5) || w > DType(g.width) - DType(0.5) || h < DType(-0.5) ||
          h > DType(g.height) - DType(0.5)) {
        continue;
      }
      w = w < DType(0) ? DType(0) : (w > DType(g.width - 1) ? DType(g.width - 1) : w);
      h = h < DType(0) ? DType(0) : (h > DType(g.height - 1) ? DType(g.height - 1) : h);
      Sample<DType> s;
      s.x0 = static_cast<index_t>(floor(w)), s.x1 = static_cast<index_t>(ceil(w));
      s.y0 = static_cast<index_t>(floor(h)), s.y1 = static_cast<index_t>(ceil(h));
      s.dx = w - DType(s.x0), s.dy = h - DType(s.y0);
      fn(s);
      ++count;
    }
  }
  return count;
}

// The four neighbours' values of sample s in `plane` (width w): (y0, x0), (y1, x0), (y0, x1),
// (y1, x1).
template <typename DType>
struct Corners {
  DType v00, v10, v01, v11;
  MSHADOW_XINLINE Corners(const DType* plane, const Sample<DType>& s, index_t w)
      : v00(plane[s.y0 * w + s.x0]),
        v10(plane[s.y1 * w + s.x0]),
        v01(plane[s.y0 * w + s.x1]),
        v11(plane[s.y1 * w + s.x1]) {}
  MSHADOW_XINLINE DType Value(const Sample<DType>& s) const {
    return (DType(1) - s.dx) * ((DType(1) - s.dy) * v00 + s.dy * v10) +
           s.dx * ((DType(1) - s.dy) * v01 + s.dy * v11);
  }
  MSHADOW_XINLINE DType SlopeX(const Sample<DType>& s) const {
    return (DType(1) - s.dy) * (v01 - v00) + s.dy * (v11 - v10);
  }
  MSHADOW_XINLINE DType SlopeY(const Sample<DType>& s) const {
    return (DType(1) - s.dx) * (v10 - v00) + s.dx * (v11 - v01);
  }
};

// Item (both devices): output element i = (r, c, ph, pw), its average and its sample count.
template <int kReq>
struct pool_deformable_bin {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, DType* count, OpReqType count_req,
                                  const DType* data, const DType* rois, const DType* trans,
                                  Geometry g) {
    const index_t pw = i % g.pooled, ph = i / g.pooled % g.pooled;
    const index_t c = i / g.Bins() % g.output_dim, r = i / (g.Bins() * g.output_dim);
    Bin<DType> bin;
    DType sum = DType(0);
    int n = 0;
    if (BinOf(rois, trans, g, r, c, ph, pw, &bin)) {
      const DType* plane = data + (bin.image * g.channels + bin.channel) * g.height * g.width;
      n = ForEachSample(bin, g, [&](const Sample<DType>& s) {
        sum += Corners<DType>(plane, s, g.width).Value(s);
      });
    }
    AssignReq<kReq>(out + i, n == 0 ? DType(0) : sum / DType(n));
    AssignReq(count + i, DType(n), count_req);
  }
};

// Adds bin (r, c, ph, pw)'s output gradient `og` over its samples onto `plane` (atomically on
// the GPU).
template <typename DType>
MSHADOW_XINLINE void SpreadBinGradient(const Bin<DType>& bin, const Geometry& g, DType og,
                                       DType* plane) {
  const int n = ForEachSample(bin, g, [](const Sample<DType>&) {});
  if (n == 0) return;
  const DType share = og / DType(n);
  ForEachSample(bin, g, [&](const Sample<DType>& s) {
    const index_t at[4] = {s.y0 * g.width + s.x0, s.y1 * g.width + s.x0, s.y0 * g.width + s.x1,
                           s.y1 * g.width + s.x1};
    const DType weight[4] = {(DType(1) - s.dx) * (DType(1) - s.dy), (DType(1) - s.dx) * s.dy,
                             s.dx * (DType(1) - s.dy), s.dx * s.dy};
    for (int k = 0; k < 4; ++k) {
#ifdef __CUDA_ARCH__
      atomicAdd(plane + at[k], weight[k] * share);
#else
      plane[at[k]] += weight[k] * share;
#endif
    }
  });
}

// CPU item: data plane i = (n, channel), every region of image n adding the bins that read
// this channel (those of its cell of the group grid: ph * group / pooled == gh for ph from
// FirstBinOf(gh) to FirstBinOf(gh + 1)), in region order.
struct spread_data_plane {
  template <typename DType>
  static void Map(index_t i, DType* grad, const DType* og, const DType* rois, const DType* trans,
                  Geometry g) {
    const index_t n = i / g.channels, channel = i % g.channels;
    const index_t c = channel / (g.group * g.group);
    const index_t gh = channel / g.group % g.group, gw = channel % g.group;
    const auto first_bin = [&g](index_t cell) { return (cell * g.pooled + g.group - 1) / g.group; };
    DType* plane = grad + i * g.height * g.width;
    for (index_t r = 0; r < g.regions; ++r) {
      const DType image = rois[r * 5];  // BinOf's image: truncated
      if (!(image >= DType(n) && image < DType(n + 1))) continue;
      for (index_t ph = first_bin(gh); ph < first_bin(gh + 1); ++ph) {
        for (index_t pw = first_bin(gw); pw < first_bin(gw + 1); ++pw) {
          Bin<DType> bin;
          if (!BinOf(rois, trans, g, r, c, ph, pw, &bin)) continue;
          SpreadBinGradient(bin, g, og[((r * g.output_dim + c) * g.pooled + ph) * g.pooled + pw],
                            plane);
        }
      }
    }
  }
};

// GPU item: output gradient element i spread onto its bin's samples' neighbours.
struct spread_data_atomic {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* og, const DType* rois,
                                  const DType* trans, Geometry g) {
    const index_t pw = i % g.pooled, ph = i / g.pooled % g.pooled;
    const index_t c = i / g.Bins() % g.output_dim, r = i / (g.Bins() * g.output_dim);
    Bin<DType> bin;
    if (!BinOf(rois, trans, g, r, c, ph, pw, &bin)) return;
    SpreadBinGradient(bin, g, og[i],
                      grad + (bin.image * g.channels + bin.channel) * g.height * g.width);
  }
};

// Item (both devices): trans pair p = (r, class k, part_h, part_w): the slopes of the samples
// of every bin that moves by it (its class's channels, its part's bins) times their share of
// the output gradient, trans_std and the region's extent.
struct trans_gradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t p, DType* trans_grad, const DType* og, const DType* data,
                                  const DType* rois, const DType* trans, Geometry g,
                                  OpReqType req) {
    const index_t part_w = p % g.part, part_h = p / g.part % g.part;
    const index_t k = p / (g.part * g.part) % g.classes, r = p / (g.part * g.part * g.classes);
    DType sum_x = DType(0), sum_y = DType(0);
    for (index_t c = k * g.ChannelsPerClass(); c < (k + 1) * g.ChannelsPerClass(); ++c) {
      for (index_t ph = 0; ph < g.pooled; ++ph) {
        if (g.PartOf(ph) != part_h) continue;
        for (index_t pw = 0; pw < g.pooled; ++pw) {
          Bin<DType> bin;
          if (g.PartOf(pw) != part_w || !BinOf(rois, trans, g, r, c, ph, pw, &bin)) continue;
          const DType* plane = data + (bin.image * g.channels + bin.channel) * g.height * g.width;
          DType slope_x = DType(0), slope_y = DType(0);
          const int n = ForEachSample(bin, g, [&](const Sample<DType>& s) {
            const Corners<DType> v(plane, s, g.width);
            slope_x += v.SlopeX(s);
            slope_y += v.SlopeY(s);
          });
          if (n == 0) continue;
          const DType share =
              og[((r * g.output_dim + c) * g.pooled + ph) * g.pooled + pw] / DType(n);
          sum_x += slope_x * share * bin.roi_w;
          sum_y += slope_y * share * bin.roi_h;
        }
      }
    }
    const index_t at = g.TransAt(r, k, part_h, part_w);
    AssignReq(trans_grad + at, sum_x * DType(g.trans_std), req);
    AssignReq(trans_grad + at + g.part * g.part, sum_y * DType(g.trans_std), req);
  }
};

// The geometry of data and rois (and trans) under the parameters; a dmlc::Error names what
// does not fit.
Geometry GeometryOf(const DeformablePSROIPoolingParam& param, const TShape& data,
                    const TShape& rois, const TShape& trans);

inline Geometry GeometryOf(const DeformablePSROIPoolingParam& param,
                           const std::vector<TBlob>& inputs) {
  return GeometryOf(param, inputs[0].shape_, inputs[1].shape_,
                    param.no_trans ? TShape() : inputs[2].shape_);
}

// Inputs: data, rois [, trans]; outputs: the pooled bins and their sample counts (hidden).
template <typename xpu>
void DeformablePSROIPoolingCompute(const NodeAttrs& attrs, const OpContext& ctx,
                                   const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                   const std::vector<TBlob>& out) {
  const Geometry g = GeometryOf(GetParam<DeformablePSROIPoolingParam>(attrs), in);
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], kReq, {
      Kernel<pool_deformable_bin<kReq>, xpu>::Launch(
          ctx.get_stream<xpu>(), out[0].Size(), out[0].dptr<DType>(), out[1].dptr<DType>(), req[1],
          in[0].dptr<DType>(), in[1].dptr<DType>(), g.no_trans ? nullptr : in[2].dptr<DType>(), g);
    });
  });
}

// Inputs: the gradients of the output and the counts, data, rois [, trans]; outputs: the
// gradients of data, rois (zeros) [and trans].
template <typename xpu>
void DeformablePSROIPoolingBackward(const NodeAttrs& attrs, const OpContext& ctx,
                                    const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                    const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const std::vector<TBlob> inputs(in.begin() + 2, in.end());
  const Geometry g = GeometryOf(GetParam<DeformablePSROIPoolingParam>(attrs), inputs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType *og = in[0].dptr<DType>(), *data = in[2].dptr<DType>();
    const DType *rois = in[3].dptr<DType>(), *trans = g.no_trans ? nullptr : in[4].dptr<DType>();
    WriteZeroGradient<xpu, DType>(out[1], req[1], s);
    if (!g.no_trans && req[2] != kNullOp) {
      Kernel<trans_gradient, xpu>::LaunchItems(
          s, g.regions * g.classes * g.part * g.part,
          g.ChannelsPerClass() * g.Bins() * g.samples * g.samples * 4, out[2].dptr<DType>(), og,
          data, rois, trans, g, req[2]);
    }
    if (req[0] != kNullOp) {
      WriteZeroGradient<xpu, DType>(out[0], req[0], s);  // the samples add onto it
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<spread_data_plane, cpu>::LaunchItems(
            s, g.batch * g.channels, g.regions * g.Bins() / g.group / g.group * g.samples * 8 + 1,
            out[0].dptr<DType>(), og, rois, trans, g);
      } else {
        Kernel<spread_data_atomic, xpu>::Launch(s, in[0].Size(), out[0].dptr<DType>(), og, rois,
                                                trans, g);
      }
    }
  });
}

// Adds FCompute<xpu> to _contrib_DeformablePSROIPooling and its backward operator.
template <typename xpu>
void SetDeformablePSROIPoolingCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_DeformablePSROIPooling")
      .set_attr<FCompute>(attr_name, FCompute(DeformablePSROIPoolingCompute<xpu>));
  RegisterOp("_backward_contrib_DeformablePSROIPooling")
      .set_attr<FCompute>(attr_name, FCompute(DeformablePSROIPoolingBackward<xpu>));
}

}  // namespace deformable_psroi_pooling
}  // namespace ops

#endif  // OPS_DEFORMABLE_PSROI_POOLING_INL_H_
