// ops/softmax_output-inl.h: SoftmaxOutput, MXNet's softmax layer with a built-in cross
// entropy gradient, written once for every device. The forward pass is the registered softmax
// operator's compute function for the device; the backward pass ignores the output gradient
// (as MXNet's) and writes (softmax - target) * grad_scale / normalization, where the target is
// the (optionally smoothed) one-hot label and ignored labels get no gradient.
// softmax_output.cc registers the CPU, softmax_output.cu adds FCompute<gpu>.
#ifndef OPS_SOFTMAX_OUTPUT_INL_H_
#define OPS_SOFTMAX_OUTPUT_INL_H_

#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace softmax_output {

enum Normalization { kNull = 0, kBatch = 1, kValid = 2 };

struct SoftmaxOutputParam : public dmlc::Parameter<SoftmaxOutputParam> {
  float grad_scale;
  float ignore_label;
  bool multi_output;
  bool use_ignore;
  bool preserve_shape;
  int normalization;
  bool out_grad;
  float smooth_alpha;
  DMLC_DECLARE_PARAMETER(SoftmaxOutputParam) {
    DMLC_DECLARE_FIELD(grad_scale).set_default(1.0f).describe("Scales the gradient.");
    DMLC_DECLARE_FIELD(ignore_label).set_default(-1.0f).describe(
        "The label whose rows get no gradient (with use_ignore).");
    DMLC_DECLARE_FIELD(multi_output).set_default(false).describe(
        "Softmax over axis 1 of (n, k, x1, ..., xd) with labels (n, x1, ..., xd).");
    DMLC_DECLARE_FIELD(use_ignore).set_default(false).describe("Whether ignore_label applies.");
    DMLC_DECLARE_FIELD(preserve_shape).set_default(false).describe(
        "Softmax over the last axis, with labels shaped like the data without it.");
    DMLC_DECLARE_FIELD(normalization)
        .add_enum("null", kNull)
        .add_enum("batch", kBatch)
        .add_enum("valid", kValid)
        .set_default(kNull)
        .describe("Divides the gradient by: null 1 (multi_output: the positions per example), "
                  "batch the batch size (multi_output: times the positions), valid the number "
                  "of labels not ignored.");
    DMLC_DECLARE_FIELD(out_grad).set_default(false).describe(
        "Whether to multiply the gradient by the output gradient.");
    DMLC_DECLARE_FIELD(smooth_alpha).set_default(0.0f).set_range(0.0f, 1.0f).describe(
        "Label smoothing: the target is 1 - alpha at the label and alpha / (k - 1) elsewhere.");
  }
};

// The data as (outer, classes, inner), the classes axis in the middle, and the number of
// labels (outer * inner).
struct ClassView {
  index_t outer, classes, inner;
};

inline ClassView ViewOf(const SoftmaxOutputParam& param, const TShape& data) {
  const int nd = static_cast<int>(data.ndim());
  if (nd < 2) {
    std::ostringstream os;
    os << "SoftmaxOutput takes data (batch, classes, ...) of rank at least 2 but the data is "
       << data;
    throw dmlc::Error(os.str());
  }
  if (param.multi_output) return {data[0], data[1], data.ProdShape(2, nd)};
  if (param.preserve_shape || nd <= 2) {
    return {data.ProdShape(0, nd - 1), data[nd - 1], 1};
  }
  std::ostringstream os;
  os << "SoftmaxOutput on data " << data << " of rank above 2 needs multi_output (classes on "
     << "axis 1) or preserve_shape (classes on the last axis)";
  throw dmlc::Error(os.str());
}

// The softmax axis of the forward pass.
inline int SoftmaxAxis(const SoftmaxOutputParam& param) { return param.multi_output ? 1 : -1; }

// The gradient of class k's probability p under label l: scale * (p - target) (the target
// label smoothing's on value for the label's class, off for the others), times the output
// gradient `head` (1 without out_grad); 0 for an ignored label, whatever the head.
template <typename DType>
MSHADOW_XINLINE DType GradientOf(DType p, index_t k, DType l, bool ignored, DType on, DType off,
                                 DType scale, DType head) {
  return ignored ? DType(0) : (p - (DType(k) == l ? on : off)) * scale * head;
}

