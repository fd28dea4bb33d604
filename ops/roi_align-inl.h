// ops/roi_align-inl.h: _contrib_ROIAlign, Mask R-CNN's region features, and _contrib_RROIAlign,
// their rotated form, as MXNet 1.9.1 has them, written once for every device. Region r,
// [batch_index, x1, y1, x2, y2] in image coordinates, is scaled by spatial_scale (and shifted
// half a position with `aligned`) and cut into pooled_size bins without rounding; each bin's
// output is the mean of a grid of bilinear samples (sample_ratio a side, or ceil(the bin's
// extent) with -1). position_sensitive (R-FCN) reads bin (ph, pw) of output channel c from
// input channel (c * PH + ph) * PW + pw. A rotated region, [batch_index, x_center, y_center,
// width, height, theta], is cut into bins the same way about its centre, and its samples are
// turned by theta degrees (counter-clockwise in image coordinates, y down) about the centre.
//
// A region whose batch index is not an image of the batch (negative, as detection code pads
// with, or too large) or whose corners are not finite is ignored: its outputs are 0 and it
// gets no gradient (MXNet ignores negative indices; past the batch it reads outside the data).
// The adaptive grid is capped at kMaxGrid samples a side, which only a region over 128 bins'
// extent (896 positions for 7 bins) reaches: MXNet's loop there is unbounded.
//
// The CPU finds every region's samples once into a table in the temporary space, which every
// channel then reads; the GPU finds an output element's samples in its thread. The gradient
// adds each sample's share of its bin's output gradient onto its four positions: on the CPU
// an input channel an item (every region's bins that read it, in order: no two threads write
// one element), on the GPU an output element a thread, atomically.
// roi_align.cc registers it with FCompute<cpu>; roi_align.cu adds FCompute<gpu>.
#ifndef OPS_ROI_ALIGN_INL_H_
#define OPS_ROI_ALIGN_INL_H_

#include <cmath>
#include <type_traits>
#include <vector>

#include "mshadow/parallel.h"
#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace roi_align {

struct ROIAlignParam : public dmlc::Parameter<ROIAlignParam> {
  TShape pooled_size;
  float spatial_scale;
  int sample_ratio;
  bool position_sensitive;
  bool aligned;
  DMLC_DECLARE_PARAMETER(ROIAlignParam) {
    DMLC_DECLARE_FIELD(pooled_size).describe("The output's (height, width): bins per region.");
    DMLC_DECLARE_FIELD(spatial_scale)
        .set_range(0.0f, 1.0f)
        .describe(
            "The feature map's size over the image's (the reciprocal of the network's total "
            "stride); the regions' corners are multiplied by it.");
    DMLC_DECLARE_FIELD(sample_ratio)
        .set_default(-1)
        .describe("Bilinear samples per bin and axis; -1 (or 0): ceil(the bin's extent).");
    DMLC_DECLARE_FIELD(position_sensitive)
        .set_default(false)
        .describe(
            "R-FCN's position-sensitive pooling: bin (ph, pw) of output channel c reads input "
            "channel (c * PH + ph) * PW + pw; the output has C / (PH * PW) channels.");
    DMLC_DECLARE_FIELD(aligned).set_default(false).describe(
        "Detectron2's alignment: corners shifted by half a position, no minimum region size.");
  }
};

struct RROIAlignParam : public dmlc::Parameter<RROIAlignParam> {
  TShape pooled_size;
  float spatial_scale;
  int sampling_ratio;
  DMLC_DECLARE_PARAMETER(RROIAlignParam) {
    DMLC_DECLARE_FIELD(pooled_size).describe("The output's (height, width): bins per region.");
    DMLC_DECLARE_FIELD(spatial_scale)
        .set_range(0.0f, 1.0f)
        .describe(
            "The feature map's size over the image's (the reciprocal of the network's total "
            "stride); the regions' centres and extents are multiplied by it.");
    DMLC_DECLARE_FIELD(sampling_ratio)
        .set_default(-1)
        .describe("Bilinear samples per bin and axis; -1 (or 0): ceil(the bin's extent).");
  }
};

