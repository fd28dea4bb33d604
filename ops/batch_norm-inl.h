// ops/batch_norm-inl.h: BatchNorm and its backward operator, written once for every device,
// with MXNet 1.9.1's semantics:
// - training (is_train, not use_global_stats): the batch's mean and biased variance per
//   channel; inference: the moving mean and variance;
// - the moving statistics are auxiliary inputs, updated in place by the backward operator
//   (moving = moving * momentum + batch * (1 - momentum)), which is where MXNet updates them;
// - fix_gamma: gamma is read as 1 and its gradient is 0 (MXNet also overwrites the gamma
//   array with ones; here inputs stay read-only);
// - the optional outputs mean and var hold the mean used and 1 / sqrt(var + eps), as MXNet's.
// The data is viewed as (outer, channels, inner) around `axis`. The passes over it are
// ChannelKernels<xpu>: the per-channel sums in one pass, then one elementwise pass.
// _contrib_SyncBatchNorm is the same operator on one device (SyncBatchNormParam).
// batch_norm.cc registers the CPU and inference, batch_norm.cu adds FCompute<gpu>.
#ifndef OPS_BATCH_NORM_INL_H_
#define OPS_BATCH_NORM_INL_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mshadow/extension/broadcast.h"
#include "mshadow/extension/reduceto1d.h"
#include "mshadow/tensor.h"
#include "ops/grad_functors.h"
#include "ops/infer_util.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/temp_space_after.h"
#include "ops/vector_loop.h"

