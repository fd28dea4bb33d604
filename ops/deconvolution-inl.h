// ops/deconvolution-inl.h: Deconvolution (the transposed convolution: 1-, 2- and 3-d,
// channel-first, grouped, dilated, with adj or target_shape) and its backward operator,
// written once for every device with MXNet 1.9.1's semantics.
//
// A deconvolution of data (N, C, in...) by weight (C, F / groups, kernel...) is the data
// gradient of the convolution that maps its output (N, F, out...) back to (N, C, in...) with
// the same weight, kernel, stride, dilation and padding. So it runs on the convolution's
// column matrix (ops/im2col.h), seen from the output: per image and group, col = weight^T *
// data, then Col2Im onto the output (on the CPU, layers onto 1 to 4 channels per group run on
// position lanes, ops/position_lanes.h and ops/phase_lanes.h, and others without dilation by
// output phase where ops/deconvolution_phases.h serves them). Its data gradient is that
// convolution's forward (Im2Col of the output gradient, then weight * col), its weight
// gradient data * col^T.
//
// Per spatial axis, out = stride * (in - 1) + dilate * (kernel - 1) + 1 - 2 * pad + adj; a
// target_shape instead sets pad and adj so that out is the target (pad rounded up, as MXNet).
// deconvolution.cc registers the CPU, deconvolution.cu adds FCompute<gpu>.
#ifndef OPS_DECONVOLUTION_INL_H_
#define OPS_DECONVOLUTION_INL_H_

#include <sstream>
#include <vector>

#include "mshadow/extension/broadcast.h"
#include "mshadow/extension/reduceto1d.h"
#include "mshadow/tensor.h"
#include "ops/column_chunks.h"
#include "ops/deconvolution_phases.h"
#include "ops/im2col.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"
#include "ops/matrix_product.h"
#include "ops/phase_lanes.h"
#include "ops/position_lanes.h"
#include "ops/tap_gradient.h"
#include "ops/tile_convolution.h"
#include "ops/transpose_block.h"

