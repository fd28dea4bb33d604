// ops/elemwise_binary-inl.h: binary elementwise operators on equal shapes (elemwise_add,
// _sub, _mul, _div, and _maximum, _power, _equal, ... of arith::ForEachMathOperation) and with
// a scalar (_plus_scalar, _rminus_scalar, _rdiv_scalar, _maximum_scalar, _rpower_scalar, ...)
// and their backward operators, written once for
// every device from the functors of arithmetic_functors.h. elemwise_binary.cc registers them
// with FCompute<cpu>, elemwise_binary.cu adds FCompute<gpu>.
#ifndef OPS_ELEMWISE_BINARY_INL_H_
#define OPS_ELEMWISE_BINARY_INL_H_

#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/arithmetic_functors.h"
#include "ops/float_compute.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace binary {

using mshadow::expr::F;

// Calls fn(TypeTag<OP>(), name, description) for each operator on two equal shapes.
template <typename Fn>
void ForEachElemwise(Fn&& fn) {
  fn(TypeTag<arith::add>(), "elemwise_add", "lhs + rhs, elementwise.");
  fn(TypeTag<arith::sub>(), "elemwise_sub", "lhs - rhs, elementwise.");
  fn(TypeTag<arith::mul>(), "elemwise_mul", "lhs * rhs, elementwise.");
  fn(TypeTag<arith::div>(), "elemwise_div", "lhs / rhs, elementwise.");
  arith::ForEachMathOperation([&fn](auto op, const char* name, const char* description) {
    fn(op, std::string("_") + name, std::string(description) + ", elementwise.");
  });
}

// Calls fn(TypeTag<OP>(), reversed, reads_data, name, description) for each operator with a
// scalar: data OP scalar, or scalar OP data when `reversed`; `reads_data` when the
// derivative depends on the data (its backward operator then takes the data as an input).
template <typename Fn>
void ForEachScalar(Fn&& fn) {
  using std::false_type;
  using std::true_type;
  fn(TypeTag<arith::add>(), false_type(), false_type(), "_plus_scalar", "data + scalar.");
  fn(TypeTag<arith::sub>(), false_type(), false_type(), "_minus_scalar", "data - scalar.");
  fn(TypeTag<arith::sub>(), true_type(), false_type(), "_rminus_scalar", "scalar - data.");
  fn(TypeTag<arith::mul>(), false_type(), false_type(), "_mul_scalar", "data * scalar.");
  fn(TypeTag<arith::div>(), false_type(), false_type(), "_div_scalar", "data / scalar.");
  fn(TypeTag<arith::div>(), true_type(), true_type(), "_rdiv_scalar", "scalar / data.");
  arith::ForEachMathOperation([&fn](auto op, const char* name, const char* description) {
    using reads_data = std::integral_constant<bool, decltype(op)::type::kGradReadsOperands>;
    fn(op, false_type(), reads_data(), std::string("_") + name + "_scalar",
       std::string(description) + ", with data as lhs and the scalar as rhs.");
  });
  fn(TypeTag<arith::power>(), true_type(), true_type(), "_rpower_scalar", "scalar ^ data.");
  fn(TypeTag<arith::mod>(), true_type(), true_type(), "_rmod_scalar",
     "scalar modulo data, with data's sign (0 where data is 0).");
  fn(TypeTag<arith::smooth_l1>(), false_type(), true_type(), "smooth_l1",
     "Smooth L1 loss with sigma = scalar: 0.5 * (sigma * x)^2 where |x| < 1 / sigma^2, else "
     "|x| - 0.5 / sigma^2.");
}

// The backward operator of a scalar-family operator: _backward_plus_scalar, _backward_smooth_l1.
inline std::string ScalarBackwardName(const std::string& name) {
  return name[0] == '_' ? "_backward" + name : "_backward_" + name;
}

// ---- On equal shapes.

template <typename xpu, typename OP>
void ElemwiseCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_REAL_TYPE_SWITCH_EX(out[0].type_flag_, DType, {
    Assign(Flat<xpu, DType>(out[0], s), req[0],
           F<InComputeType<DType, typename OP::forward>>(Flat<xpu, DType>(in[0], s),
                                                         Flat<xpu, DType>(in[1], s)));
  });
}

// Inputs: out_grad [, lhs, rhs when OP::kGradReadsOperands]; outputs: lhs_grad, rhs_grad.
template <typename xpu, typename OP>
void ElemwiseBackwardCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                             const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_REAL_TYPE_SWITCH_EX(out[0].type_flag_, DType, {
    auto og = Flat<xpu, DType>(in[0], s);
    if constexpr (OP::kGradReadsOperands) {
      auto lhs = Flat<xpu, DType>(in[1], s);
      auto rhs = Flat<xpu, DType>(in[2], s);
      Assign(Flat<xpu, DType>(out[0], s), req[0],
             og * F<InComputeType<DType, typename OP::lhs_grad>>(lhs, rhs));
      Assign(Flat<xpu, DType>(out[1], s), req[1],
             og * F<InComputeType<DType, typename OP::rhs_grad>>(lhs, rhs));
    } else {  // constant derivatives
      const DType zero(0);
      const DType lhs_grad = InComputeType<DType, typename OP::lhs_grad>::Map(zero, zero);
      const DType rhs_grad = InComputeType<DType, typename OP::rhs_grad>::Map(zero, zero);
      if constexpr (std::is_same_v<xpu, cpu> && std::is_floating_point_v<DType>) {
        // elemwise_add's: the output gradient copied to both in one pass over it.
        if (lhs_grad == DType(1) && rhs_grad == DType(1)) {
          CopyToEach(og.dptr_, static_cast<index_t>(og.shape_.Size()),
                     {out[0].dptr<DType>(), out[1].dptr<DType>()}, req);
          return;
        }
      }
      Assign(Flat<xpu, DType>(out[0], s), req[0], og * lhs_grad);
      Assign(Flat<xpu, DType>(out[1], s), req[1], og * rhs_grad);
    }
  });
}