namespace ops {
namespace batch_norm {

using mshadow::expr::broadcast;
using mshadow::expr::F;
using mshadow::expr::sumall_except_dim;

struct BatchNormParam : public dmlc::Parameter<BatchNormParam> {
  double eps;
  float momentum;
  bool fix_gamma;
  bool use_global_stats;
  bool output_mean_var;
  int axis;
  bool cudnn_off;
  dmlc::optional<float> min_calib_range;
  dmlc::optional<float> max_calib_range;
  DMLC_DECLARE_PARAMETER(BatchNormParam) {
    DMLC_DECLARE_FIELD(eps).set_default(1e-3).set_lower_bound(0).describe(
        "Added to the variance before its square root.");
    DMLC_DECLARE_FIELD(momentum).set_default(0.9f).describe(
        "Weight of the old moving statistics in their update.");
    DMLC_DECLARE_FIELD(fix_gamma).set_default(true).describe(
        "Read gamma as 1 (and give it a zero gradient).");
    DMLC_DECLARE_FIELD(use_global_stats).set_default(false).describe(
        "Normalize with the moving statistics in training too (and leave them unchanged).");
    DMLC_DECLARE_FIELD(output_mean_var).set_default(false).describe(
        "Also output the mean and 1 / sqrt(var + eps) used.");
    DMLC_DECLARE_FIELD(axis).set_default(1).describe("The channel axis (negative: from the end).");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false).describe(
        "Accepted for MXNet compatibility; ignored.");
    DMLC_DECLARE_FIELD(min_calib_range).set_default(dmlc::optional<float>()).describe(
        "Accepted for MXNet compatibility (quantization); ignored.");
    DMLC_DECLARE_FIELD(max_calib_range).set_default(dmlc::optional<float>()).describe(
        "Accepted for MXNet compatibility (quantization); ignored.");
  }
};

// _contrib_SyncBatchNorm: BatchNorm over axis 1 whose batch statistics MXNet gathers from the
// `ndev` devices whose calls share `key`. On one device MXNet 1.9.1 gives BatchNorm's outputs,
// gradients and moving statistics, and so does this library (its parser reads these fields
// as a BatchNormParam). Gathering over devices is not built here: training on the batch's
// statistics with ndev > 1 is an error; inference (the moving statistics) runs for any ndev.
struct SyncBatchNormParam : public dmlc::Parameter<SyncBatchNormParam> {
  float eps;
  float momentum;
  bool fix_gamma;
  bool use_global_stats;
  bool output_mean_var;
  int ndev;
  std::string key;
  DMLC_DECLARE_PARAMETER(SyncBatchNormParam) {
    DMLC_DECLARE_FIELD(eps).set_default(1e-3f).set_lower_bound(0.0f).describe(
        "Added to the variance before its square root.");
    DMLC_DECLARE_FIELD(momentum).set_default(0.9f).describe(
        "Weight of the old moving statistics in their update.");
    DMLC_DECLARE_FIELD(fix_gamma).set_default(true).describe(
        "Read gamma as 1 (and give it a zero gradient).");
    DMLC_DECLARE_FIELD(use_global_stats)
        .set_default(false)
        .describe(
            "Normalize with the moving statistics in training too (and leave them unchanged).");
    DMLC_DECLARE_FIELD(output_mean_var)
        .set_default(false)
        .describe("Also output the mean and 1 / sqrt(var + eps) used.");
    DMLC_DECLARE_FIELD(ndev).set_default(1).set_lower_bound(1).describe(
        "Devices whose batches share the statistics (training needs 1 here).");
    DMLC_DECLARE_FIELD(key).describe("Names the calls whose statistics MXNet gathers.");
  }
};

// Parses _contrib_SyncBatchNorm's fields into the BatchNormParam its kernels read.
inline void SyncBatchNormParser(NodeAttrs* attrs) {
  SyncBatchNormParam sync;
  sync.Init(attrs->dict);
  BatchNormParam param;
  param.Init(std::map<std::string, std::string>{});
  param.eps = sync.eps;  // a float in MXNet's SyncBatchNorm
  param.momentum = sync.momentum;
  param.fix_gamma = sync.fix_gamma;
  param.use_global_stats = sync.use_global_stats;
  param.output_mean_var = sync.output_mean_var;
  attrs->parsed = std::move(param);
}

inline uint32_t NumOutputs(const NodeAttrs& attrs) {
  return GetParam<BatchNormParam>(attrs).output_mean_var ? 3 : 1;
}

// The data as (outer, channels, inner) around the channel axis.
inline mshadow::Shape<3> ChannelView(const TShape& data, int axis_param) {
  const int nd = static_cast<int>(data.ndim());
  const int axis = NormalizeAxis(axis_param, nd, "axis");
  return mshadow::Shape3(data.ProdShape(0, axis), data[axis], data.ProdShape(axis + 1, nd));
}

// Per channel c: scale = gamma / sqrt(var + eps) (gamma 1 with fix_gamma), shift = beta -
// mean * scale, and invstd = 1 / sqrt(var + eps).
struct NormalizeCoefficients {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t c, const DType* gamma, const DType* beta,
                                  const DType* mean, const DType* var, DType eps, bool fix_gamma,
                                  DType* scale, DType* shift, DType* invstd) {
    const DType inv = DType(1) / sqrt(var[c] + eps);
    invstd[c] = inv;
    scale[c] = (fix_gamma ? DType(1) : gamma[c]) * inv;
    shift[c] = beta[c] - mean[c] * scale[c];
  }
};

// Per channel c, from the sums of dy and dy * (x - mean), the data gradient as
// dx = dy * a - x * k + b (see BatchNormBackwardCompute), gamma's and beta's gradients, and
// (training) the moving statistics' update.
struct GradientCoefficients {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t c, const DType* gamma, const DType* mean,
                                  const DType* invstd, const DType* sum_dy,
                                  const DType* sum_dy_xc, DType count, bool fix_gamma,
                                  bool batch_stats, DType* a, DType* k, DType* b,
                                  DType* gamma_grad, DType* beta_grad) {
    const DType g = fix_gamma ? DType(1) : gamma[c];
    a[c] = g * invstd[c];
    // With batch statistics, mean and variance depend on x too:
    // dx = g * invstd * (dy - sum_dy / m - (x - mean) * invstd^2 * sum_dy_xc / m).
    k[c] = batch_stats ? a[c] * invstd[c] * invstd[c] * sum_dy_xc[c] / count : DType(0);
    b[c] = batch_stats ? k[c] * mean[c] - a[c] * sum_dy[c] / count : DType(0);
    gamma_grad[c] = fix_gamma ? DType(0) : sum_dy_xc[c] * invstd[c];
    beta_grad[c] = sum_dy[c];
  }
};

