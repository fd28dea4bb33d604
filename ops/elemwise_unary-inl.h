// ops/elemwise_unary-inl.h: the unary elementwise operators (activations, exponentials and
// logarithms, powers, trigonometry, rounding, the constant and gradient-blocking operators,
// clip) and their backward operators, written once for every device. elemwise_unary.cc
// registers them with FCompute<cpu>, elemwise_unary.cu adds FCompute<gpu>; both take the list
// of operators from ForEachUnary.
#ifndef OPS_ELEMWISE_UNARY_INL_H_
#define OPS_ELEMWISE_UNARY_INL_H_

#include <string>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/float_compute.h"
#include "ops/grad_functors.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/math_functors.h"

namespace ops {
namespace unary {

using mshadow::expr::F;

// Where a derivative is computed from (see grad_functors.h).
enum class GradFrom { kOutputGradOnly, kInput, kOutput };

// Calls fn(TypeTag<Forward>(), TypeTag<Grad>(), name, description, from) for every operator of the
// family: forward functor, derivative functor (see grad_functors.h), what the derivative reads.
template <typename Fn>
void ForEachUnary(Fn&& fn) {
  namespace op = mshadow::op;
  fn(TypeTag<op::relu>(), TypeTag<fn::relu_grad>(), "relu", "Rectified linear unit: max(x, 0).",
     GradFrom::kOutput);
  fn(TypeTag<op::sigmoid>(), TypeTag<fn::sigmoid_grad>(), "sigmoid",
     "Logistic sigmoid: 1 / (1 + exp(-x)).", GradFrom::kOutput);
  fn(TypeTag<op::tanh>(), TypeTag<fn::tanh_grad>(), "tanh", "Hyperbolic tangent.", GradFrom::kOutput);
  fn(TypeTag<op::exp>(), TypeTag<op::identity>(), "exp", "Exponential: e^x.", GradFrom::kOutput);
  fn(TypeTag<op::log>(), TypeTag<fn::log_grad>(), "log", "Natural logarithm.", GradFrom::kInput);
  fn(TypeTag<op::sqrt>(), TypeTag<fn::sqrt_grad>(), "sqrt", "Square root.", GradFrom::kOutput);
  fn(TypeTag<op::square>(), TypeTag<fn::square_grad>(), "square", "Square: x * x.", GradFrom::kInput);
  fn(TypeTag<op::abs>(), TypeTag<fn::abs_grad>(), "abs", "Absolute value.", GradFrom::kInput);
  fn(TypeTag<op::negation>(), TypeTag<op::negation>(), "negative", "Negation: -x.",
     GradFrom::kOutputGradOnly);
  fn(TypeTag<fn::log1p>(), TypeTag<fn::log1p_grad>(), "log1p", "log(1 + x), exact near 0.",
     GradFrom::kInput);
  fn(TypeTag<fn::expm1>(), TypeTag<fn::expm1_grad>(), "expm1", "e^x - 1, exact near 0.",
     GradFrom::kOutput);
  fn(TypeTag<fn::log2>(), TypeTag<fn::log2_grad>(), "log2", "Base-2 logarithm.", GradFrom::kInput);
  fn(TypeTag<fn::log10>(), TypeTag<fn::log10_grad>(), "log10", "Base-10 logarithm.",
     GradFrom::kInput);
  fn(TypeTag<op::rsqrt>(), TypeTag<fn::rsqrt_grad>(), "rsqrt", "Reciprocal square root: 1 / sqrt(x).",
     GradFrom::kInput);
  fn(TypeTag<fn::reciprocal>(), TypeTag<fn::reciprocal_grad>(), "reciprocal", "Reciprocal: 1 / x.",
     GradFrom::kInput);
  fn(TypeTag<fn::cbrt>(), TypeTag<fn::cbrt_grad>(), "cbrt", "Cube root.", GradFrom::kOutput);
  fn(TypeTag<fn::erf>(), TypeTag<fn::erf_grad>(), "erf", "Gauss error function.", GradFrom::kInput);
  fn(TypeTag<fn::sin>(), TypeTag<fn::sin_grad>(), "sin", "Sine (radians).", GradFrom::kInput);
  fn(TypeTag<fn::cos>(), TypeTag<fn::cos_grad>(), "cos", "Cosine (radians).", GradFrom::kInput);
  fn(TypeTag<fn::arctan>(), TypeTag<fn::arctan_grad>(), "arctan", "Inverse tangent.",
     GradFrom::kInput);
  fn(TypeTag<fn::tan>(), TypeTag<fn::tan_grad>(), "tan", "Tangent (radians).", GradFrom::kOutput);
  fn(TypeTag<fn::arcsin>(), TypeTag<fn::arcsin_grad>(), "arcsin",
     "Inverse sine, in [-pi/2, pi/2]; NaN outside [-1, 1].", GradFrom::kInput);
  fn(TypeTag<fn::arccos>(), TypeTag<fn::arccos_grad>(), "arccos",
     "Inverse cosine, in [0, pi]; NaN outside [-1, 1].", GradFrom::kInput);
  fn(TypeTag<fn::sinh>(), TypeTag<fn::sinh_grad>(), "sinh", "Hyperbolic sine.", GradFrom::kInput);
  fn(TypeTag<fn::cosh>(), TypeTag<fn::cosh_grad>(), "cosh", "Hyperbolic cosine.", GradFrom::kInput);
  fn(TypeTag<fn::arcsinh>(), TypeTag<fn::arcsinh_grad>(), "arcsinh", "Inverse hyperbolic sine.",
     GradFrom::kInput);
  fn(TypeTag<fn::arccosh>(), TypeTag<fn::arccosh_grad>(), "arccosh",
     "Inverse hyperbolic cosine; NaN below 1.", GradFrom::kInput);
  fn(TypeTag<fn::arctanh>(), TypeTag<fn::arctanh_grad>(), "arctanh",
     "Inverse hyperbolic tangent; NaN outside [-1, 1].", GradFrom::kInput);
  fn(TypeTag<fn::degrees>(), TypeTag<fn::degrees>(), "degrees", "Radians to degrees.",
     GradFrom::kOutputGradOnly);
  fn(TypeTag<fn::radians>(), TypeTag<fn::radians>(), "radians", "Degrees to radians.",
     GradFrom::kOutputGradOnly);
  fn(TypeTag<fn::rcbrt>(), TypeTag<fn::rcbrt_grad>(), "rcbrt", "Reciprocal cube root: 1 / cbrt(x).",
     GradFrom::kInput);
  fn(TypeTag<fn::gamma>(), TypeTag<fn::gamma_grad>(), "gamma", "The gamma function.",
     GradFrom::kInput);
  fn(TypeTag<fn::gammaln>(), TypeTag<fn::gammaln_grad>(), "gammaln",
     "log |gamma(x)|; its gradient, the digamma function, is the largest double at the poles "
     "(0, -1, ...), as MXNet's.",
     GradFrom::kInput);
  fn(TypeTag<fn::erfinv>(), TypeTag<fn::erfinv_grad>(), "erfinv",
     "Inverse error function: +-inf at +-1, NaN outside [-1, 1].", GradFrom::kOutput);
  fn(TypeTag<fn::softsign>(), TypeTag<fn::softsign_grad>(), "softsign", "x / (1 + |x|).",
     GradFrom::kInput);
  // Piecewise constant: zero gradient, as in MXNet (sign's zero times the output gradient).
  fn(TypeTag<fn::sign>(), TypeTag<fn::sign_grad>(), "sign", "Sign: -1, 0 or 1.",
     GradFrom::kOutputGradOnly);
  fn(TypeTag<fn::floor>(), TypeTag<fn::zero>(), "floor", "The largest integer <= x.",
     GradFrom::kOutputGradOnly);
  fn(TypeTag<fn::ceil>(), TypeTag<fn::zero>(), "ceil", "The smallest integer >= x.",
     GradFrom::kOutputGradOnly);
  fn(TypeTag<fn::round>(), TypeTag<fn::zero>(), "round",
     "The nearest integer, halves away from zero.", GradFrom::kOutputGradOnly);
  fn(TypeTag<fn::rint>(), TypeTag<fn::zero>(), "rint",
     "The nearest integer, halves to the lower one (as MXNet; NumPy's rint goes to even).",
     GradFrom::kOutputGradOnly);
  fn(TypeTag<fn::trunc>(), TypeTag<fn::zero>(), "trunc", "The integer part: rounds towards zero.",
     GradFrom::kOutputGradOnly);
  fn(TypeTag<fn::trunc>(), TypeTag<fn::zero>(), "fix", "Rounds towards zero (as trunc).",
     GradFrom::kOutputGradOnly);
  // Straight-through estimators (quantized training): rounded forward, the gradient passed
  // through unchanged.
  fn(TypeTag<fn::round>(), TypeTag<op::identity>(), "_contrib_round_ste",
     "round's value (halves away from zero) with the identity's gradient.",
     GradFrom::kOutputGradOnly);
  fn(TypeTag<fn::sign>(), TypeTag<op::identity>(), "_contrib_sign_ste",
     "sign's value with the identity's gradient.", GradFrom::kOutputGradOnly);
  fn(TypeTag<fn::zero>(), TypeTag<fn::zero>(), "zeros_like", "Zeros of the input's shape and type.",
     GradFrom::kOutputGradOnly);
  fn(TypeTag<fn::one>(), TypeTag<fn::zero>(), "ones_like", "Ones of the input's shape and type.",
     GradFrom::kOutputGradOnly);
  fn(TypeTag<fn::logical_not>(), TypeTag<fn::zero>(), "logical_not",
     "1 where x is 0, else 0 (zero gradient).", GradFrom::kOutputGradOnly);
  fn(TypeTag<op::identity>(), TypeTag<fn::zero>(), "BlockGrad",
     "The input unchanged; no gradient flows back through it (alias stop_gradient).",
     GradFrom::kOutputGradOnly);
}

// Whether a functor is fn::constant<k>, and k: such maps are written as the value itself,
// without reading their input (zeros_like, ones_like, the rounding functions' zero
// gradients).
template <typename OP>
struct ConstantOf {
  static constexpr bool kIs = false;
};
template <int k>
struct ConstantOf<fn::constant<k>> {
  static constexpr bool kIs = true;
  static constexpr int kValue = k;
};

// out = OP(in) as req says; a constant OP's value without reading in.
template <typename xpu, typename DType, typename OP>
void AssignMapped(const TBlob& out, OpReqType req, const TBlob& in, mshadow::Stream<xpu>* s) {
  if constexpr (ConstantOf<OP>::kIs) {
    Assign(Flat<xpu, DType>(out, s), req,
           mshadow::expr::scalar<DType>(DType(ConstantOf<OP>::kValue)));
  } else {
    Assign(Flat<xpu, DType>(out, s), req, F<InComputeType<DType, OP>>(Flat<xpu, DType>(in, s)));
  }
}

template <typename xpu, typename Forward>
void UnaryCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_REAL_TYPE_SWITCH_EX(out[0].type_flag_, DType,
                              { AssignMapped<xpu, DType, Forward>(out[0], req[0], in[0], s); });
}

// in_grad = out_grad * Grad(x or y), or Grad(out_grad) when nothing else is read.
template <typename xpu, typename Grad>
void UnaryBackwardCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_REAL_TYPE_SWITCH_EX(out[0].type_flag_, DType, {
    if (in.size() == 1 || ConstantOf<Grad>::kIs) {
      AssignMapped<xpu, DType, Grad>(out[0], req[0], in[0], s);
    } else {
      Assign(
          Flat<xpu, DType>(out[0], s), req[0],
          Flat<xpu, DType>(in[0], s) * F<InComputeType<DType, Grad>>(Flat<xpu, DType>(in[1], s)));
    }
  });
}

