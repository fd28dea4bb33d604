// ops/loss_output-inl.h: MXNet's terminal loss layers whose backward pass ignores the output
// gradient and writes the loss gradient itself, written once for every device:
//   LinearRegressionOutput    y = x,          dx = grad_scale / m * (y - label)
//   LogisticRegressionOutput  y = sigmoid(x), dx = grad_scale / m * (y - label)
//   MAERegressionOutput       y = x,          dx = grad_scale / m * sign(y - label)
//   MakeLoss                  y = x,          dx = grad_scale / normalization
//   SVMOutput                 y = x,          dx the hinge loss's (squared, or linear)
// where m is the number of outputs per example (size / batch), as in MXNet 1.9.1. The labels
// get a zero gradient. loss_output.cc registers the CPU, loss_output.cu adds FCompute<gpu>.
#ifndef OPS_LOSS_OUTPUT_INL_H_
#define OPS_LOSS_OUTPUT_INL_H_

#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace loss_output {

struct RegressionOutputParam : public dmlc::Parameter<RegressionOutputParam> {
  float grad_scale;
  DMLC_DECLARE_PARAMETER(RegressionOutputParam) {
    DMLC_DECLARE_FIELD(grad_scale).set_default(1.0f).describe("Scales the gradient.");
  }
};

struct SVMOutputParam : public dmlc::Parameter<SVMOutputParam> {
  float margin;
  float regularization_coefficient;
  bool use_linear;
  DMLC_DECLARE_PARAMETER(SVMOutputParam) {
    DMLC_DECLARE_FIELD(margin).set_default(1.0f).describe(
        "The margin: a score closer than this to the wrong side has a loss.");
    DMLC_DECLARE_FIELD(regularization_coefficient)
        .set_default(1.0f)
        .describe("Scales the gradient.");
    DMLC_DECLARE_FIELD(use_linear)
        .set_default(false)
        .describe("The L1-SVM loss (the hinge) instead of the L2-SVM loss (the squared hinge).");
  }
};

enum MakeLossNormalization { kNull = 0, kBatch = 1, kValid = 2 };

struct MakeLossParam : public dmlc::Parameter<MakeLossParam> {
  float grad_scale;
  float valid_thresh;
  int normalization;
  DMLC_DECLARE_PARAMETER(MakeLossParam) {
    DMLC_DECLARE_FIELD(grad_scale).set_default(1.0f).describe("The gradient of every element.");
    DMLC_DECLARE_FIELD(valid_thresh).set_default(0.0f).describe(
        "With normalization 'valid', the elements above this count.");
    DMLC_DECLARE_FIELD(normalization)
        .add_enum("null", kNull)
        .add_enum("batch", kBatch)
        .add_enum("valid", kValid)
        .set_default(kNull)
        .describe("Divides the gradient by: null 1, batch the batch size (the first extent), "
                  "valid the number of elements above valid_thresh (at least 1).");
  }
};

// The forward functions and the gradients, of (output, label).
struct identity_output {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType x) { return x; }
};
using sigmoid_output = mshadow::op::sigmoid;
struct difference {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType y, DType label) { return y - label; }
};
struct sign_of_difference {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType y, DType label) {
    return y > label ? DType(1) : (y < label ? DType(-1) : DType(0));
  }
};

// The regression layers: name, forward function, gradient.
template <typename Fn>
void ForEachRegression(Fn&& fn) {
  fn(TypeTag<identity_output>(), TypeTag<difference>(), "LinearRegressionOutput",
     "Least squares regression: the output is the data; the gradient (output - label) * "
     "grad_scale / m, m the outputs per example.");
  fn(TypeTag<sigmoid_output>(), TypeTag<difference>(), "LogisticRegressionOutput",
     "Logistic regression: the output is sigmoid(data); the gradient (output - label) * "
     "grad_scale / m, m the outputs per example.");
  fn(TypeTag<identity_output>(), TypeTag<sign_of_difference>(), "MAERegressionOutput",
     "Mean absolute error regression: the output is the data; the gradient sign(output - "
     "label) * grad_scale / m, m the outputs per example.");
}

// grad[i] = Grad(y[i], label[i]) * scale.
template <typename Grad, int kReq>
struct regression_grad {
  static constexpr bool kSimdItems = true;  // item i writes grad[i] only
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* y, const DType* label,
                                  DType scale) {
    AssignReq<kReq>(grad + i, Grad::Map(y[i], label[i]) * scale);
  }
};