// moving = moving * momentum + batch * (1 - momentum), for the mean and the variance.
struct UpdateMovingStats {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t c, const DType* mean, const DType* var,
                                  DType momentum, DType* moving_mean, DType* moving_var) {
    moving_mean[c] = moving_mean[c] * momentum + mean[c] * (DType(1) - momentum);
    moving_var[c] = moving_var[c] * momentum + var[c] * (DType(1) - momentum);
  }
};

// CPU item: channel c's sums, in one pass over the data (and the output gradient), taken
// around a shift s (the channel's first element) so that the one-pass variance does not
// cancel: sums[0] = sum(x - s), sums[1] = sum((x - s)^2) and, kWithGrad, sums[2] = sum(dy),
// sums[3] = sum(dy * (x - s)). Each row of `sums` has `channels` entries.
template <bool kWithGrad>
struct ChannelSums {
  template <typename DType>
  static void Map(index_t c, mshadow::Shape<3> shape, const DType* x, const DType* dy,
                  DType* sums) {
    using P = vec::Full<DType>;
    constexpr index_t kLanes = P::kSize;
    const index_t channels = shape[1], inner = shape[2];
    const DType shift = x[c * inner];
    const P shift_p = P::Fill(shift);
    P acc[4] = {P::Fill(0), P::Fill(0), P::Fill(0), P::Fill(0)};
    DType tail[4] = {0, 0, 0, 0};
    for (index_t o = 0; o < shape[0]; ++o) {
      const index_t run = (o * channels + c) * inner;
      index_t i = 0;
      for (; i + kLanes <= inner; i += kLanes) {
        const P xc = P::LoadUnAligned(x + run + i) - shift_p;
        acc[0] = acc[0] + xc;
        acc[1] = acc[1] + xc * xc;
        if constexpr (kWithGrad) {
          const P g = P::LoadUnAligned(dy + run + i);
          acc[2] = acc[2] + g;
          acc[3] = acc[3] + g * xc;
        }
      }
      for (; i < inner; ++i) {
        const DType xc = x[run + i] - shift;
        tail[0] += xc;
        tail[1] += xc * xc;
        if constexpr (kWithGrad) {
          tail[2] += dy[run + i];
          tail[3] += dy[run + i] * xc;
        }
      }
    }
    for (int k = 0; k < (kWithGrad ? 4 : 2); ++k) sums[k * channels + c] = acc[k].Sum() + tail[k];
    sums[4 * channels + c] = shift;
  }
};

// Per channel c, from ChannelSums' rows: the mean, the biased variance and (kWithGrad) the
// sum of dy * (x - mean).
template <bool kWithGrad>
struct MomentsFromSums {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t c, index_t channels, DType count, const DType* sums,
                                  DType* mean, DType* var, DType* sum_dy, DType* sum_dy_xc) {
    const DType shifted_mean = sums[c] / count;
    mean[c] = sums[4 * channels + c] + shifted_mean;
    const DType v = sums[channels + c] / count - shifted_mean * shifted_mean;
    var[c] = v > DType(0) ? v : DType(0);
    if (kWithGrad) {
      sum_dy[c] = sums[2 * channels + c];
      sum_dy_xc[c] = sums[3 * channels + c] - shifted_mean * sums[2 * channels + c];
    }
  }
};

// The passes over the data, per device. ChannelKernels<xpu> has
// - MomentRows(shape): the rows of `channels` scratch entries Moments needs;
// - Moments(x, dy, scratch, mean, var, sum_dy, sum_dy_xc): the batch's per-channel mean and
//   biased variance and, with dy (else nullptr), the sums of dy and of dy * (x - mean);
// - Affine(req, x, scale, shift, y): y = x * scale[c] + shift[c];
// - DataGradient(req, dy, x, a, k, b, dx): dx = dy * a[c] - x * k[c] + b[c].
// The CPU's are below; the GPU's (batch_norm.cu) are kernels of their own, since the generic
// expressions there find each element's channel by 64-bit divisions, which bound them.
template <typename xpu>
struct ChannelKernels;