constexpr int kMaxGrid = 128;

// An output element's region, channel and bin.
struct OutputElement {
  index_t r, c, ph, pw;
};

// The data (N, C, H, W), the output (R, out_channels, PH, PW) of R regions.
struct Geometry {
  index_t batch, channels, height, width, regions, out_channels, pooled_h, pooled_w;
  float spatial_scale;
  int sample_ratio;
  bool position_sensitive, aligned;
  bool rotated;  // _contrib_RROIAlign's regions

  // The numbers describing a region.
  MSHADOW_XINLINE index_t RoiSize() const { return rotated ? 6 : 5; }

  MSHADOW_XINLINE OutputElement ElementOf(index_t i) const {
    return {i / (pooled_w * pooled_h * out_channels), i / (pooled_w * pooled_h) % out_channels,
            i / pooled_w % pooled_h, i % pooled_w};
  }

  // Where image n's plane of input channel `channel` starts.
  MSHADOW_XINLINE index_t PlaneOffset(index_t n, index_t channel) const {
    return (n * channels + channel) * height * width;
  }

  // The input channel bin (ph, pw) of output channel c reads.
  MSHADOW_XINLINE index_t InputChannel(index_t c, index_t ph, index_t pw) const {
    return position_sensitive ? (c * pooled_h + ph) * pooled_w + pw : c;
  }
};

// Region r scaled: its image, its corner, its bins' size and sample grid; a rotated region's
// corner is relative to its centre, about which its samples turn (cos, sin of its angle).
template <typename DType>
struct Region {
  index_t image;
  DType start_h, start_w, bin_h, bin_w;
  int grid_h, grid_w;
  DType center_h, center_w, cos, sin;
};

// The samples a side of a bin of extent `bin`.
template <typename DType>
MSHADOW_XINLINE int GridOf(DType bin, const Geometry& g) {
  if (g.sample_ratio > 0) return g.sample_ratio;
  // An inverted region's bins (aligned) have no samples, as MXNet's empty loops.
  const double n = ceil(static_cast<double>(bin));
  return !(n >= 1) ? 0 : (n > kMaxGrid ? kMaxGrid : static_cast<int>(n));
}

// False for a region MXNet ignores or that is not finite (no samples, zeros).
template <typename DType>
MSHADOW_XINLINE bool RotatedRegionOf(const DType* roi, const Geometry& g, Region<DType>* r) {
  const DType scale = static_cast<DType>(g.spatial_scale);
  r->center_w = roi[1] * scale;
  r->center_h = roi[2] * scale;
  const DType width = roi[3] * scale > DType(1) ? roi[3] * scale : DType(1);
  const DType height = roi[4] * scale > DType(1) ? roi[4] * scale : DType(1);
  const DType theta = static_cast<DType>(roi[5] * 3.14159265358979323846 / 180.0);
  r->cos = std::cos(theta);
  r->sin = std::sin(theta);
  // Any of them an infinity or NaN leaves a sum whose difference with itself is not 0.
  const DType sum = r->center_w + r->center_h + width + height + r->cos;
  if (!(sum - sum == DType(0))) return false;
  r->start_w = -width / DType(2);
  r->start_h = -height / DType(2);
  r->bin_h = height / DType(g.pooled_h);
  r->bin_w = width / DType(g.pooled_w);
  r->grid_h = GridOf(r->bin_h, g);
  r->grid_w = GridOf(r->bin_w, g);
  return true;
}