// The labels' gradient is zero: written as zero, added as nothing.
template <typename xpu, typename DType>
void ZeroLabelGradient(const TBlob& grad, OpReqType req, mshadow::Stream<xpu>* s) {
  if (req == kWriteTo || req == kWriteInplace) Flat<xpu, DType>(grad, s) = DType(0);
}

template <typename xpu, typename Forward>
void RegressionCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    Assign(Flat<xpu, DType>(out[0], s), req[0],
           mshadow::expr::F<Forward>(Flat<xpu, DType>(in[0], s)));
  });
}

// Inputs: out_grad (unused), data, label, output. Outputs: data_grad, label_grad.
template <typename xpu, typename Grad>
void RegressionBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                               const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                               const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TShape& data = in[1].shape_;
  const index_t per_example = data.ndim() == 0 || data[0] == 0 ? 1 : data.Size() / data[0];
  const double scale = GetParam<RegressionOutputParam>(attrs).grad_scale / double(per_example);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<regression_grad<Grad, Req>, xpu>::Launch(s, out[0].Size(), out[0].dptr<DType>(),
                                                      in[3].dptr<DType>(), in[2].dptr<DType>(),
                                                      static_cast<DType>(scale));
    });
    ZeroLabelGradient<xpu, DType>(out[1], req[1], s);
  });
}

// The class a label names, its whole part, or -1 where it names none (out of range, below 0,
// NaN), whose scores are then all another class's.
template <typename DType>
MSHADOW_XINLINE index_t LabelClass(DType y, index_t classes) {
  return y >= DType(0) && y < DType(classes) ? static_cast<index_t>(y) : -1;
}

// SVMOutput's gradient of a score x, as MXNet: for the label's class, -c (margin > x) (2
// (margin - x) for the squared hinge); for another class, c (margin > -x) (2 (margin + x)).
template <bool kLinear, typename DType>
MSHADOW_XINLINE DType SvmGrad(DType x, bool is_label, DType margin, DType coefficient) {
  const DType distance = is_label ? margin - x : margin + x;
  const DType hinge = distance > DType(0) ? (kLinear ? DType(1) : DType(2) * distance) : DType(0);
  return (is_label ? -coefficient : coefficient) * hinge;
}

// GPU item: score i of (examples, classes) scores.
template <bool kLinear, int kReq>
struct svm_grad {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* x, const DType* label,
                                  index_t classes, DType margin, DType coefficient) {
    const bool is_label = i % classes == LabelClass(label[i / classes], classes);
    AssignReq<kReq>(grad + i, SvmGrad<kLinear>(x[i], is_label, margin, coefficient));
  }
};

// CPU item: a row of scores, the other classes' runs a vectorized loop each and the label's
// score on its own: per element, the class compared with the label had cost a division and an
// int64 to float conversion, which AVX2 does not vectorize (0.34x MXNet; docs/benchmarks.md).
template <bool kLinear, int kReq>
struct svm_grad_row {
  template <typename DType>
  static void Map(index_t row, DType* grad, const DType* x, const DType* label, index_t classes,
                  DType margin, DType coefficient) {
    const index_t label_class = LabelClass(label[row], classes);
    DType* g = grad + row * classes;
    const DType* scores = x + row * classes;
    const auto others = [&](index_t begin, index_t end) {
      OPS_SIMD_LOOP
      for (index_t k = begin; k < end; ++k) {
        AssignReq<kReq>(g + k, SvmGrad<kLinear>(scores[k], false, margin, coefficient));
      }
    };
    if (label_class < 0) return others(0, classes);
    others(0, label_class);
    AssignReq<kReq>(g + label_class,
                    SvmGrad<kLinear>(scores[label_class], true, margin, coefficient));
    others(label_class + 1, classes);
  }
};