template <>
struct ChannelKernels<cpu> {
  static index_t MomentRows(const mshadow::Shape<3>&) { return 5; }  // ChannelSums' rows

  // One fused pass (ChannelSums) on the threads.
  template <typename DType>
  static void Moments(Tensor<cpu, 3, DType> x, const DType* dy, Tensor<cpu, 2, DType> scratch,
                      DType* mean, DType* var, DType* sum_dy, DType* sum_dy_xc) {
    mshadow::Stream<cpu>* stream = x.stream_;
    const index_t channels = x.shape_[1];
    const DType count = DType(x.shape_[0] * x.shape_[2]);
    if (dy != nullptr) {
      Kernel<ChannelSums<true>, cpu>::LaunchItems(stream, channels, 2 * count, x.shape_, x.dptr_,
                                                  dy, scratch.dptr_);
      Kernel<MomentsFromSums<true>, cpu>::Launch(stream, channels, channels, count, scratch.dptr_,
                                                 mean, var, sum_dy, sum_dy_xc);
    } else {
      Kernel<ChannelSums<false>, cpu>::LaunchItems(stream, channels, count, x.shape_, x.dptr_,
                                                   x.dptr_, scratch.dptr_);
      Kernel<MomentsFromSums<false>, cpu>::Launch(stream, channels, channels, count, scratch.dptr_,
                                                  mean, var, sum_dy, sum_dy_xc);
    }
  }

  template <typename DType>
  static void Affine(OpReqType req, Tensor<cpu, 3, DType> x, Tensor<cpu, 1, DType> scale,
                     Tensor<cpu, 1, DType> shift, Tensor<cpu, 3, DType> y) {
    Assign(y, req, x * broadcast<1>(scale, x.shape_) + broadcast<1>(shift, x.shape_));
  }

  template <typename DType>
  static void DataGradient(OpReqType req, Tensor<cpu, 3, DType> dy, Tensor<cpu, 3, DType> x,
                           Tensor<cpu, 1, DType> a, Tensor<cpu, 1, DType> k,
                           Tensor<cpu, 1, DType> b, Tensor<cpu, 3, DType> dx) {
    Assign(
        dx, req,
        dy * broadcast<1>(a, x.shape_) - x * broadcast<1>(k, x.shape_) + broadcast<1>(b, x.shape_));
  }
};

// Whether this call normalizes with the batch's statistics.
// The rows of channels of BatchNorm's scratch: forward (mean, var, scale, shift, invstd) and
// backward (those, sum_dy, sum_dy_xc, a, k, b, gamma and beta gradients), then Moments' rows.
constexpr index_t kForwardScratchRows = 5, kBackwardScratchRows = 12;
template <typename xpu>
index_t ScratchRows(index_t own_rows, const mshadow::Shape<3>& shape) {
  return own_rows + ChannelKernels<xpu>::MomentRows(shape);
}

// A data-sized array at the start of the call's temporary space, and a context for BatchNorm's
// compute whose temporary space is the rest: its scratch of ScratchRows(own_rows, ...) rows.
template <typename xpu, typename DType>
class DataSizedScratch {
 public:
  DataSizedScratch(const OpContext& ctx, const TBlob& data, int axis, index_t own_rows)
      : shape_(data.shape_), inner_(ctx) {
    const mshadow::Shape<3> view = ChannelView(data.shape_, axis);
    const size_t bytes = (data.Size() * sizeof(DType) + 63) / 64 * 64;
    const size_t reserve =
        static_cast<size_t>(ScratchRows<xpu>(own_rows, view)) * view[1] * sizeof(DType);
    space_ = std::make_unique<TempSpaceAfter>(ctx.requested[0].space, bytes, reserve);
    inner_.requested[0].space = space_.get();
  }
  TBlob array() const {
    return TBlob(reinterpret_cast<DType*>(space_->own()), shape_, xpu::kDevMask);
  }
  const OpContext& inner() const { return inner_; }