template <typename DType>
MSHADOW_XINLINE bool RegionOf(const DType* roi, const Geometry& g, Region<DType>* r) {
  const DType image = roi[0];
  if (!(image >= DType(0) && image < DType(g.batch))) return false;
  r->image = static_cast<index_t>(image);
  if (g.rotated) return RotatedRegionOf(roi, g, r);
  const DType offset = g.aligned ? DType(0.5) : DType(0);
  const DType scale = static_cast<DType>(g.spatial_scale);
  r->start_w = roi[1] * scale - offset;
  r->start_h = roi[2] * scale - offset;
  DType width = roi[3] * scale - offset - r->start_w;
  DType height = roi[4] * scale - offset - r->start_h;
  // A corner that is (or scales to) an infinity or NaN leaves a difference that is not 0.
  if (!(width - width == DType(0) && height - height == DType(0))) return false;
  if (!g.aligned) {  // at least one position a side
    width = width > DType(1) ? width : DType(1);
    height = height > DType(1) ? height : DType(1);
  }
  r->bin_h = height / DType(g.pooled_h);
  r->bin_w = width / DType(g.pooled_w);
  r->grid_h = GridOf(r->bin_h, g);
  r->grid_w = GridOf(r->bin_w, g);
  return true;
}

// A sample's four positions in its plane and their weights; false outside the plane (more
// than a position beyond its edge), where the sample is zero.
template <typename DType>
struct Sample {
  index_t offset[4];
  DType weight[4];
};

template <typename DType>
MSHADOW_XINLINE bool SampleAt(DType y, DType x, index_t height, index_t width, Sample<DType>* s) {
  if (!(y >= DType(-1) && y <= DType(height) && x >= DType(-1) && x <= DType(width))) return false;
  if (y <= DType(0)) y = 0;
  if (x <= DType(0)) x = 0;
  index_t y0 = static_cast<index_t>(y), x0 = static_cast<index_t>(x), y1, x1;
  if (y0 >= height - 1) {
    y0 = y1 = height - 1;
    y = DType(y0);
  } else {
    y1 = y0 + 1;
  }
  if (x0 >= width - 1) {
    x0 = x1 = width - 1;
    x = DType(x0);
  } else {
    x1 = x0 + 1;
  }
  const DType ly = y - DType(y0), lx = x - DType(x0), hy = DType(1) - ly, hx = DType(1) - lx;
  s->offset[0] = y0 * width + x0, s->weight[0] = hy * hx;
  s->offset[1] = y0 * width + x1, s->weight[1] = hy * lx;
  s->offset[2] = y1 * width + x0, s->weight[2] = ly * hx;
  s->offset[3] = y1 * width + x1, s->weight[3] = ly * lx;
  return true;
}

// Calls fn(sample, 1 / samples) for every sample of bin (ph, pw) of region `r` that lies in the
// plane.
template <typename DType, typename Fn>
MSHADOW_XINLINE void ForEachSample(const Region<DType>& r, const Geometry& g, index_t ph,
                                   index_t pw, Fn&& fn) {
  const DType share = DType(1) / DType(r.grid_h * r.grid_w > 1 ? r.grid_h * r.grid_w : 1);
  for (int iy = 0; iy < r.grid_h; ++iy) {
    const DType y =
        r.start_h + DType(ph) * r.bin_h + (DType(iy) + DType(0.5)) * r.bin_h / DType(r.grid_h);
    for (int ix = 0; ix < r.grid_w; ++ix) {
      const DType x =
          r.start_w + DType(pw) * r.bin_w + (DType(ix) + DType(0.5)) * r.bin_w / DType(r.grid_w);
      Sample<DType> s;
      const bool inside = g.rotated
                              ? SampleAt(y * r.cos - x * r.sin + r.center_h,
                                         x * r.cos + y * r.sin + r.center_w, g.height, g.width, &s)
                              : SampleAt(y, x, g.height, g.width, &s);
      if (inside) fn(s, share);
    }
  }
}

