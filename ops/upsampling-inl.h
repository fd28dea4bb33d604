// ops/upsampling-inl.h: UpSampling and its backward operator, written once for every device,
// with MXNet 1.9.1's semantics. The inputs are NCHW; the output is the first input's height
// and width times `scale`.
// - nearest: input i is repeated s_i = out_h / h_i times along both axes (s_i must be a whole
//   number, the same for both axes). multi_input_mode concat stacks the upsampled inputs'
//   channels; sum adds them (same channels). The gradient of each input element is the sum of
//   the s_i x s_i block it was repeated into (a gather: no atomics).
// - bilinear: two inputs, data (N, C, H, W) and weight (C, 1, k, k), k = 2 * scale - scale % 2;
//   as in MXNet, a depthwise Deconvolution (stride scale, pad ceil((scale - 1) / 2), no bias)
//   by the weight, which the host initializes to the bilinear kernel (or learns).
// upsampling.cc registers the CPU, upsampling.cu adds FCompute<gpu>.
#ifndef OPS_UPSAMPLING_INL_H_
#define OPS_UPSAMPLING_INL_H_

#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/deconvolution-inl.h"
#include "ops/infer_util.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace upsampling {

enum SampleType { kNearest, kBilinear };
enum MultiInputMode { kConcat, kSum };

struct UpSamplingParam : public dmlc::Parameter<UpSamplingParam> {
  int scale;
  int num_filter;
  int sample_type;
  int multi_input_mode;
  int num_args;
  uint64_t workspace;
  DMLC_DECLARE_PARAMETER(UpSamplingParam) {
    DMLC_DECLARE_FIELD(scale).set_lower_bound(1).describe(
        "The first input's height and width are multiplied by this.");
    DMLC_DECLARE_FIELD(num_filter)
        .set_default(0)
        .describe("bilinear: the channels of the data (and of the weight's first axis).");
    DMLC_DECLARE_FIELD(sample_type)
        .add_enum("nearest", kNearest)
        .add_enum("bilinear", kBilinear)
        .describe("nearest (each element repeated), or bilinear (a depthwise deconvolution by "
                  "the weight input).");
    DMLC_DECLARE_FIELD(multi_input_mode)
        .add_enum("concat", kConcat)
        .add_enum("sum", kSum)
        .set_default(kConcat)
        .describe("How several inputs combine: their channels stacked, or summed.");
    DMLC_DECLARE_FIELD(num_args).set_default(1).set_lower_bound(1).describe(
        "nearest: the number of inputs. bilinear: ignored (always data and weight).");
    DMLC_DECLARE_FIELD(workspace).set_default(512).describe(
        "Accepted for MXNet compatibility; unused.");
  }
};

// Input i as upsampled into the output (N, C, OH, OW): its (C_i, h, w) and repetition s, and
// the channel it starts at.
struct Placement {
  index_t channels, height, width, scale, first_channel;
  index_t out_channels, out_height, out_width;

  // Where output element (n, c of this input, h, w) lies.
  MSHADOW_XINLINE index_t OutAt(index_t n, index_t c, index_t h, index_t w) const {
    return ((n * out_channels + first_channel + c) * out_height + h) * out_width + w;
  }
  // Where the s x s output block of input element w of input row (n, c, h) starts.
  MSHADOW_XINLINE index_t BlockOf(index_t row, index_t w) const {
    return OutAt(row / (height * channels), row / height % channels, row % height * scale,
                 w * scale);
  }
};

inline Placement PlacementOf(const TShape& input, const TShape& out, index_t first_channel) {
  return {input[1], input[2], input[3], out[2] / input[2], first_channel, out[1], out[2], out[3]};
}

// Item i of input p's upsampled (N, C_i, OH, OW): the input element it repeats.
struct upsample_nearest {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, OpReqType req, Placement p, const DType* x,
                                  DType* out) {
    const index_t w = i % p.out_width, h = i / p.out_width % p.out_height;
    const index_t c = i / (p.out_width * p.out_height) % p.channels;
    const index_t n = i / (p.out_width * p.out_height * p.channels);
    const DType value = x[((n * p.channels + c) * p.height + h / p.scale) * p.width + w / p.scale];
    AssignReq(out + p.OutAt(n, c, h, w), value, req);
  }
};

// Item i of input p: the sum of the s x s block of the output gradient it was repeated into.
struct upsample_nearest_grad {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, OpReqType req, Placement p, const DType* dy,
                                  DType* dx) {
    const DType* block = dy + p.BlockOf(i / p.width, i % p.width);
    DType sum = 0;
    for (index_t a = 0; a < p.scale; ++a) {
      for (index_t b = 0; b < p.scale; ++b) sum += block[a * p.out_width + b];
    }
    AssignReq(dx + i, sum, req);
  }
};

// CPU item r, a row (n, c, h) of input p: its elements each written `scale` times into the
// `scale` output rows it becomes (contiguous runs, no index division per element).
struct upsample_nearest_row {
  template <typename DType>
  static void Map(index_t row, OpReqType req, Placement p, const DType* x, DType* out) {
    const DType* src = x + row * p.width;
    DType* first = out + p.BlockOf(row, 0);
    for (index_t a = 0; a < p.scale; ++a) {
      DType* dst = first + a * p.out_width;
      for (index_t w = 0; w < p.width; ++w) {
        for (index_t b = 0; b < p.scale; ++b) AssignReq(dst + w * p.scale + b, src[w], req);
      }
    }
  }
};

