// ops/convolution-inl.h: Convolution (1-, 2- and 3-d, NCW/NCHW/NCDHW, grouped, dilated) and
// its backward operator, written once for every device: per image, the column matrix
// (ops/im2col.h) and one gemm per group (BLAS on the CPU, cuBLAS on the GPU). convolution.cc
// registers them with FCompute<cpu> and shape inference, convolution.cu adds FCompute<gpu>.
#ifndef OPS_CONVOLUTION_INL_H_
#define OPS_CONVOLUTION_INL_H_

#include <sstream>
#include <type_traits>
#include <vector>

#include "mshadow/extension/broadcast.h"
#include "mshadow/extension/reduceto1d.h"
#include "mshadow/tensor.h"
#include "ops/column_chunks.h"
#include "ops/deconvolution_phases.h"
#include "ops/depthwise_convolution.h"
#include "ops/im2col.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"
#include "ops/phase_lanes.h"
#include "ops/position_lanes.h"
#include "ops/register_gemm.h"
#include "ops/tap_gradient.h"
#include "ops/tile_convolution.h"
#include "ops/winograd_conv.h"

namespace ops {
namespace convolution {

using mshadow::expr::dot;

struct ConvolutionParam : public dmlc::Parameter<ConvolutionParam> {
  TShape kernel;
  TShape stride;
  TShape dilate;
  TShape pad;
  uint32_t num_filter;
  uint32_t num_group;
  uint64_t workspace;
  bool no_bias;
  dmlc::optional<int> cudnn_tune;
  bool cudnn_off;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(ConvolutionParam) {
    DMLC_DECLARE_FIELD(kernel).describe("Kernel size: (w,), (h, w) or (d, h, w).");
    DMLC_DECLARE_FIELD(stride).set_default(TShape()).describe(
        "Stride per spatial axis; () is 1 on every axis.");
    DMLC_DECLARE_FIELD(dilate).set_default(TShape()).describe(
        "Dilation per spatial axis; () is 1 on every axis.");
    DMLC_DECLARE_FIELD(pad).set_default(TShape()).describe(
        "Zero padding on both sides of each spatial axis; () is 0 on every axis.");
    DMLC_DECLARE_FIELD(num_filter).set_lower_bound(1).describe("Number of output channels.");
    DMLC_DECLARE_FIELD(num_group).set_default(1).set_lower_bound(1).describe(
        "Number of groups: input and output channels are split into num_group groups, each "
        "convolved on its own.");
    DMLC_DECLARE_FIELD(workspace).set_default(1024).set_lower_bound(0).describe(
        "Most temporary memory, in MiB, a cuDNN algorithm may use on the GPU (the fastest "
        "that fits is taken); the CPU ignores it.");
    DMLC_DECLARE_FIELD(no_bias).set_default(false).describe("Whether to leave out the bias.");
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

// The geometry of a convolution of `data` (batch, channels, spatial...), output extents
// included; a dmlc::Error for parameters that do not fit it (a dilated kernel larger than the
// padded input, channels not divisible by the groups, a layout other than channel-first).
inline ConvGeometry Geometry(const ConvolutionParam& param, const TShape& data) {
  CheckChannelFirst(param.layout, "Convolution");
  ConvGeometry g;
  SetSpatialInput(param.kernel, data, "Convolution", &g);
  ExpandSpatial(param.stride, g.ndim, 1, 1, "stride", g.stride);
  ExpandSpatial(param.dilate, g.ndim, 1, 1, "dilate", g.dilate);
  ExpandSpatial(param.pad, g.ndim, 0, 0, "pad", g.pad);
  if (g.channels % param.num_group != 0 || param.num_filter % param.num_group != 0) {
    std::ostringstream os;
    os << "num_group " << param.num_group << " must divide both the input channels ("
       << g.channels << ") and num_filter (" << param.num_filter << ")";
    throw dmlc::Error(os.str());
  }
  SetConvolutionOutput(param.kernel, data, &g);
  return g;
}

// Number of groups and the per-group sizes of one image's gemm.
struct GroupSizes {
  index_t groups;
  index_t filters;   // rows of the weight (and of the output) per group
  index_t col_rows;  // rows of the column matrix per group
};

inline GroupSizes GroupsOf(const ConvolutionParam& param, const ConvGeometry& g) {
  const index_t groups = param.num_group;
  return {groups, static_cast<index_t>(param.num_filter) / groups, g.ColRows() / groups};
}

// The column matrix of one image, in the operator's temporary space.
template <typename xpu, typename DType>
Tensor<xpu, 2, DType> ColumnBuffer(const OpContext& ctx, const ConvGeometry& g,
                                   mshadow::Stream<xpu>* stream) {
  return ctx.requested[0].get_space_typed<xpu, 2, DType>(mshadow::Shape2(g.ColRows(), g.OutSize()),
                                                          stream);
}

// Whether position tiles (ops/position_tiles.h) outrun Winograd on a layer of `channels` in
// and `filters` out: one strip of filters and at most one of channels, on AVX-512. Winograd's
// transforms are paid per channel and per filter, its products saved per pair of them; on
// AVX-512's strips the small 3x3 layer ran faster by tiles both ways (docs/benchmarks.md,
// sixteenth session), where on AVX2 the two had been even.
template <typename DType>
bool TilesOutrunWinograd(index_t channels, index_t filters) {
  constexpr index_t kStrip = position_tiles::kFilterStrip<DType>;
  return MSHADOW_DEFAULT_PACKET == mshadow::packet::kAVX512 && filters == kStrip &&
         channels <= kStrip;
}

// The passes of a convolution that may run by Winograd.
enum class Pass { kForward, kDataGradient, kWeightGradient };

// Whether the CPU runs this pass of the convolution by Winograd's F(2x2, 3x3) instead of
// position tiles (the forward and the data gradient, where TilesOutrunWinograd), tap tiles
// (the weight gradient, ops/tap_gradient.h) or im2col.
// The data gradient (the output gradient convolved with the flipped kernels, channels and
// filters swapped) only for pad <= 2 over the 3x3 kernel's axes (and a 3-d layer's at depth
// stride 1). 3-d layers a slice of output depth at a time; their weight gradients take the
// tap tiles.
template <typename xpu, typename DType>
bool UsesWinograd(const ConvGeometry& g, const GroupSizes& gs, index_t filters, Pass pass) {
  if (!std::is_same_v<xpu, cpu> || !winograd::Applies(g, gs.groups, filters)) return false;
  const int h = g.ndim - 2, w = g.ndim - 1;
  switch (pass) {
    case Pass::kForward:
      return !(TilesOutrunWinograd<DType>(g.channels, filters) &&
               deconvolution::ConvolutionPhasesServe<DType>(g, g.channels));
    case Pass::kDataGradient:
      return g.pad[h] <= 2 && g.pad[w] <= 2 && (g.ndim == 2 || g.stride[0] == 1) &&
             !(TilesOutrunWinograd<DType>(filters, g.channels) &&
               deconvolution::PhasesServe<DType>(g, gs.groups, filters));
    case Pass::kWeightGradient:
      if (g.ndim == 3) return false;
      // On AVX-512 the tap tiles outran Winograd's kernel gradient on both 3x3 layers measured
      // (docs/benchmarks.md, sixteenth session).
      return !(MSHADOW_DEFAULT_PACKET == mshadow::packet::kAVX512 &&
               tap_gradient::Serves<DType>(g, filters));
  }
  return true;
}

// Whether the CPU runs this convolution's forward as one product of its taps over the padded
// input read in place (ops/deconvolution_phases.h: stride 1, no dilation, 1-d or 2-d)
// instead of im2col and a product. Not where Winograd runs: it multiplies 2.25 times less
// (docs/benchmarks.md compares the three).
template <typename DType>
bool UsesTapProducts(const ConvGeometry& g, const GroupSizes& gs, index_t filters) {
  return deconvolution::ConvolutionPhasesServe<DType>(g, g.channels / gs.groups) &&
         !UsesWinograd<cpu, DType>(g, gs, filters, Pass::kForward);
}

// Whether the CPU runs this convolution's data gradient as the deconvolution of the output
// gradient by the same weight, by output phase (ops/deconvolution_phases.h: no dilation,
// filters per group at least a packet, 3-d layers where the position tiles serve them),
// instead of im2col and col2im. Not where Winograd runs.
template <typename DType>
bool UsesPhaseDataGradient(const ConvGeometry& g, const GroupSizes& gs, index_t filters) {
  return deconvolution::PhasesServe<DType>(g, gs.groups, gs.filters) &&
         !UsesWinograd<cpu, DType>(g, gs, filters, Pass::kDataGradient);
}

// Whether the CPU runs this convolution's forward by position tiles reading its padded input
// with the layer's strides and dilation (ops/tile_convolution.h), where neither the tap
// products nor Winograd run.
template <typename DType>
bool UsesStridedTiles(const ConvGeometry& g, const GroupSizes& gs, index_t filters) {
  return tile_convolution::Serves<DType>(g, gs.filters) &&
         !UsesTapProducts<DType>(g, gs, filters) &&
         !UsesWinograd<cpu, DType>(g, gs, filters, Pass::kForward);
}

// Whether the CPU runs this convolution's passes over the column matrix (the forward's
// product, the weight gradient) threaded over images, a chunk of the matrix at a time
// (ops/column_chunks.h), rather than image after image: filters per group of a packet or more
// (for the weight gradient's sums, a row a filter of them; fewer, as depthwise layers have,
// stay on the image loop).
template <typename xpu, typename DType>
bool UsesColumnChunks(const GroupSizes& gs) {
  return std::is_same_v<xpu, cpu> && gs.filters >= vec::Full<DType>::kSize;
}

// The CPU's forward over chunks of the column matrix (UsesColumnChunks): per image and group,
// y = bias (null: none) + weight * col, as `req` says, the products of the chunks summed.
// space(size) returns `size` elements of scratch.
template <typename DType, typename Space>
void ColumnChunkForward(mshadow::Stream<cpu>* stream, const ConvGeometry& g, const GroupSizes& gs,
                        const DType* data, const Tensor<cpu, 2, DType>& weight, const DType* bias,
                        OpReqType req, const Tensor<cpu, 3, DType>& y, Space&& space) {
  const index_t batch = y.size(0), threads = BatchThreads(batch);
  const column_chunks::ColumnPlan plan = column_chunks::PlanColumns(g, gs.groups, sizeof(DType));
  column_chunks::ForEachColumnChunk(
      stream, plan, threads, batch, data, space(threads * plan.ChunkSize()), plan.ChunkSize(),
      [&](index_t, index_t n, bool, index_t grp, index_t first_row,
          const Tensor<cpu, 2, DType>& col) {
        const Tensor<cpu, 2, DType> yg = y[n].Slice(grp * gs.filters, (grp + 1) * gs.filters);
        const Tensor<cpu, 2, DType> wg = weight.Slice(grp * gs.filters, (grp + 1) * gs.filters);
        OpReqType product_req = first_row == 0 ? req : kAddTo;
        if (first_row == 0 && bias != nullptr) {  // the bias first, the products onto it
          for (index_t f = 0; f < gs.filters; ++f) {
            DType* row = yg[f].dptr_;
            const DType b = bias[grp * gs.filters + f];
            for (index_t i = 0; i < yg.size(1); ++i) row[i] = req == kAddTo ? row[i] + b : b;
          }
          product_req = kAddTo;
        }
        Product(
            yg, product_req,
            Tensor<cpu, 2, DType>(wg.dptr_ + first_row, mshadow::Shape2(gs.filters, col.size(0)),
                                  wg.stride_, nullptr),
            false, col);
      });
}

// Whether every spatial axis has kernel 1, stride 1 and no padding: the column matrix is
// then the image.
inline bool IsPointwise(const ConvGeometry& g) {
  for (int a = 0; a < g.ndim; ++a) {
    if (g.kernel[a] != 1 || g.stride[a] != 1 || g.pad[a] != 0) return false;
  }
  return true;
}

// Whether the CPU's forward runs a pointwise layer as one product per image on the image
// itself (PointwiseForward): where an image's output is at most 2^18 elements. Measured
// (docs/benchmarks.md, fifty-sixth and sixty-ninth sessions): (32,256,14,14) to 64 filters
// 7.2 -> 3.1 ms at 1 thread; (32,64,56,56) to 256 filters (3.2 MiB an image), whose outputs
// the tap products stream to memory, 1.5-1.7x slower by products per image.
inline bool UsesPointwiseProduct(const ConvGeometry& g, index_t filters) {
  return IsPointwise(g) && filters * g.OutSize() <= (index_t{1} << 18);
}

// The same for the data gradient (weight^T times the output gradient, into the image), by the
// size of an image's data gradient.
inline bool UsesPointwiseDataProduct(const ConvGeometry& g) {
  return IsPointwise(g) && g.channels * g.InSize() <= (index_t{1} << 18);
}

// The forward of a pointwise layer on the CPU (UsesPointwiseProduct): each image's output
// the product of the weight and the image (its column matrix), an image a thread, the bias
// its rows' start (added after the product where it adds to the output). One product per
// image on OpenBLAS's threads had been 1.5x slower at 2 threads on (32,256,14,14) to 64
// filters, 1.08x at 1 (docs/benchmarks.md, sixty-ninth session).
template <typename DType>
void PointwiseForward(const GroupSizes& gs, index_t size, index_t batch,
                      const Tensor<cpu, 2, DType>& data, const Tensor<cpu, 2, DType>& weight,
                      const DType* bias, OpReqType req, const Tensor<cpu, 3, DType>& y) {
  const bool add_to = req == kAddTo;
  ForEachImage(batch, BatchThreads(batch), [&](index_t, index_t n) {
    for (index_t grp = 0; grp < gs.groups; ++grp) {
      const index_t f0 = grp * gs.filters;
      DType* yg = y[n][f0].dptr_;
      register_gemm::TiledGemm<DType>(
          gs.filters, gs.col_rows, size, {weight[f0].dptr_, weight.stride_, false},
          {data[n].dptr_ + grp * gs.col_rows * size, size}, yg, size,
          register_gemm::Start<DType>{add_to, bias == nullptr ? nullptr : bias + f0});
      if (!add_to || bias == nullptr) continue;
      for (index_t f = 0; f < gs.filters; ++f) {
        DType* row = yg + f * size;
        for (index_t i = 0; i < size; ++i) row[i] += bias[f0 + f];
      }
    }
  });
}

// Inputs: data (N, C, spatial...), weight (F, C / groups, kernel...), bias (F). Output:
// (N, F, output spatial...).
template <typename xpu>
void ConvolutionCompute(const NodeAttrs& attrs, const OpContext& ctx,
                        const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                        const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const ConvolutionParam& param = GetParam<ConvolutionParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const ConvGeometry g = Geometry(param, in[0].shape_);
  const GroupSizes gs = GroupsOf(param, g);
  const index_t batch = in[0].shape_[0];
  const index_t filters = param.num_filter;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto data = in[0].get_with_shape<xpu, 2, DType>(
        mshadow::Shape2(batch, g.channels * g.InSize()), stream);
    auto weight = in[1].get_with_shape<xpu, 2, DType>(mshadow::Shape2(filters, gs.col_rows),
                                                      stream);
    auto y = out[0].get_with_shape<xpu, 3, DType>(mshadow::Shape3(batch, filters, g.OutSize()),
                                                  stream);
    // A pointwise layer (1x1, stride 1, no padding) has the image as its column matrix (no
    // im2col); on the CPU, small ones are one product per image (PointwiseForward).
    const bool pointwise = IsPointwise(g);
    if constexpr (std::is_same_v<xpu, cpu>) {
      if (UsesPointwiseProduct(g, filters)) {
        return PointwiseForward(gs, g.OutSize(), batch, data, weight,
                                param.no_bias ? nullptr : in[2].dptr<DType>(), req[0], y);
      } else if (depthwise::Serves(g, gs.groups, filters)) {
        return depthwise::Forward(g, batch, static_cast<const DType*>(data.dptr_),
                                  static_cast<const DType*>(weight.dptr_),
                                  param.no_bias ? nullptr : in[2].dptr<DType>(), req[0], y.dptr_);
      } else if (position_lanes::Serves(g, gs.groups)) {
        return position_lanes::Forward(
            g, gs.groups, filters, batch, static_cast<const DType*>(data.dptr_),
            static_cast<const DType*>(weight.dptr_), param.no_bias ? nullptr : in[2].dptr<DType>(),
            req[0], y.dptr_, [&](index_t size) { return CpuWorkspace<DType>(ctx, size, stream); });
      } else if (UsesTapProducts<DType>(g, gs, filters)) {
        return deconvolution::RunByPhases(
            deconvolution::PlanConvolutionPhases(g, gs.groups, filters), batch,
            deconvolution::WeightLayout::kConvolution, weight.dptr_, data.dptr_,
            param.no_bias ? nullptr : in[2].dptr<DType>(), y.dptr_, req[0],
            [&](index_t size) { return CpuWorkspace<DType>(ctx, size, stream); });
      }
      if (UsesWinograd<xpu, DType>(g, gs, filters, Pass::kForward)) {
        const winograd::Shape shape = winograd::ForwardShape(g, batch, filters);
        const DType* w = weight.dptr_;
        const index_t channels = shape.in_channels, depth_taps = shape.depth_taps;
        const index_t threads = BatchThreads(shape.images * shape.out_depth);
        winograd::Convolve(
            stream, shape, threads, data.dptr_,
            [&](index_t o, index_t i) {  // i: depth tap i / channels of channel i % channels
              return w + ((o * channels + i % channels) * depth_taps + i / channels) * 9;
            },
            false, param.no_bias ? nullptr : in[2].dptr<DType>(), y.dptr_, req[0],
            CpuWorkspace<DType>(ctx, shape.WorkspaceSize(threads), stream));
        return;
      }
    }
    if constexpr (std::is_same_v<xpu, cpu>) {
      if (UsesStridedTiles<DType>(g, gs, filters)) {
        return tile_convolution::ConvolveByTiles(
            g, gs.groups, filters, batch, static_cast<const DType*>(data.dptr_),
            static_cast<const DType*>(weight.dptr_), param.no_bias ? nullptr : in[2].dptr<DType>(),
            req[0], y.dptr_, [&](index_t size) { return CpuWorkspace<DType>(ctx, size, stream); });
      } else if (UsesColumnChunks<xpu, DType>(gs)) {
        return ColumnChunkForward(
            stream, g, gs, data.dptr_, weight, param.no_bias ? nullptr : in[2].dptr<DType>(),
            req[0], y, [&](index_t size) { return CpuWorkspace<DType>(ctx, size, stream); });
      }
    }
    Tensor<xpu, 2, DType> col =
        pointwise ? Tensor<xpu, 2, DType>() : ColumnBuffer<xpu, DType>(ctx, g, stream);
    for (index_t n = 0; n < batch; ++n) {
      if (pointwise) {
        col = Tensor<xpu, 2, DType>(data[n].dptr_, mshadow::Shape2(g.ColRows(), g.OutSize()),
                                    g.OutSize(), stream);
      } else {
        Im2Col(stream, g, data[n].dptr_, col.dptr_);
      }
      Tensor<xpu, 2, DType> yn = y[n];
      // With a bias, its rows go in first and the products are accumulated onto them (gemm
      // beta = 1), as in FullyConnected.
      const bool bias_first = !param.no_bias && req[0] != kAddTo;
      if (bias_first) {
        yn = mshadow::expr::broadcast<0>(in[2].get<xpu, 1, DType>(stream), yn.shape_);
      }
      for (index_t grp = 0; grp < gs.groups; ++grp) {
        auto yg = yn.Slice(grp * gs.filters, (grp + 1) * gs.filters);
        auto wg = weight.Slice(grp * gs.filters, (grp + 1) * gs.filters);
        auto cg = col.Slice(grp * gs.col_rows, (grp + 1) * gs.col_rows);
        Assign(yg, bias_first ? kAddTo : req[0], dot(wg, cg));
      }
      if (!param.no_bias && req[0] == kAddTo) {
        yn += mshadow::expr::broadcast<0>(in[2].get<xpu, 1, DType>(stream), yn.shape_);
      }
    }
  });
}

// Inputs: out_grad, data, weight [, bias]. Outputs: data_grad, weight_grad [, bias_grad].
template <typename xpu>
void ConvolutionBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                                const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                const std::vector<TBlob>& out) {
  const ConvolutionParam& param = GetParam<ConvolutionParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const ConvGeometry g = Geometry(param, in[1].shape_);
  const GroupSizes gs = GroupsOf(param, g);
  const index_t batch = in[1].shape_[0];
  const index_t filters = param.num_filter;
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    auto og = in[0].get_with_shape<xpu, 3, DType>(mshadow::Shape3(batch, filters, g.OutSize()),
                                                  stream);
    auto data = in[1].get_with_shape<xpu, 2, DType>(
        mshadow::Shape2(batch, g.channels * g.InSize()), stream);
    auto weight = in[2].get_with_shape<xpu, 2, DType>(mshadow::Shape2(filters, gs.col_rows),
                                                      stream);
    auto dx = out[0].get_with_shape<xpu, 2, DType>(
        mshadow::Shape2(batch, g.channels * g.InSize()), stream);
    auto dw = out[1].get_with_shape<xpu, 2, DType>(mshadow::Shape2(filters, gs.col_rows),
                                                   stream);
    if constexpr (std::is_same_v<xpu, cpu>) {
      if (depthwise::Serves(g, gs.groups, filters)) {
        depthwise::Backward(
            g, batch, static_cast<const DType*>(og.dptr_), static_cast<const DType*>(data.dptr_),
            static_cast<const DType*>(weight.dptr_), req[0], dx.dptr_, req[1], dw.dptr_,
            param.no_bias ? kNullOp : req[2], param.no_bias ? nullptr : out[2].dptr<DType>());
        return;
      }
    }
    // On the CPU each gradient takes the first way that serves it (depthwise layers above):
    // the data gradient of a small pointwise layer one product per image
    // (UsesPointwiseDataProduct), position lanes onto up to 4 channels per group
    // (position_lanes::ServesDataGradient at stride 1, by phases strided: phase_lanes::Serves),
    // Winograd (UsesWinograd), then for 3-d layers of stride 1 position tiles
    // (tile_convolution::ServesDataGradient), then output phases (UsesPhaseDataGradient); the
    // weight gradient Winograd, tap tiles (ops/tap_gradient.h), then column chunks
    // (ops/column_chunks.h). What none serves (the GPU's im2col path, 1-d and 3-d depthwise
    // layers, strided 3-d layers of many channels) goes through the column matrix image by
    // image.
    const bool winograd_weight_gradient =
        UsesWinograd<xpu, DType>(g, gs, filters, Pass::kWeightGradient);
    bool pointwise_data_gradient = false, lane_data_gradient = false;
    if constexpr (std::is_same_v<xpu, cpu>) {
      pointwise_data_gradient = req[0] != kNullOp && UsesPointwiseDataProduct(g);
      lane_data_gradient = req[0] != kNullOp && !pointwise_data_gradient &&
                           (position_lanes::ServesDataGradient(g, gs.groups) ||
                            phase_lanes::Serves(g, gs.groups));
    }
    const bool winograd_data_gradient =
        !lane_data_gradient && UsesWinograd<xpu, DType>(g, gs, filters, Pass::kDataGradient);
    bool phase_data_gradient = false, tile_data_gradient = false;
    if constexpr (std::is_same_v<xpu, cpu>) {
      tile_data_gradient = !winograd_data_gradient && !pointwise_data_gradient &&
                           !lane_data_gradient &&
                           tile_convolution::ServesDataGradient<DType>(g, g.channels / gs.groups);
      phase_data_gradient = !tile_data_gradient && !pointwise_data_gradient &&
                            !lane_data_gradient && UsesPhaseDataGradient<DType>(g, gs, filters);
    }
    bool tap_weight_gradient = false;
    if constexpr (std::is_same_v<xpu, cpu>) {
      tap_weight_gradient = req[1] != kNullOp && !winograd_weight_gradient &&
                            tap_gradient::Serves<DType>(g, gs.filters);
    }
    const bool column_chunk_weight_gradient = req[1] != kNullOp && !winograd_weight_gradient &&
                                              !tap_weight_gradient &&
                                              UsesColumnChunks<xpu, DType>(gs);
    const bool im2col_weight_gradient = req[1] != kNullOp && !winograd_weight_gradient &&
                                        !tap_weight_gradient && !column_chunk_weight_gradient;
    const bool im2col_data_gradient = req[0] != kNullOp && !winograd_data_gradient &&
                                      !phase_data_gradient && !tile_data_gradient &&
                                      !pointwise_data_gradient && !lane_data_gradient;
    if (im2col_weight_gradient || im2col_data_gradient) {
      Tensor<xpu, 2, DType> col = ColumnBuffer<xpu, DType>(ctx, g, stream);
      for (index_t n = 0; n < batch; ++n) {
        Tensor<xpu, 2, DType> ogn = og[n];
        // Weight gradient: og * col^T, summed over the batch (the first image writes).
        if (im2col_weight_gradient) {
          Im2Col(stream, g, data[n].dptr_, col.dptr_);
          const OpReqType dw_req = n == 0 ? req[1] : kAddTo;
          for (index_t grp = 0; grp < gs.groups; ++grp) {
            Assign(dw.Slice(grp * gs.filters, (grp + 1) * gs.filters), dw_req,
                   dot(ogn.Slice(grp * gs.filters, (grp + 1) * gs.filters),
                       col.Slice(grp * gs.col_rows, (grp + 1) * gs.col_rows).T()));
          }
        }
        // Data gradient: weight^T * og into the column matrix, folded back onto the image.
        if (im2col_data_gradient) {
          for (index_t grp = 0; grp < gs.groups; ++grp) {
            col.Slice(grp * gs.col_rows, (grp + 1) * gs.col_rows) =
                dot(weight.Slice(grp * gs.filters, (grp + 1) * gs.filters).T(),
                    ogn.Slice(grp * gs.filters, (grp + 1) * gs.filters));
          }
          Col2Im(stream, g, col.dptr_, dx[n].dptr_, req[0]);
        }
      }
    }
    if constexpr (std::is_same_v<xpu, cpu>) {
      if (pointwise_data_gradient) {
        // The weight transposed once, so that every image's product reads it by rows.
        Tensor<cpu, 2, DType> wt(CpuWorkspace<DType>(ctx, g.channels * gs.filters, stream),
                                 mshadow::Shape2(g.channels, gs.filters), gs.filters, stream);
        for (index_t grp = 0; grp < gs.groups; ++grp) {
          transpose::Transpose2D<false>(weight[grp * gs.filters].dptr_, weight.stride_,
                                        wt[grp * gs.col_rows].dptr_, wt.stride_, gs.filters,
                                        gs.col_rows);
        }
        // The library's product, an image a thread (as in PointwiseForward).
        ForEachImage(batch, BatchThreads(batch), [&](index_t, index_t n) {
          Tensor<cpu, 2, DType> dxn(dx[n].dptr_, mshadow::Shape2(g.ColRows(), g.OutSize()),
                                    g.OutSize(), stream);
          for (index_t grp = 0; grp < gs.groups; ++grp) {
            Tensor<cpu, 2, DType> to = dxn.Slice(grp * gs.col_rows, (grp + 1) * gs.col_rows);
            Tensor<cpu, 2, DType> w = wt.Slice(grp * gs.col_rows, (grp + 1) * gs.col_rows);
            Tensor<cpu, 2, DType> from = og[n].Slice(grp * gs.filters, (grp + 1) * gs.filters);
            Product(to, req[0], w, false, from);
          }
        });
      }
    }
    if constexpr (std::is_same_v<xpu, cpu>) {
      if (winograd_data_gradient) {
        const winograd::Shape shape = winograd::DataGradientShape(g, batch, filters);
        const DType* w = weight.dptr_;
        const index_t channels = g.channels, depth_taps = shape.depth_taps;
        const index_t threads = BatchThreads(shape.images * shape.out_depth);
        winograd::Convolve(
            stream, shape, threads, og.dptr_,
            [&](index_t c, index_t i) {  // i: depth tap i / filters of filter i % filters, flipped
              const index_t f = i % filters, t = depth_taps - 1 - i / filters;
              return w + ((f * channels + c) * depth_taps + t) * 9;
            },
            true, static_cast<const DType*>(nullptr), dx.dptr_, req[0],
            CpuWorkspace<DType>(ctx, shape.WorkspaceSize(threads), stream));
      }
      if (phase_data_gradient) {
        // The deconvolution of og by the weight: its geometry is this convolution's.
        deconvolution::RunByPhases(
            deconvolution::PlanPhases(g, gs.groups, gs.filters), batch,
            deconvolution::WeightLayout::kDeconvolution, weight.dptr_, og.dptr_,
            static_cast<const DType*>(nullptr), dx.dptr_, req[0],
            [&](index_t size) { return CpuWorkspace<DType>(ctx, size, stream); });
      }
      if (lane_data_gradient) {
        // The deconvolution of og by the weight, without bias.
        const auto space = [&](index_t size) { return CpuWorkspace<DType>(ctx, size, stream); };
        const DType* og_data = og.dptr_;
        const DType* w = weight.dptr_;
        const DType* no_bias = nullptr;
        if (position_lanes::ServesDataGradient(g, gs.groups)) {
          position_lanes::Deconvolve(g, gs.groups, filters, batch, og_data, w, no_bias, req[0],
                                     dx.dptr_, space);
        } else {
          phase_lanes::Deconvolve(g, gs.groups, filters, batch, og_data, w, no_bias, req[0],
                                  dx.dptr_, space);
        }
      }
      if (tile_data_gradient) {
        tile_convolution::DataGradientByTiles(
            g, gs.groups, filters, batch, static_cast<const DType*>(og.dptr_),
            static_cast<const DType*>(weight.dptr_), req[0], dx.dptr_,
            [&](index_t size) { return CpuWorkspace<DType>(ctx, size, stream); });
      }
      if (tap_weight_gradient) {
        const tap_gradient::TapLayer l = tap_gradient::TapLayerOf(g, gs.groups, filters);
        const index_t threads = BatchThreads(batch);
        tap_gradient::WeightGradient(
            l, threads, batch, static_cast<const DType*>(data.dptr_),
            static_cast<const DType*>(og.dptr_), req[1], dw,
            CpuWorkspace<DType>(ctx, tap_gradient::GradientSpace(l, threads), stream));
      }
      if (column_chunk_weight_gradient) {
        const column_chunks::ColumnPlan plan =
            column_chunks::PlanColumns(g, gs.groups, sizeof(DType));
        const index_t threads = BatchThreads(batch);
        column_chunks::WeightGradient(
            stream, plan, gs.filters, threads, batch, static_cast<const DType*>(data.dptr_), og,
            req[1], dw,
            CpuWorkspace<DType>(ctx, column_chunks::WeightGradientSpace(plan, gs.filters, threads),
                                stream),
            [](index_t, index_t, index_t, const Tensor<cpu, 2, DType>&) {});
      }
      if (winograd_weight_gradient) {
        const winograd::Shape shape = winograd::ForwardShape(g, batch, filters);
        winograd::KernelGradient(stream, shape, static_cast<const DType*>(data.dptr_),
                                 static_cast<const DType*>(og.dptr_), dw.dptr_, req[1],
                                 CpuWorkspace<DType>(ctx, shape.GradientWorkspaceSize(), stream));
      }
    }
    if (!param.no_bias) BiasGradient<xpu>(stream, in[0], req[2], out[2]);
  });
}

// Adds FCompute<xpu> to Convolution and _backward_Convolution.
template <typename xpu>
void SetConvolutionCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("Convolution").set_attr<FCompute>(attr_name, FCompute(ConvolutionCompute<xpu>));
  RegisterOp("_backward_Convolution")
      .set_attr<FCompute>(attr_name, FCompute(ConvolutionBackwardCompute<xpu>));
}

}  // namespace convolution
}  // namespace ops

#endif  // OPS_CONVOLUTION_INL_H_