namespace ops {
namespace deconvolution {

using mshadow::expr::dot;

struct DeconvolutionParam : public dmlc::Parameter<DeconvolutionParam> {
  TShape kernel;
  TShape stride;
  TShape dilate;
  TShape pad;
  TShape adj;
  TShape target_shape;
  uint32_t num_filter;
  uint32_t num_group;
  uint64_t workspace;
  bool no_bias;
  dmlc::optional<int> cudnn_tune;
  bool cudnn_off;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(DeconvolutionParam) {
    DMLC_DECLARE_FIELD(kernel).describe("Kernel size: (w,), (h, w) or (d, h, w).");
    DMLC_DECLARE_FIELD(stride).set_default(TShape()).describe(
        "Stride per spatial axis; () is 1 on every axis.");
    DMLC_DECLARE_FIELD(dilate).set_default(TShape()).describe(
        "Dilation per spatial axis; () is 1 on every axis.");
    DMLC_DECLARE_FIELD(pad).set_default(TShape()).describe(
        "Padding of the equivalent convolution, removed from both sides of the output; () is "
        "0 on every axis. Ignored when target_shape is given.");
    DMLC_DECLARE_FIELD(adj).set_default(TShape()).describe(
        "Extra output positions at the end of each spatial axis, each below its stride; () "
        "is 0. Ignored when target_shape is given.");
    DMLC_DECLARE_FIELD(target_shape)
        .set_default(TShape())
        .describe("The output's spatial extents; pad and adj are then worked out from them.");
    DMLC_DECLARE_FIELD(num_filter).set_lower_bound(1).describe("Number of output channels.");
    DMLC_DECLARE_FIELD(num_group).set_default(1).set_lower_bound(1).describe(
        "Number of groups: input and output channels are split into num_group groups.");
    DMLC_DECLARE_FIELD(workspace).set_default(512).set_lower_bound(0).describe(
        "Most temporary memory, in MiB, a cuDNN algorithm may use on the GPU (the fastest "
        "that fits is taken); the CPU ignores it.");
    DMLC_DECLARE_FIELD(no_bias).set_default(true).describe(
        "Whether to leave out the bias (MXNet's default: no bias).");
    DMLC_DECLARE_FIELD(cudnn_tune)
        .add_enum("off", 0)
        .add_enum("limited_workspace", 1)
        .add_enum("fastest", 2)
        .set_default(dmlc::optional<int>())
        .describe("Accepted for MXNet compatibility; ignored.");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false).describe(
        "On the GPU, use the im2col path instead of cuDNN; the CPU ignores it.");
    DMLC_DECLARE_FIELD(layout)
        .add_enum("NCW", 0)
        .add_enum("NCHW", 1)
        .add_enum("NCDHW", 2)
        .add_enum("NHWC", 3)
        .add_enum("NDHWC", 4)
        .set_default(dmlc::optional<int>())
        .describe("Data layout; only the channel-first layouts (NCW, NCHW, NCDHW) are "
                  "supported. None: channel-first.");
  }
};

[[noreturn]] inline void Fail(const std::ostringstream& os) {
  throw dmlc::Error("Deconvolution: " + os.str());
}

// The equivalent convolution, from the deconvolution's output (channels num_filter, extents
// `in`) to its data (extents `out`); a dmlc::Error for parameters that do not fit the data.
inline ConvGeometry Geometry(const DeconvolutionParam& param, const TShape& data) {
  CheckChannelFirst(param.layout, "Deconvolution");
  std::ostringstream os;
  ConvGeometry g;
  SetSpatialInput(param.kernel, data, "Deconvolution", &g);
  ExpandSpatial(param.stride, g.ndim, 1, 1, "stride", g.stride);
  ExpandSpatial(param.dilate, g.ndim, 1, 1, "dilate", g.dilate);
  ExpandSpatial(param.pad, g.ndim, 0, 0, "pad", g.pad);
  index_t adj[ConvGeometry::kMaxSpatial];
  ExpandSpatial(param.adj, g.ndim, 0, 0, "adj", adj);
  const bool targeted = param.target_shape.ndim() != 0;
  if (targeted && param.target_shape.ndim() != g.ndim) {
    os << "target_shape " << param.target_shape << " has " << param.target_shape.ndim()
       << " entries but the kernel has " << g.ndim << " spatial axes";
    Fail(os);
  }
  if (g.channels % param.num_group != 0 || param.num_filter % param.num_group != 0) {
    os << "num_group " << param.num_group << " must divide both the input channels ("
       << g.channels << ") and num_filter (" << param.num_filter << ")";
    Fail(os);
  }
  for (int a = 0; a < g.ndim; ++a) {
    const index_t in = g.in[a];
    const index_t full = g.stride[a] * (in - 1) + g.dilate[a] * (g.kernel[a] - 1) + 1;
    if (targeted) {
      const index_t target = param.target_shape[a];
      if (target < 1 || target > full) {
        os << "target_shape " << param.target_shape << " asks for " << target
           << " positions on spatial axis " << a << "; valid: 1 to " << full
           << " for data " << data;
        Fail(os);
      }
      g.pad[a] = (full - target + 1) / 2;
      adj[a] = (full - target) % 2;
    }
    if (adj[a] >= g.stride[a]) {
      os << "adj " << adj[a] << " on spatial axis " << a << " must be smaller than its stride "
         << g.stride[a];
      Fail(os);
    }
    const index_t out = full - 2 * g.pad[a] + adj[a];
    if (out < 1) {
      os << "pad " << g.pad[a] << " on spatial axis " << a << " leaves no output positions ("
         << out << ") for data " << data;
      Fail(os);
    }
    g.out[a] = in;  // the equivalent convolution's output is the deconvolution's data
    g.in[a] = out;
  }
  g.channels = param.num_filter;
  return g;
}

// Per group: the data's channels (rows of the weight) and the column rows.
struct GroupSizes {
  index_t groups;
  index_t channels;  // data channels per group
  index_t col_rows;  // (num_filter / groups) * kernel size
};

inline GroupSizes GroupsOf(const DeconvolutionParam& param, const ConvGeometry& g,
                           index_t data_channels) {
  const index_t groups = param.num_group;
  return {groups, data_channels / groups, g.ColRows() / groups};
}

// Inputs: data (N, C, in...), weight (C, F / groups, kernel...) [, bias (F)]. Output:
// (N, F, out...).
// (Also bilinear UpSampling's, with the parameters it builds.)
template <typename xpu>
void Deconvolve(const DeconvolutionParam& param, const OpContext& ctx,
                const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const ConvGeometry g = Geometry(param, in[0].shape_);
  const index_t batch = in[0].shape_[0], channels = in[0].shape_[1];
  const GroupSizes gs = GroupsOf(param, g, channels);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto data = in[0].get_with_shape<xpu, 3, DType>(
        mshadow::Shape3(batch, channels, g.OutSize()), stream);
    auto weight = in[1].get_with_shape<xpu, 2, DType>(mshadow::Shape2(channels, gs.col_rows),
                                                      stream);
    auto y = out[0].get_with_shape<xpu, 3, DType>(
        mshadow::Shape3(batch, param.num_filter, g.InSize()), stream);
    if constexpr (std::is_same_v<xpu, cpu>) {
      // Onto 1 to 4 channels per group by position lanes (stride 1) or by phase over them;
      // others by output phase where PhasesServe.
      const DType* bias = param.no_bias ? nullptr : in[2].dptr<DType>();
      const auto space = [&](index_t size) { return CpuWorkspace<DType>(ctx, size, stream); };
      if (position_lanes::ServesDataGradient(g, gs.groups)) {
        return position_lanes::Deconvolve(g, gs.groups, channels, batch, data.dptr_,
                                          weight.dptr_, bias, req[0], y.dptr_, space);
      }
      if (phase_lanes::Serves(g, gs.groups)) {
        return phase_lanes::Deconvolve(g, gs.groups, channels, batch, data.dptr_, weight.dptr_,
                                       bias, req[0], y.dptr_, space);
      }
      if (PhasesServe<DType>(g, gs.groups, gs.channels)) {
        return RunByPhases(PlanPhases(g, gs.groups, gs.channels), batch,
                           WeightLayout::kDeconvolution, weight.dptr_, data.dptr_, bias, y.dptr_,
                           req[0], space);
      }
    }
    auto col = ctx.requested[0].get_space_typed<xpu, 2, DType>(
        mshadow::Shape2(g.ColRows(), g.OutSize()), stream);
    for (index_t n = 0; n < batch; ++n) {
      Tensor<xpu, 2, DType> xn = data[n];
      for (index_t grp = 0; grp < gs.groups; ++grp) {
        Product(col.Slice(grp * gs.col_rows, (grp + 1) * gs.col_rows), kWriteTo,
                weight.Slice(grp * gs.channels, (grp + 1) * gs.channels), true,
                xn.Slice(grp * gs.channels, (grp + 1) * gs.channels));
      }
      Col2Im(stream, g, col.dptr_, y[n].dptr_, req[0]);
      if (!param.no_bias) {
        Tensor<xpu, 2, DType> yn = y[n];
        yn += mshadow::expr::broadcast<0>(in[2].get<xpu, 1, DType>(stream), yn.shape_);
      }
    }
  });
}