 private:
  TShape shape_;
  OpContext inner_;
  std::unique_ptr<TempSpaceAfter> space_;
};

inline bool UsesBatchStats(const BatchNormParam& param, const OpContext& ctx) {
  return ctx.is_train && !param.use_global_stats;
}

// Inputs: data, gamma, beta, moving_mean, moving_var. Outputs: out [, mean, var].
template <typename xpu>
void BatchNormCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const BatchNormParam& param = GetParam<BatchNormParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const mshadow::Shape<3> shape = ChannelView(in[0].shape_, param.axis);
  const index_t channels = shape[1];
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    auto x = in[0].get_with_shape<xpu, 3, DType>(shape, stream);
    // Scratch: mean, var, scale, shift, invstd, then the rows of Moments.
    const index_t rows = ScratchRows<xpu>(kForwardScratchRows, shape);
    auto scratch =
        ctx.requested[0].get_space_typed<xpu, 2, DType>(mshadow::Shape2(rows, channels), stream);
    Tensor<xpu, 1, DType> mean = scratch[0], var = scratch[1];
    if (UsesBatchStats(param, ctx)) {
      // No output gradient: the last two (gradient sum) arguments are not written.
      DType* const unused = nullptr;
      ChannelKernels<xpu>::Moments(x, static_cast<const DType*>(nullptr), scratch.Slice(5, rows),
                                   mean.dptr_, var.dptr_, unused, unused);
    } else {
      mean = F<mshadow::op::identity>(in[3].get<xpu, 1, DType>(stream));
      var = F<mshadow::op::identity>(in[4].get<xpu, 1, DType>(stream));
    }
    Kernel<NormalizeCoefficients, xpu>::Launch(
        stream, channels, in[1].dptr<DType>(), in[2].dptr<DType>(), mean.dptr_, var.dptr_,
        static_cast<DType>(param.eps), param.fix_gamma, scratch[2].dptr_, scratch[3].dptr_,
        scratch[4].dptr_);
    ChannelKernels<xpu>::Affine(req[0], x, scratch[2], scratch[3],
                                out[0].get_with_shape<xpu, 3, DType>(shape, stream));
    if (param.output_mean_var) {
      Assign(out[1].get<xpu, 1, DType>(stream), req[1], F<mshadow::op::identity>(mean));
      Assign(out[2].get<xpu, 1, DType>(stream), req[2], F<mshadow::op::identity>(scratch[4]));
    }
  });
}