// GPU forward item: output element i = (r, c, ph, pw).
template <int kReq>
struct roi_align_forward {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* data, const DType* rois,
                                  Geometry g) {
    const OutputElement e = g.ElementOf(i);
    Region<DType> region{};
    DType sum = 0;
    if (RegionOf(rois + e.r * g.RoiSize(), g, &region)) {
      const DType* plane = data + g.PlaneOffset(region.image, g.InputChannel(e.c, e.ph, e.pw));
      ForEachSample(region, g, e.ph, e.pw, [&](const Sample<DType>& s, DType share) {
        DType v = 0;
        for (int k = 0; k < 4; ++k) v += s.weight[k] * plane[s.offset[k]];
        sum += v * share;
      });
    }
    AssignReq<kReq>(out + i, sum);
  }
};

// The CPU's sample table: every region's samples, bin by bin, their share of the bin folded
// into their weights; bin i = r * bins + b of region r has samples [begin[i], end[i]) (a
// region's part of the table holds its whole grid; the samples outside the plane are left
// out).
// Found once per call and read by every channel: found again for every output element, they
// had cost the forward 3.6x MXNet's time (docs/benchmarks.md).
template <typename DType>
struct SampleTable {
  index_t* begin;  // regions * bins entries each; a region MXNet ignores has no samples
  index_t* end;
  Sample<DType>* samples;
  index_t* image;  // each region's image, -1 where it is ignored
};

// CPU item: region r's samples written into the table from begin[r * bins].
struct fill_sample_table {
  template <typename DType>
  static void Map(index_t r, SampleTable<DType> t, const DType* rois, Geometry g) {
    const index_t bins = g.pooled_h * g.pooled_w;
    Region<DType> region{};
    const bool used = RegionOf(rois + r * g.RoiSize(), g, &region);
    t.image[r] = used ? region.image : -1;
    index_t count = t.begin[r * bins];  // the region's part of the table
    for (index_t b = 0; b < bins; ++b) {
      t.begin[r * bins + b] = count;
      if (used) {
        ForEachSample(region, g, b / g.pooled_w, b % g.pooled_w,
                      [&](const Sample<DType>& s, DType share) {
                        t.samples[count] = s;
                        for (int k = 0; k < 4; ++k) t.samples[count].weight[k] *= share;
                        ++count;
                      });
      }
      t.end[r * bins + b] = count;
    }
  }
};

// The table in the temporary space: the regions' sample counts first (a pass over their
// grids), then their samples, a region an item.
template <typename DType>
SampleTable<DType> BuildSampleTable(const OpContext& ctx, mshadow::Stream<cpu>* s,
                                    const DType* rois, const Geometry& g) {
  const index_t bins = g.pooled_h * g.pooled_w;
  std::vector<index_t> starts(g.regions + 1, 0);
  for (index_t r = 0; r < g.regions; ++r) {
    Region<DType> region{};
    const index_t n =
        RegionOf(rois + r * g.RoiSize(), g, &region) ? region.grid_h * region.grid_w : 0;
    starts[r + 1] = starts[r] + n * bins;  // at most this many: samples outside are skipped
  }
  const size_t index_bytes = (2 * g.regions * bins + g.regions) * sizeof(index_t);
  const size_t bytes = index_bytes + starts[g.regions] * sizeof(Sample<DType>);
  auto* indices =
      reinterpret_cast<index_t*>(CpuWorkspace<char>(ctx, static_cast<index_t>(bytes), s));
  const SampleTable<DType> t{
      indices, indices + g.regions * bins,
      reinterpret_cast<Sample<DType>*>(indices + 2 * g.regions * bins + g.regions),
      indices + 2 * g.regions * bins};
  for (index_t r = 0; r < g.regions; ++r) t.begin[r * bins] = starts[r];
  Kernel<fill_sample_table, cpu>::LaunchItems(s, g.regions, bins * 16, t, rois, g);
  return t;
}