// The CPU's backward for groups of at least a packet of channels. Where the data's channels
// per group are whole strips of the tiles (1-d to 3-d layers), its data gradient is the
// equivalent convolution's forward by position tiles (ops/tile_convolution.h; by position
// lanes, ops/position_lanes.h, where og has 1 to 4 channels per group) and its weight
// gradient that convolution's by tap tiles (ops/tap_gradient.h, the data's channels as its
// filters): both read og in place. Otherwise both go over chunks of og's column matrix
// (ops/column_chunks.h): the weight gradient data * col^T summed over the batch, and with each
// chunk the data gradient's part, weight * col, summed over the chunks. space(size) returns
// `size` elements of scratch.
template <typename DType, typename Space>
void DeconvolveBackwardCpu(mshadow::Stream<cpu>* stream, const ConvGeometry& g,
                           const GroupSizes& gs, const Tensor<cpu, 3, DType>& og,
                           const Tensor<cpu, 3, DType>& data, const Tensor<cpu, 2, DType>& weight,
                           OpReqType dx_req, const Tensor<cpu, 3, DType>& dx, OpReqType dw_req,
                           const Tensor<cpu, 2, DType>& dw, Space&& space) {
  const index_t batch = data.size(0), threads = BatchThreads(batch);
  if (tile_convolution::Serves<DType>(g, gs.channels)) {
    const index_t channels = gs.groups * gs.channels;
    const DType* og_data = og.dptr_;
    const DType* w = weight.dptr_;
    if (position_lanes::Serves(g, gs.groups)) {  // og of 1 to 4 channels per group
      position_lanes::Forward(g, gs.groups, channels, batch, og_data, w,
                              static_cast<const DType*>(nullptr), dx_req, dx.dptr_, space);
    } else {
      tile_convolution::ConvolveByTiles(g, gs.groups, channels, batch, og_data, w,
                                        static_cast<const DType*>(nullptr), dx_req, dx.dptr_,
                                        space);
    }
    const tap_gradient::TapLayer l = tap_gradient::TapLayerOf(g, gs.groups, channels);
    return tap_gradient::WeightGradient(l, threads, batch, static_cast<const DType*>(og.dptr_),
                                        static_cast<const DType*>(data.dptr_), dw_req, dw,
                                        space(tap_gradient::GradientSpace(l, threads)));
  }
  const column_chunks::ColumnPlan plan = column_chunks::PlanColumns(g, gs.groups, sizeof(DType));
  column_chunks::WeightGradient(
      stream, plan, gs.channels, threads, batch, static_cast<const DType*>(og.dptr_), data, dw_req,
      dw, space(column_chunks::WeightGradientSpace(plan, gs.channels, threads)),
      [&](index_t n, index_t grp, index_t first_row, const Tensor<cpu, 2, DType>& col) {
        if (dx_req == kNullOp) return;
        const Tensor<cpu, 2, DType> w = weight.Slice(grp * gs.channels, (grp + 1) * gs.channels);
        Product(dx[n].Slice(grp * gs.channels, (grp + 1) * gs.channels),
                first_row == 0 ? dx_req : kAddTo,
                Tensor<cpu, 2, DType>(w.dptr_ + first_row, mshadow::Shape2(w.size(0), col.size(0)),
                                      w.stride_, nullptr),
                false, col);
      });
}