// ---- clip: a_min <= x <= a_max.

struct ClipParam : public dmlc::Parameter<ClipParam> {
  double a_min;
  double a_max;
  DMLC_DECLARE_PARAMETER(ClipParam) {
    DMLC_DECLARE_FIELD(a_min).describe("Minimum value.");
    DMLC_DECLARE_FIELD(a_max).describe("Maximum value.");
  }
};

// MXNet's clip, for any bounds: a_max above a_max, a_min below a_min (with a_min > a_max: a_min
// everywhere else). NumPy would give a_max everywhere for a_min > a_max.
struct clip_any_bounds {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType x, DType lo, DType hi) {
    return x > hi ? hi : (x < lo ? lo : x);
  }
};

// The gradient flows where a_min <= x <= a_max (nowhere when a_min > a_max, as in MXNet).
struct clip_grad {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType out_grad, DType x, DType lo, DType hi) {
    return (x >= lo && x <= hi) ? out_grad : DType(0);
  }
};

template <typename xpu>
void ClipCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ClipParam& param = GetParam<ClipParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType lo = static_cast<DType>(param.a_min), hi = static_cast<DType>(param.a_max);
    if (lo <= hi) {  // through the engine: vectorized on the CPU
      Assign(Flat<xpu, DType>(out[0], s), req[0],
             F<mshadow::op::minimum>(F<mshadow::op::maximum>(Flat<xpu, DType>(in[0], s), lo), hi));
      return;
    }
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<op_with_req<clip_any_bounds, Req>, xpu>::Launch(s, out[0].Size(), out[0].dptr<DType>(),
                                                             in[0].dptr<DType>(), lo, hi);
    });
  });
}