// Label smoothing's target for the classes other than the label's.
template <typename DType>
MSHADOW_XINLINE DType SmoothedOff(ClassView v, DType smooth_alpha) {
  return v.classes > 1 ? smooth_alpha / DType(v.classes - 1) : DType(0);
}

// Gradient element i of (outer, classes, inner): GradientOf its probability (head: the output
// gradient with out_grad, else null). `scale` is a device pointer so that the valid-label
// count never leaves the device.
template <int kReq>
struct SoftmaxOutputGradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, ClassView v, const DType* prob, const DType* label,
                                  const DType* head, const DType* scale, DType smooth_alpha,
                                  bool use_ignore, DType ignore_label, DType* grad) {
    const index_t inner = i % v.inner, k = i / v.inner % v.classes, o = i / (v.inner * v.classes);
    const DType l = label[o * v.inner + inner];
    AssignReq<kReq>(grad + i, GradientOf(prob[i], k, l, use_ignore && l == ignore_label,
                                         DType(1) - smooth_alpha, SmoothedOff(v, smooth_alpha),
                                         *scale, head == nullptr ? DType(1) : head[i]));
  }
};

// CPU item: the gradient of outer row o (classes x inner elements), as SoftmaxOutputGradient
// writes it element by element, with no division per element. With one label a row (inner
// 1, the usual classifier), the label's class is written apart, so that the loops over the
// other classes have no compare in them and vectorize (with one, they had run at 0.3-0.4 of
// MXNet's speed); CheckLabels has made the label an index in the row.
template <int kReq>
struct SoftmaxOutputGradientRow {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t o, ClassView v, const DType* prob, const DType* label,
                                  const DType* head, const DType* scale, DType smooth_alpha,
                                  bool use_ignore, DType ignore_label, DType* grad) {
    const DType s = *scale, on = DType(1) - smooth_alpha, off = SmoothedOff(v, smooth_alpha);
    const index_t row = v.classes * v.inner;
    const DType* p = prob + o * row;
    const DType* h = head == nullptr ? nullptr : head + o * row;
    DType* g = grad + o * row;
    if (v.inner == 1) {
      const DType l = label[o];
      if (use_ignore && l == ignore_label) {
        for (index_t k = 0; k < v.classes; ++k) AssignReq<kReq>(g + k, DType(0));
        return;
      }
      const index_t labelled = static_cast<index_t>(l);
      const auto others = [&](index_t begin, index_t end) {
        if (h == nullptr) {
          OPS_SIMD_LOOP
          for (index_t k = begin; k < end; ++k) AssignReq<kReq>(g + k, (p[k] - off) * s);
        } else {
          OPS_SIMD_LOOP
          for (index_t k = begin; k < end; ++k) AssignReq<kReq>(g + k, (p[k] - off) * s * h[k]);
        }
      };
      others(0, labelled);
      AssignReq<kReq>(g + labelled,
                      (p[labelled] - on) * s * (h == nullptr ? DType(1) : h[labelled]));
      others(labelled + 1, v.classes);
      return;
    }
    for (index_t j = 0; j < v.inner; ++j) {
      const DType l = label[o * v.inner + j];
      const bool ignored = use_ignore && l == ignore_label;
      for (index_t k = 0; k < v.classes; ++k) {
        const index_t i = k * v.inner + j;
        AssignReq<kReq>(
            g + i, GradientOf(p[i], k, l, ignored, on, off, s, h == nullptr ? DType(1) : h[i]));
      }
    }
  }
};

// scale[0] = grad_scale / the number of labels that are not ignored (at least 1).
struct ValidScale {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t, index_t labels, const DType* label, DType ignore_label,
                                  bool use_ignore, DType grad_scale, DType* scale) {
    index_t valid = 0;
    for (index_t j = 0; j < labels; ++j) valid += !(use_ignore && label[j] == ignore_label);
    scale[0] = grad_scale / DType(valid > 0 ? valid : 1);
  }
};