// ---- With a scalar.

// MXNet 1.9.1's parameters, defaults included. is_int only changes integer inputs (the scalar
// is truncated), which these operators do not take; it is accepted because MXNet's frontends
// pass it.
struct ScalarParam : public dmlc::Parameter<ScalarParam> {
  double scalar;
  bool is_int;
  DMLC_DECLARE_PARAMETER(ScalarParam) {
    DMLC_DECLARE_FIELD(scalar).set_default(1).describe("The scalar operand.");
    DMLC_DECLARE_FIELD(is_int).set_default(true).describe(
        "Whether the scalar is an integer (matters for integer inputs only; these operators "
        "take float32, float64, float16 and bfloat16).");
  }
};

template <typename xpu, typename OP, bool kReversed>
void ScalarCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const double scalar = GetParam<ScalarParam>(attrs).scalar;
  MSHADOW_REAL_TYPE_SWITCH_EX(out[0].type_flag_, DType, {
    auto x = Flat<xpu, DType>(in[0], s);
    const DType c = static_cast<DType>(scalar);
    if constexpr (kReversed) {
      Assign(Flat<xpu, DType>(out[0], s), req[0],
             F<InComputeType<DType, typename OP::forward>>(c, x));
    } else {
      Assign(Flat<xpu, DType>(out[0], s), req[0],
             F<InComputeType<DType, typename OP::forward>>(x, c));
    }
  });
}

// Inputs: out_grad [, data when kReadsData]. The derivative with respect to the data is
// OP's lhs_grad (or rhs_grad when reversed); without kReadsData it does not depend on the
// data, so it is evaluated once.
template <typename xpu, typename OP, bool kReversed, bool kReadsData>
void ScalarBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  using Grad = std::conditional_t<kReversed, typename OP::rhs_grad, typename OP::lhs_grad>;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const double scalar = GetParam<ScalarParam>(attrs).scalar;
  MSHADOW_REAL_TYPE_SWITCH_EX(out[0].type_flag_, DType, {
    auto og = Flat<xpu, DType>(in[0], s);
    auto in_grad = Flat<xpu, DType>(out[0], s);
    const DType c = static_cast<DType>(scalar);
    if constexpr (kReadsData) {
      auto x = Flat<xpu, DType>(in[1], s);
      if constexpr (kReversed) {
        Assign(in_grad, req[0], og * F<InComputeType<DType, Grad>>(c, x));
      } else {
        Assign(in_grad, req[0], og * F<InComputeType<DType, Grad>>(x, c));
      }
    } else {
      const DType any(0);
      Assign(in_grad, req[0],
             og * (kReversed ? InComputeType<DType, Grad>::Map(c, any)
                             : InComputeType<DType, Grad>::Map(any, c)));
    }
  });
}

// Adds FCompute<xpu> to every operator of the family and its backward operator.
template <typename xpu>
void SetBinaryCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  ForEachElemwise([attr_name](auto op, const std::string& name, const std::string&) {
    using OP = typename decltype(op)::type;
    RegisterOp(name).set_attr<FCompute>(attr_name, FCompute(ElemwiseCompute<xpu, OP>));
    RegisterOp("_backward_" + name)
        .set_attr<FCompute>(attr_name, arith::ZeroGradients<OP>::value
                                           ? FCompute(ZeroGradientCompute<xpu>)
                                           : FCompute(ElemwiseBackwardCompute<xpu, OP>));
  });
  ForEachScalar([attr_name](auto op, auto reversed, auto reads_data, const std::string& name,
                            const std::string&) {
    using OP = typename decltype(op)::type;
    constexpr bool kReversed = decltype(reversed)::value;
    constexpr bool kReadsData = decltype(reads_data)::value;
    RegisterOp(name).set_attr<FCompute>(attr_name, FCompute(ScalarCompute<xpu, OP, kReversed>));
    RegisterOp(ScalarBackwardName(name))
        .set_attr<FCompute>(attr_name,
                            arith::ZeroGradients<OP>::value
                                ? FCompute(ZeroGradientCompute<xpu>)
                                : FCompute(ScalarBackwardCompute<xpu, OP, kReversed, kReadsData>));
  });
}

}  // namespace binary
}  // namespace ops

#endif  // OPS_ELEMWISE_BINARY_INL_H_