// Inputs: out_grad, x.
template <typename xpu>
void ClipBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ClipParam& param = GetParam<ClipParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType lo = static_cast<DType>(param.a_min), hi = static_cast<DType>(param.a_max);
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<op_with_req<clip_grad, Req>, xpu>::Launch(
          s, out[0].Size(), out[0].dptr<DType>(), in[0].dptr<DType>(), in[1].dptr<DType>(), lo, hi);
    });
  });
}

// Adds FCompute<xpu> to every operator of the family and its backward operator.
template <typename xpu>
void SetUnaryCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  ForEachUnary([attr_name](auto forward, auto grad, const char* name, const char*, GradFrom) {
    using Forward = typename decltype(forward)::type;
    using Grad = typename decltype(grad)::type;
    RegisterOp(name).set_attr<FCompute>(attr_name, FCompute(UnaryCompute<xpu, Forward>));
    RegisterOp(std::string("_backward_") + name)
        .set_attr<FCompute>(attr_name, FCompute(UnaryBackwardCompute<xpu, Grad>));
  });
  RegisterOp("clip").set_attr<FCompute>(attr_name, FCompute(ClipCompute<xpu>));
  RegisterOp("_backward_clip").set_attr<FCompute>(attr_name, FCompute(ClipBackwardCompute<xpu>));
}

}  // namespace unary
}  // namespace ops

#endif  // OPS_ELEMWISE_UNARY_INL_H_