// CPU forward item: kChannelBlock output channels of region r (item r * Blocks(g) + block),
// their bins from the table. Each sample's offsets and weights are read once for the block's
// channels (a channel an item had read them again for each), and the channels' sums are
// independent chains of additions.
template <int kReq>
struct roi_align_table_forward {
  static constexpr index_t kChannelBlock = 4;
  static index_t Blocks(const Geometry& g) {
    return (g.out_channels + kChannelBlock - 1) / kChannelBlock;
  }
  template <typename DType>
  static void Map(index_t item, DType* out, const DType* data, SampleTable<DType> t, Geometry g) {
    const index_t blocks = Blocks(g);
    const index_t r = item / blocks, c0 = item % blocks * kChannelBlock;
    const index_t count = std::min(kChannelBlock, g.out_channels - c0);
    const index_t bins = g.pooled_h * g.pooled_w;
    for (index_t b = 0; b < bins; ++b) {
      DType sum[kChannelBlock] = {};
      if (t.image[r] >= 0) {
        const DType* plane[kChannelBlock];
        for (index_t i = 0; i < kChannelBlock; ++i) {
          // Channels past the block's last read its plane again (their sums are not stored).
          const index_t c = c0 + std::min(i, count - 1);
          plane[i] = data + g.PlaneOffset(t.image[r],
                                          g.InputChannel(c, b / g.pooled_w, b % g.pooled_w));
        }
        for (index_t k = t.begin[r * bins + b]; k < t.end[r * bins + b]; ++k) {
          const Sample<DType>& s = t.samples[k];
          OPS_UNROLL_FULLY
          for (index_t i = 0; i < kChannelBlock; ++i) {
            const DType* p = plane[i];
            sum[i] += (s.weight[0] * p[s.offset[0]] + s.weight[1] * p[s.offset[1]]) +
                      (s.weight[2] * p[s.offset[2]] + s.weight[3] * p[s.offset[3]]);
          }
        }
      }
      for (index_t i = 0; i < count; ++i) {
        AssignReq<kReq>(out + ((r * g.out_channels + c0 + i) * bins + b), sum[i]);
      }
    }
  }
};

// CPU gradient item: input channel `channel`, every region's bins that read it, from the table
// (in region order: no two threads write one element).
struct roi_align_table_backward {
  template <typename DType>
  static void Map(index_t channel, DType* grad, const DType* og, SampleTable<DType> t, Geometry g) {
    const index_t bins = g.pooled_h * g.pooled_w;
    // The output channel and the one bin that read this input channel (position-sensitive),
    // or the same channel and every bin.
    const index_t c = g.position_sensitive ? channel / bins : channel;
    const index_t first = g.position_sensitive ? channel % bins : 0;
    const index_t last = g.position_sensitive ? first + 1 : bins;
    for (index_t r = 0; r < g.regions; ++r) {
      if (t.image[r] < 0) continue;
      DType* plane = grad + g.PlaneOffset(t.image[r], channel);
      const DType* og_bins = og + (r * g.out_channels + c) * bins;
      for (index_t b = first; b < last; ++b) {
        const DType d = og_bins[b];
        for (index_t k = t.begin[r * bins + b]; k < t.end[r * bins + b]; ++k) {
          const Sample<DType>& s = t.samples[k];
          for (int q = 0; q < 4; ++q) plane[s.offset[q]] += d * s.weight[q];
        }
      }
    }
  }
};

// Adds bin (ph, pw) of region r's output gradient `g_out` onto its image's plane of input
// channel `plane` (atomically on the GPU).
template <typename DType>
MSHADOW_XINLINE void AddBinGradient(DType* plane, DType g_out, const Region<DType>& region,
                                    const Geometry& g, index_t ph, index_t pw) {
  ForEachSample(region, g, ph, pw, [&](const Sample<DType>& s, DType share) {
    for (int k = 0; k < 4; ++k) {
#ifdef __CUDA_ARCH__
      atomicAdd(plane + s.offset[k], g_out * share * s.weight[k]);
#else
      plane[s.offset[k]] += g_out * share * s.weight[k];
#endif
    }
  });
}