// Inputs: the gradients of the outputs (1 or 3; those of mean and var are ignored, as in
// MXNet), then data, gamma, beta, moving_mean, moving_var. Outputs: the gradients of data,
// gamma, beta, and zeros for the moving statistics. Training also updates the moving
// statistics in place.
template <typename xpu>
void BatchNormBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const BatchNormParam& param = GetParam<BatchNormParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const size_t first_input = NumOutputs(attrs);
  const TBlob& data = in[first_input];
  const TBlob& gamma = in[first_input + 1];
  const TBlob& beta = in[first_input + 2];
  const TBlob& moving_mean = in[first_input + 3];
  const TBlob& moving_var = in[first_input + 4];
  const mshadow::Shape<3> shape = ChannelView(data.shape_, param.axis);
  const index_t channels = shape[1];
  const bool batch_stats = UsesBatchStats(param, ctx);
  MSHADOW_SGL_DBL_TYPE_SWITCH(data.type_flag_, DType, {
    auto x = data.get_with_shape<xpu, 3, DType>(shape, stream);
    auto dy = in[0].get_with_shape<xpu, 3, DType>(shape, stream);
    // Scratch: mean, var, scale, shift, invstd, sum_dy, sum_dy_xc, a, k, b, gamma and beta
    // gradients, then the rows of Moments.
    const index_t rows = ScratchRows<xpu>(kBackwardScratchRows, shape);
    auto scratch =
        ctx.requested[0].get_space_typed<xpu, 2, DType>(mshadow::Shape2(rows, channels), stream);
    Tensor<xpu, 1, DType> mean = scratch[0], var = scratch[1], invstd = scratch[4];
    if (batch_stats) {
      ChannelKernels<xpu>::Moments(x, dy.dptr_, scratch.Slice(12, rows), mean.dptr_, var.dptr_,
                                   scratch[5].dptr_, scratch[6].dptr_);
    } else {
      mean = F<mshadow::op::identity>(moving_mean.get<xpu, 1, DType>(stream));
      var = F<mshadow::op::identity>(moving_var.get<xpu, 1, DType>(stream));
      scratch[5] = sumall_except_dim<1>(dy);
      scratch[6] = sumall_except_dim<1>(dy * (x - broadcast<1>(mean, shape)));
    }
    Kernel<NormalizeCoefficients, xpu>::Launch(
        stream, channels, gamma.dptr<DType>(), beta.dptr<DType>(), mean.dptr_,
        var.dptr_, static_cast<DType>(param.eps), param.fix_gamma, scratch[2].dptr_,
        scratch[3].dptr_, invstd.dptr_);
    Kernel<GradientCoefficients, xpu>::Launch(
        stream, channels, gamma.dptr<DType>(), mean.dptr_, invstd.dptr_, scratch[5].dptr_,
        scratch[6].dptr_, static_cast<DType>(shape[0] * shape[2]), param.fix_gamma, batch_stats,
        scratch[7].dptr_, scratch[8].dptr_, scratch[9].dptr_, scratch[10].dptr_,
        scratch[11].dptr_);
    ChannelKernels<xpu>::DataGradient(req[0], dy, x, scratch[7], scratch[8], scratch[9],
                                      out[0].get_with_shape<xpu, 3, DType>(shape, stream));
    Assign(out[1].get<xpu, 1, DType>(stream), req[1], F<mshadow::op::identity>(scratch[10]));
    Assign(out[2].get<xpu, 1, DType>(stream), req[2], F<mshadow::op::identity>(scratch[11]));
    for (int i = 3; i < 5; ++i) {  // the moving statistics have no gradient
      if (req[i] == kWriteTo || req[i] == kWriteInplace) out[i].get<xpu, 1, DType>(stream) = DType(0);
    }
    if (batch_stats) {
      Kernel<UpdateMovingStats, xpu>::Launch(stream, channels, mean.dptr_, var.dptr_,
                                             static_cast<DType>(param.momentum),
                                             moving_mean.dptr<DType>(), moving_var.dptr<DType>());
    }
  });
}

// A _contrib_SyncBatchNorm call (or its backward) that would use the batch's statistics with
// ndev > 1 is refused: the other devices' sums are not gathered here, and this device's alone
// would give other values than MXNet's.
inline void CheckStatisticsOnOneDevice(const NodeAttrs& attrs, const OpContext& ctx) {
  // ndev is parsed again only where it was given (its default is 1).
  if (attrs.dict.count("ndev") == 0 || !UsesBatchStats(GetParam<BatchNormParam>(attrs), ctx)) {
    return;
  }
  SyncBatchNormParam sync;
  sync.Init(attrs.dict);
  if (sync.ndev != 1) {
    throw dmlc::Error("_contrib_SyncBatchNorm: ndev " + std::to_string(sync.ndev) +
                      " asks for batch statistics gathered over " + std::to_string(sync.ndev) +
                      " devices, which this library does not do; train with ndev=1, or run "
                      "inference (not training, or use_global_stats=True) with any ndev");
  }
}

// Fn (BatchNorm's forward or backward compute) after CheckStatisticsOnOneDevice.
template <void (*Fn)(const NodeAttrs&, const OpContext&, const std::vector<TBlob>&,
                     const std::vector<OpReqType>&, const std::vector<TBlob>&)>
void SyncBatchNormCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  CheckStatisticsOnOneDevice(attrs, ctx);
  Fn(attrs, ctx, in, req, out);
}

// _contrib_BatchNormWithReLU: relu(BatchNorm(data)), which MXNet fuses in oneDNN. Its outputs
// are BatchNorm's, the first through relu; its backward operator also reads the outputs.