// Inputs: out_grad, data, weight [, bias]. Outputs: data_grad, weight_grad [, bias_grad].
template <typename xpu>
void DeconvolveBackward(const DeconvolutionParam& param, const OpContext& ctx,
                        const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                        const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const ConvGeometry g = Geometry(param, in[1].shape_);
  const index_t batch = in[1].shape_[0], channels = in[1].shape_[1];
  const GroupSizes gs = GroupsOf(param, g, channels);
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    auto og = in[0].get_with_shape<xpu, 3, DType>(
        mshadow::Shape3(batch, param.num_filter, g.InSize()), stream);
    auto data = in[1].get_with_shape<xpu, 3, DType>(
        mshadow::Shape3(batch, channels, g.OutSize()), stream);
    auto weight = in[2].get_with_shape<xpu, 2, DType>(mshadow::Shape2(channels, gs.col_rows),
                                                      stream);
    auto dx = out[0].get_with_shape<xpu, 3, DType>(
        mshadow::Shape3(batch, channels, g.OutSize()), stream);
    auto dw = out[1].get_with_shape<xpu, 2, DType>(mshadow::Shape2(channels, gs.col_rows),
                                                   stream);
    if (!param.no_bias) BiasGradient<xpu>(stream, in[0], req[2], out[2]);
    if (req[0] == kNullOp && req[1] == kNullOp) return;
    // Groups of fewer channels than a packet (depthwise: bilinear UpSampling) would make dw^T's
    // rows too short for the register tiles: they, and the GPU, take the loop below.
    if constexpr (std::is_same_v<xpu, cpu>) {
      if (gs.channels >= vec::Full<DType>::kSize) {
        return DeconvolveBackwardCpu(
            stream, g, gs, og, data, weight, req[0], dx, req[1], dw,
            [&](index_t size) { return CpuWorkspace<DType>(ctx, size, stream); });
      }
    }
    auto col = ctx.requested[0].get_space_typed<xpu, 2, DType>(
        mshadow::Shape2(g.ColRows(), g.OutSize()), stream);
    if (batch == 0 && req[1] == kWriteTo) dw = DType(0);  // no image to sum over
    for (index_t n = 0; n < batch; ++n) {
      Im2Col(stream, g, og[n].dptr_, col.dptr_);
      for (index_t grp = 0; grp < gs.groups; ++grp) {
        const auto rows = [&](auto t) {
          return t.Slice(grp * gs.channels, (grp + 1) * gs.channels);
        };
        const auto cg = col.Slice(grp * gs.col_rows, (grp + 1) * gs.col_rows);
        // Data gradient: the equivalent convolution's forward.
        Product(rows(dx[n]), req[0], rows(weight), false, cg);
        // Weight gradient: data * col^T, summed over the batch (the first image writes).
        if (req[1] != kNullOp) {
          Assign(rows(dw), n == 0 ? req[1] : kAddTo, dot(rows(data[n]), cg.T()));
        }
      }
    }
  });
}

// Adds FCompute<xpu> to Deconvolution and _backward_Deconvolution.
template <typename xpu>
void SetDeconvolutionCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("Deconvolution")
      .set_attr<FCompute>(attr_name, [](const NodeAttrs& attrs, const OpContext& ctx,
                                        const std::vector<TBlob>& in,
                                        const std::vector<OpReqType>& req,
                                        const std::vector<TBlob>& out) {
        Deconvolve<xpu>(GetParam<DeconvolutionParam>(attrs), ctx, in, req, out);
      });
  RegisterOp("_backward_Deconvolution")
      .set_attr<FCompute>(attr_name, [](const NodeAttrs& attrs, const OpContext& ctx,
                                        const std::vector<TBlob>& in,
                                        const std::vector<OpReqType>& req,
                                        const std::vector<TBlob>& out) {
        DeconvolveBackward<xpu>(GetParam<DeconvolutionParam>(attrs), ctx, in, req, out);
      });
}

}  // namespace deconvolution
}  // namespace ops

#endif  // OPS_DECONVOLUTION_INL_H_