// Every label a class index in [0, classes) or the ignored label; a dmlc::Error naming the
// first that is not. Host memory only.
template <typename DType>
void CheckLabels(const SoftmaxOutputParam& param, const DType* label, index_t labels,
                 index_t classes) {
  for (index_t j = 0; j < labels; ++j) {
    const DType l = label[j];
    if (param.use_ignore && l == static_cast<DType>(param.ignore_label)) continue;
    if (!(l >= 0 && l < static_cast<DType>(classes)) ||
        static_cast<DType>(static_cast<index_t>(l)) != l) {
      std::ostringstream os;
      os << "label " << l << " at position " << j << " is not a class index in [0, " << classes
         << ")" << (param.use_ignore ? " nor the ignore_label" : "");
      throw dmlc::Error(os.str());
    }
  }
}

template <typename xpu>
void SoftmaxOutputCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  const SoftmaxOutputParam& param = GetParam<SoftmaxOutputParam>(attrs);
  static const Op* softmax = Op::Get("softmax");
  const NodeAttrs softmax_attrs =
      ParseAttrs(softmax, {{"axis", std::to_string(SoftmaxAxis(param))}});
  (*softmax->compute<xpu>())(softmax_attrs, ctx, {in[0]}, {req[0]}, {out[0]});
}

// Inputs: out_grad, data, label, out. Outputs: data_grad, label_grad (zero).
template <typename xpu>
void SoftmaxOutputBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                                  const std::vector<TBlob>& in,
                                  const std::vector<OpReqType>& req,
                                  const std::vector<TBlob>& out) {
  const SoftmaxOutputParam& param = GetParam<SoftmaxOutputParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const ClassView v = ViewOf(param, in[1].shape_);
  const index_t labels = v.outer * v.inner;
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[1].type_flag_, DType, {
    const DType* label = in[2].dptr<DType>();
    if constexpr (std::is_same_v<xpu, cpu>) CheckLabels(param, label, labels, v.classes);
    auto scale = ctx.requested[0].get_space_typed<xpu, 1, DType>(Shape1(1), stream);
    if (param.normalization == kValid) {
      Kernel<ValidScale, xpu>::Launch(stream, 1, labels, label,
                                      static_cast<DType>(param.ignore_label), param.use_ignore,
                                      static_cast<DType>(param.grad_scale), scale.dptr_);
    } else {
      const index_t divisor =
          (param.multi_output ? v.inner : 1) * (param.normalization == kBatch ? v.outer : 1);
      scale = static_cast<DType>(param.grad_scale / divisor);
    }
    const DType* head = param.out_grad ? in[0].dptr<DType>() : nullptr;
    OPS_REQ_SWITCH(req[0], Req, {
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<SoftmaxOutputGradientRow<Req>, cpu>::LaunchItems(
            stream, v.outer, v.classes * v.inner, v, in[3].dptr<DType>(), label, head,
            static_cast<const DType*>(scale.dptr_), static_cast<DType>(param.smooth_alpha),
            param.use_ignore, static_cast<DType>(param.ignore_label), out[0].dptr<DType>());
      } else {
        Kernel<SoftmaxOutputGradient<Req>, xpu>::Launch(
            stream, static_cast<index_t>(in[1].Size()), v, in[3].dptr<DType>(), label, head,
            static_cast<const DType*>(scale.dptr_), static_cast<DType>(param.smooth_alpha),
            param.use_ignore, static_cast<DType>(param.ignore_label), out[0].dptr<DType>());
      }
    });
    if (req[1] == kWriteTo || req[1] == kWriteInplace) Flat<xpu, DType>(out[1], stream) = DType(0);
  });
}

// Adds FCompute<xpu> to SoftmaxOutput and _backward_SoftmaxOutput.
template <typename xpu>
void SetSoftmaxOutputCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("SoftmaxOutput").set_attr<FCompute>(attr_name, FCompute(SoftmaxOutputCompute<xpu>));
  RegisterOp("_backward_SoftmaxOutput")
      .set_attr<FCompute>(attr_name, FCompute(SoftmaxOutputBackwardCompute<xpu>));
}

}  // namespace softmax_output
}  // namespace ops

#endif  // OPS_SOFTMAX_OUTPUT_INL_H_