// Inputs: out_grad (unused), data, label. Outputs: data_grad, label_grad.
template <typename xpu>
void SVMOutputBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const SVMOutputParam& param = GetParam<SVMOutputParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t classes = in[1].shape_[in[1].ndim() - 1];
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      const auto launch = [&](auto linear) {
        constexpr bool kLinear = decltype(linear)::value;
        DType* grad = out[0].dptr<DType>();
        const DType* x = in[1].dptr<DType>();
        const DType* label = in[2].dptr<DType>();
        const auto margin = static_cast<DType>(param.margin);
        const auto coefficient = static_cast<DType>(param.regularization_coefficient);
        if constexpr (std::is_same_v<xpu, cpu>) {
          Kernel<svm_grad_row<kLinear, Req>, cpu>::LaunchItems(
              s, classes == 0 ? 0 : out[0].Size() / classes, classes, grad, x, label, classes,
              margin, coefficient);
        } else {
          Kernel<svm_grad<kLinear, Req>, xpu>::Launch(s, out[0].Size(), grad, x, label, classes,
                                                      margin, coefficient);
        }
      };
      if (param.use_linear) {
        launch(std::true_type());
      } else {
        launch(std::false_type());
      }
    });
    ZeroLabelGradient<xpu, DType>(out[1], req[1], s);
  });
}

// scale[0] = grad_scale / the number of elements above the threshold (at least 1).
struct valid_scale {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t, index_t n, const DType* x, DType threshold,
                                  DType grad_scale, DType* scale) {
    index_t valid = 0;
    for (index_t j = 0; j < n; ++j) valid += x[j] > threshold;
    scale[0] = grad_scale / DType(valid > 0 ? valid : 1);
  }
};

// grad[i] = *scale (a device pointer, so that the count never leaves the device).
template <int kReq>
struct fill_from_pointer {
  static constexpr bool kSimdItems = true;  // item i writes grad[i] only
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* scale) {
    AssignReq<kReq>(grad + i, *scale);
  }
};

// Inputs: out_grad (unused), data. Output: data_grad.
template <typename xpu>
void MakeLossBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                             const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                             const std::vector<TBlob>& out) {
  const MakeLossParam& param = GetParam<MakeLossParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TShape& data = in[1].shape_;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto scale = ctx.requested[0].get_space_typed<xpu, 1, DType>(mshadow::Shape1(1), s);
    if (param.normalization == kValid) {
      Kernel<valid_scale, xpu>::Launch(s, 1, static_cast<index_t>(data.Size()),
                                       in[1].dptr<DType>(), static_cast<DType>(param.valid_thresh),
                                       static_cast<DType>(param.grad_scale), scale.dptr_);
    } else {
      const index_t batch = param.normalization == kBatch && data.ndim() > 0 && data[0] > 0
                                ? data[0] : 1;
      scale = static_cast<DType>(param.grad_scale / double(batch));
    }
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<fill_from_pointer<Req>, xpu>::Launch(s, out[0].Size(), out[0].dptr<DType>(),
                                                  static_cast<const DType*>(scale.dptr_));
    });
  });
}

// Adds FCompute<xpu> to every operator of the family and its backward operator.
template <typename xpu>
void SetLossOutputCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  ForEachRegression([attr_name](auto forward, auto grad, const char* name, const char*) {
    using Forward = typename decltype(forward)::type;
    using Grad = typename decltype(grad)::type;
    RegisterOp(name).set_attr<FCompute>(attr_name, FCompute(RegressionCompute<xpu, Forward>));
    RegisterOp(std::string("_backward_") + name)
        .set_attr<FCompute>(attr_name, FCompute(RegressionBackwardCompute<xpu, Grad>));
  });
  RegisterOp("MakeLoss")
      .set_attr<FCompute>(attr_name, FCompute(RegressionCompute<xpu, identity_output>));
  RegisterOp("_backward_MakeLoss")
      .set_attr<FCompute>(attr_name, FCompute(MakeLossBackwardCompute<xpu>));
  RegisterOp("SVMOutput")
      .set_attr<FCompute>(attr_name, FCompute(RegressionCompute<xpu, identity_output>));
  RegisterOp("_backward_SVMOutput")
      .set_attr<FCompute>(attr_name, FCompute(SVMOutputBackwardCompute<xpu>));
}

}  // namespace loss_output
}  // namespace ops

// The identity's packet form, so that the identity layers' forward copies a packet at a time.
namespace mshadow {
namespace packet {
MSHADOW_DEFINE_PACKET_UNARY(ops::loss_output::identity_output, x)
}  // namespace packet
}  // namespace mshadow

#endif  // OPS_LOSS_OUTPUT_INL_H_
