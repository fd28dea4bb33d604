// Unary elementwise operators: relu, sigmoid, tanh, exp, log, sqrt, square, abs, negative,
// clip; each with its backward operator _backward_<name>.
#include <string>

#include "ops/grad_functors.h"
#include "ops/kernel_util.h"

namespace ops {
namespace {

using mshadow::expr::F;

// Where a derivative is computed from (see grad_functors.h).
enum class GradFrom { kOutputGradOnly, kInput, kOutput };

template <typename Forward>
void UnaryCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    Assign(Flat<DType>(out[0]), req[0], F<Forward>(Flat<DType>(in[0])));
  });
}

// in_grad = out_grad * Grad(x or y), or Grad(out_grad) when nothing else is read.
template <typename Grad>
void UnaryBackwardCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    if (in.size() == 1) {
      Assign(Flat<DType>(out[0]), req[0], F<Grad>(Flat<DType>(in[0])));
    } else {
      Assign(Flat<DType>(out[0]), req[0], Flat<DType>(in[0]) * F<Grad>(Flat<DType>(in[1])));
    }
  });
}


// Registers `name` and `_backward_<name>`.
template <typename Forward, typename Grad>
void DefineUnary(const std::string& name, const std::string& description, GradFrom from) {
  const std::string backward = "_backward_" + name;
  Op& op = RegisterOp(name)
               .describe(description)
               .set_num_inputs(1)
               .set_num_outputs(1)
               .add_argument("data", "NDArray-or-Symbol", "The input array.")
               .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
               .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
               .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);
  op.set_attr<FCompute>("FCompute<cpu>", FCompute(UnaryCompute<Forward>));
  SetGradient(op, backward, from == GradFrom::kInput, from == GradFrom::kOutput);
  const uint32_t backward_inputs = from == GradFrom::kOutputGradOnly ? 1 : 2;
  RegisterBackwardOp(backward, backward_inputs, 1)
      .describe("Gradient of " + name + ".")
      .set_attr<FInferShape>("FInferShape", backward_inputs == 1 ? ElemwiseShape<1, 1>
                                                                  : ElemwiseShape<2, 1>)
      .set_attr<FInferType>("FInferType", backward_inputs == 1 ? ElemwiseRealType<1, 1>
                                                                : ElemwiseRealType<2, 1>)
      .set_attr<FCompute>("FCompute<cpu>", FCompute(UnaryBackwardCompute<Grad>));
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

void ClipCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ClipParam& param = GetParam<ClipParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType lo = static_cast<DType>(param.a_min), hi = static_cast<DType>(param.a_max);
    if (lo <= hi) {
      Assign(Flat<DType>(out[0]), req[0],
             F<mshadow::op::minimum>(F<mshadow::op::maximum>(Flat<DType>(in[0]), lo), hi));
      return;
    }
    // a_min > a_max, as MXNet computes it (x > a_max ? a_max : x < a_min ? a_min : x): a_max
    // above a_max, a_min elsewhere. NumPy would give a_max everywhere.
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const index_t n = out[0].Size();
    for (index_t i = 0; i < n; ++i) {
      AssignValue(y + i, req[0], x[i] > hi ? hi : (x[i] < lo ? lo : x[i]));
    }
  });
}

// Inputs: out_grad, x. The gradient flows where a_min <= x <= a_max (nowhere when
// a_min > a_max, as in MXNet).
void ClipBackwardCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ClipParam& param = GetParam<ClipParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType lo = static_cast<DType>(param.a_min), hi = static_cast<DType>(param.a_max);
    const DType* og = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    DType* ig = out[0].dptr<DType>();
    const index_t n = out[0].Size();
    for (index_t i = 0; i < n; ++i) {
      AssignValue(ig + i, req[0], (x[i] >= lo && x[i] <= hi) ? og[i] : DType(0));
    }
  });
}

const bool kRegistered = [] {
  namespace op = mshadow::op;
  DefineUnary<op::relu, fn::relu_grad>("relu", "Rectified linear unit: max(x, 0).",
                                       GradFrom::kOutput);
  DefineUnary<op::sigmoid, fn::sigmoid_grad>("sigmoid", "Logistic sigmoid: 1 / (1 + exp(-x)).",
                                             GradFrom::kOutput);
  DefineUnary<op::tanh, fn::tanh_grad>("tanh", "Hyperbolic tangent.", GradFrom::kOutput);
  DefineUnary<op::exp, op::identity>("exp", "Exponential: e^x.", GradFrom::kOutput);
  DefineUnary<op::log, fn::log_grad>("log", "Natural logarithm.", GradFrom::kInput);
  DefineUnary<op::sqrt, fn::sqrt_grad>("sqrt", "Square root.", GradFrom::kOutput);
  DefineUnary<op::square, fn::square_grad>("square", "Square: x * x.", GradFrom::kInput);
  DefineUnary<op::abs, fn::abs_grad>("abs", "Absolute value.", GradFrom::kInput);
  DefineUnary<op::negation, op::negation>("negative", "Negation: -x.",
                                          GradFrom::kOutputGradOnly);
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(ClipParam);

OPS_REGISTER_OP(clip)
    .describe("Clips (limits) the values: min(max(x, a_min), a_max). As in MXNet, a_min > "
              "a_max gives a_max where x > a_max and a_min elsewhere.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(ClipParam::__FIELDS__())
    .set_attr_parser(ParamParser<ClipParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FCompute>("FCompute<cpu>", ClipCompute)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_clip", true, false});

OPS_REGISTER_OP(_backward_clip)
    .describe("Gradient of clip.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<ClipParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<2, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
    .set_attr<FCompute>("FCompute<cpu>", ClipBackwardCompute);

}  // namespace ops