// GPU gradient item: output gradient element i.
struct roi_align_backward_atomic {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* og, const DType* rois,
                                  Geometry g) {
    const OutputElement e = g.ElementOf(i);
    Region<DType> region{};
    if (!RegionOf(rois + e.r * g.RoiSize(), g, &region)) return;
    DType* plane = grad + g.PlaneOffset(region.image, g.InputChannel(e.c, e.ph, e.pw));
    AddBinGradient(plane, og[i], region, g, e.ph, e.pw);
  }
};

// The geometry of data (N, C, H, W) and rois (R, 5), or (R, 6) rotated, under the parameters; a
// dmlc::Error names what does not fit.
Geometry GeometryOf(const ROIAlignParam& param, const TShape& data, const TShape& rois);
Geometry GeometryOf(const RROIAlignParam& param, const TShape& data, const TShape& rois);

template <typename xpu, typename Param>
void ROIAlignCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Geometry g = GeometryOf(GetParam<Param>(attrs), in[0].shape_, in[1].shape_);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      DType* y = out[0].dptr<DType>();
      const DType *data = in[0].dptr<DType>(), *rois = in[1].dptr<DType>();
      if constexpr (std::is_same_v<xpu, cpu>) {
        const SampleTable<DType> table = BuildSampleTable(ctx, s, rois, g);
        using Forward = roi_align_table_forward<Req>;
        Kernel<Forward, cpu>::LaunchItems(s, g.regions * Forward::Blocks(g),
                                          g.pooled_h * g.pooled_w * 16 * Forward::kChannelBlock, y,
                                          data, table, g);
      } else {
        Kernel<roi_align_forward<Req>, xpu>::Launch(s, out[0].Size(), y, data, rois, g);
      }
    });
  });
}

// Inputs: the output gradient, data, rois; outputs: the data's and the regions' gradients
// (zeros, as MXNet's).
template <typename xpu, typename Param>
void ROIAlignGradCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Geometry g = GeometryOf(GetParam<Param>(attrs), in[1].shape_, in[2].shape_);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    WriteZeroGradient<xpu, DType>(out[1], req[1], s);
    if (req[0] == kNullOp) return;
    WriteZeroGradient<xpu, DType>(out[0], req[0], s);  // the samples add
    DType* grad = out[0].dptr<DType>();
    const DType* og = in[0].dptr<DType>();
    const DType* rois = in[2].dptr<DType>();
    if constexpr (std::is_same_v<xpu, cpu>) {
      const SampleTable<DType> table = BuildSampleTable(ctx, s, rois, g);
      const index_t work = g.regions * g.pooled_h * g.pooled_w * 16;
      Kernel<roi_align_table_backward, cpu>::LaunchItems(s, g.channels, work, grad, og, table, g);
    } else {
      Kernel<roi_align_backward_atomic, xpu>::Launch(s, in[0].Size(), grad, og, rois, g);
    }
  });
}

// Adds FCompute<xpu> to _contrib_ROIAlign, _contrib_RROIAlign and their backward operators.
template <typename xpu>
void SetROIAlignCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_ROIAlign")
      .set_attr<FCompute>(attr_name, FCompute(ROIAlignCompute<xpu, ROIAlignParam>));
  RegisterOp("_backward_contrib_ROIAlign")
      .set_attr<FCompute>(attr_name, FCompute(ROIAlignGradCompute<xpu, ROIAlignParam>));
  RegisterOp("_contrib_RROIAlign")
      .set_attr<FCompute>(attr_name, FCompute(ROIAlignCompute<xpu, RROIAlignParam>));
  RegisterOp("_backward_contrib_RROIAlign")
      .set_attr<FCompute>(attr_name, FCompute(ROIAlignGradCompute<xpu, RROIAlignParam>));
}

}  // namespace roi_align
}  // namespace ops

#endif  // OPS_ROI_ALIGN_INL_H_