// Inputs and outputs as BatchNorm's. Under kAddTo, BatchNorm writes a temporary array first,
// and relu of it is added to the output.
template <typename xpu>
void BatchNormWithReluCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const mshadow::Shape<1> flat = mshadow::Shape1(in[0].Size());
    if (req[0] != kAddTo) {
      BatchNormCompute<xpu>(attrs, ctx, in, req, out);
      if (req[0] == kNullOp) return;
      auto y = out[0].get_with_shape<xpu, 1, DType>(flat, stream);
      y = F<mshadow::op::relu>(y);
      return;
    }
    const DataSizedScratch<xpu, DType> scratch(ctx, in[0], GetParam<BatchNormParam>(attrs).axis,
                                               kForwardScratchRows);
    std::vector<OpReqType> bn_req = req;
    bn_req[0] = kWriteTo;
    std::vector<TBlob> bn_out = out;
    bn_out[0] = scratch.array();
    BatchNormCompute<xpu>(attrs, scratch.inner(), in, bn_req, bn_out);
    out[0].get_with_shape<xpu, 1, DType>(flat, stream) +=
        F<mshadow::op::relu>(bn_out[0].get_with_shape<xpu, 1, DType>(flat, stream));
  });
}

// Inputs: the output gradients (1 or 3), data, gamma, beta, moving_mean, moving_var, then the
// outputs (1 or 3). BatchNorm's backward gets the first output gradient where the first output
// is positive and zero elsewhere.
template <typename xpu>
void BatchNormWithReluBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                                      const std::vector<TBlob>& in,
                                      const std::vector<OpReqType>& req,
                                      const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const size_t outputs = NumOutputs(attrs);
  const TBlob& data = in[outputs];
  const TBlob& y = in[outputs + 5];
  MSHADOW_SGL_DBL_TYPE_SWITCH(data.type_flag_, DType, {
    const mshadow::Shape<1> flat = mshadow::Shape1(data.Size());
    const DataSizedScratch<xpu, DType> scratch(ctx, data, GetParam<BatchNormParam>(attrs).axis,
                                               kBackwardScratchRows);
    std::vector<TBlob> bn_in(in.begin(), in.begin() + outputs + 5);
    bn_in[0] = scratch.array();
    bn_in[0].get_with_shape<xpu, 1, DType>(flat, stream) =
        in[0].get_with_shape<xpu, 1, DType>(flat, stream) *
        F<fn::relu_grad>(y.get_with_shape<xpu, 1, DType>(flat, stream));
    BatchNormBackwardCompute<xpu>(attrs, scratch.inner(), bn_in, req, out);
  });
}

// Adds FCompute<xpu> to BatchNorm, _contrib_SyncBatchNorm, _contrib_BatchNormWithReLU and their
// backward operators.
template <typename xpu>
void SetBatchNormCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("BatchNorm").set_attr<FCompute>(attr_name, FCompute(BatchNormCompute<xpu>));
  RegisterOp("_backward_BatchNorm")
      .set_attr<FCompute>(attr_name, FCompute(BatchNormBackwardCompute<xpu>));
  RegisterOp("_contrib_SyncBatchNorm")
      .set_attr<FCompute>(attr_name, FCompute(SyncBatchNormCompute<BatchNormCompute<xpu>>));
  RegisterOp("_backward__contrib_SyncBatchNorm")
      .set_attr<FCompute>(attr_name, FCompute(SyncBatchNormCompute<BatchNormBackwardCompute<xpu>>));
  RegisterOp("_contrib_BatchNormWithReLU")
      .set_attr<FCompute>(attr_name, FCompute(BatchNormWithReluCompute<xpu>));
  RegisterOp("_backward_contrib_BatchNormWithReLU")
      .set_attr<FCompute>(attr_name, FCompute(BatchNormWithReluBackwardCompute<xpu>));
}

}  // namespace batch_norm
}  // namespace ops

#endif  // OPS_BATCH_NORM_INL_H_