// CPU item r, a row (n, c, h) of input p: each element's s x s block summed, row by row.
struct upsample_nearest_row_grad {
  template <typename DType>
  static void Map(index_t row, OpReqType req, Placement p, const DType* dy, DType* dx) {
    const DType* first = dy + p.BlockOf(row, 0);
    for (index_t w = 0; w < p.width; ++w) {
      DType sum = 0;
      for (index_t a = 0; a < p.scale; ++a) {
        const DType* block = first + a * p.out_width + w * p.scale;
        for (index_t b = 0; b < p.scale; ++b) sum += block[b];
      }
      AssignReq(dx + row * p.width + w, sum, req);
    }
  }
};

// Where each input goes: concat stacks channels, sum puts every input at channel 0.
inline std::vector<Placement> PlacementsOf(const UpSamplingParam& param,
                                           const std::vector<TShape>& inputs, const TShape& out) {
  std::vector<Placement> placements;
  index_t channel = 0;
  for (const TShape& input : inputs) {
    placements.push_back(PlacementOf(input, out, channel));
    if (param.multi_input_mode == kConcat) channel += input[1];
  }
  return placements;
}

// bilinear's kernel extent for `scale`.
inline index_t BilinearKernel(index_t scale) { return 2 * scale - scale % 2; }

// The Deconvolution that bilinear upsampling is, its parameters set directly (no parsing).
inline deconvolution::DeconvolutionParam BilinearDeconvolution(const UpSamplingParam& param) {
  const index_t k = BilinearKernel(param.scale), s = param.scale;
  const index_t pad = param.scale / 2;  // ceil((scale - 1) / 2)
  deconvolution::DeconvolutionParam d;
  d.kernel = TShape{k, k};
  d.stride = TShape{s, s};
  d.dilate = TShape();
  d.pad = TShape{pad, pad};
  d.adj = TShape();
  d.target_shape = TShape();
  d.num_filter = static_cast<uint32_t>(param.num_filter);
  d.num_group = static_cast<uint32_t>(param.num_filter);
  d.workspace = param.workspace;
  d.no_bias = true;
  d.cudnn_tune = dmlc::optional<int>();
  d.cudnn_off = false;
  d.layout = dmlc::optional<int>();
  return d;
}

template <typename xpu>
void UpSamplingCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const UpSamplingParam& param = GetParam<UpSamplingParam>(attrs);
  if (param.sample_type == kBilinear) {
    deconvolution::Deconvolve<xpu>(BilinearDeconvolution(param), ctx, in, req, out);
    return;
  }
  std::vector<TShape> shapes;
  for (const TBlob& blob : in) shapes.push_back(blob.shape_);
  const std::vector<Placement> placements = PlacementsOf(param, shapes, out[0].shape_);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    for (size_t i = 0; i < in.size(); ++i) {
      const Placement& p = placements[i];
      // sum: the first input writes as req says, the others add to it.
      const OpReqType mode =
          (param.multi_input_mode == kSum && i > 0 && req[0] != kNullOp) ? kAddTo : req[0];
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<upsample_nearest_row, cpu>::LaunchItems(s, out[0].shape_[0] * p.channels * p.height,
                                                       p.scale * p.out_width, mode, p,
                                                       in[i].dptr<DType>(), out[0].dptr<DType>());
      } else {
        Kernel<upsample_nearest, xpu>::Launch(
            s, out[0].shape_[0] * p.channels * p.out_height * p.out_width, mode, p,
            in[i].dptr<DType>(), out[0].dptr<DType>());
      }
    }
  });
}

// Inputs: the output gradient, then the inputs (for their shapes). Outputs: their gradients.
template <typename xpu>
void UpSamplingBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                               const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                               const std::vector<TBlob>& out) {
  const UpSamplingParam& param = GetParam<UpSamplingParam>(attrs);
  if (param.sample_type == kBilinear) {  // inputs: out_grad, data, weight
    deconvolution::DeconvolveBackward<xpu>(BilinearDeconvolution(param), ctx, in, req, out);
    return;
  }
  std::vector<TShape> shapes;
  for (size_t i = 1; i < in.size(); ++i) shapes.push_back(in[i].shape_);
  const std::vector<Placement> placements = PlacementsOf(param, shapes, in[0].shape_);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    for (size_t i = 0; i < out.size(); ++i) {
      const Placement& p = placements[i];
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<upsample_nearest_row_grad, cpu>::LaunchItems(
            s, in[0].shape_[0] * p.channels * p.height, p.scale * p.out_width, req[i], p,
            in[0].dptr<DType>(), out[i].dptr<DType>());
      } else {
        Kernel<upsample_nearest_grad, xpu>::Launch(s, static_cast<index_t>(out[i].Size()), req[i],
                                                   p, in[0].dptr<DType>(), out[i].dptr<DType>());
      }
    }
  });
}

// Adds FCompute<xpu> to UpSampling and its backward operator.
template <typename xpu>
void SetUpSamplingCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("UpSampling").set_attr<FCompute>(attr_name, FCompute(UpSamplingCompute<xpu>));
  RegisterOp("_backward_UpSampling")
      .set_attr<FCompute>(attr_name, FCompute(UpSamplingBackwardCompute<xpu>));
}

}  // namespace upsampling
}  // namespace ops

#endif  // OPS_UPSAMPLING_INL_H_
