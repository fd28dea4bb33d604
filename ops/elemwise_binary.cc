// Binary elementwise operators on equal shapes (elemwise_add, _sub, _mul, _div) and with a
// scalar (_plus_scalar, _minus_scalar, _rminus_scalar, _mul_scalar, _div_scalar,
// _rdiv_scalar), each with its backward operator.
#include <string>

#include "ops/kernel_util.h"

namespace ops {
namespace {

using mshadow::expr::F;
namespace op = mshadow::op;


template <typename OP>
void BinaryCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    Assign(Flat<DType>(out[0]), req[0], F<OP>(Flat<DType>(in[0]), Flat<DType>(in[1])));
  });
}

// Backward of each binary operator. Inputs: out_grad [, lhs, rhs]; outputs: lhs_grad,
// rhs_grad.
enum class BinaryKind { kAdd, kSub, kMul, kDiv };

template <BinaryKind kind>
void BinaryBackwardCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto og = Flat<DType>(in[0]);
    auto lhs_grad = Flat<DType>(out[0]);
    auto rhs_grad = Flat<DType>(out[1]);
    if constexpr (kind == BinaryKind::kAdd) {
      Assign(lhs_grad, req[0], F<op::identity>(og));
      Assign(rhs_grad, req[1], F<op::identity>(og));
    } else if constexpr (kind == BinaryKind::kSub) {
      Assign(lhs_grad, req[0], F<op::identity>(og));
      Assign(rhs_grad, req[1], F<op::negation>(og));
    } else if constexpr (kind == BinaryKind::kMul) {
      Assign(lhs_grad, req[0], og * Flat<DType>(in[2]));
      Assign(rhs_grad, req[1], og * Flat<DType>(in[1]));
    } else {
      auto lhs = Flat<DType>(in[1]);
      auto rhs = Flat<DType>(in[2]);
      Assign(lhs_grad, req[0], og / rhs);
      Assign(rhs_grad, req[1], F<op::negation>(og) * lhs / (rhs * rhs));
    }
  });
}

template <typename OP, BinaryKind kind>
void DefineBinary(const std::string& name, const std::string& description) {
  const bool uses_inputs = kind == BinaryKind::kMul || kind == BinaryKind::kDiv;
  const std::string backward = "_backward_" + name;
  Op& forward = RegisterOp(name)
                    .describe(description)
                    .set_num_inputs(2)
                    .set_num_outputs(1)
                    .add_argument("lhs", "NDArray-or-Symbol", "First input.")
                    .add_argument("rhs", "NDArray-or-Symbol", "Second input, same shape.")
                    .set_attr<FInferShape>("FInferShape", ElemwiseShape<2, 1>)
                    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
                    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);
  forward.set_attr<FCompute>("FCompute<cpu>", FCompute(BinaryCompute<OP>));
  SetGradient(forward, backward, uses_inputs, false);
  Op& grad = RegisterBackwardOp(backward, uses_inputs ? 3 : 1, 2).describe("Gradient of " + name + ".");
  grad.set_attr<FCompute>("FCompute<cpu>", FCompute(BinaryBackwardCompute<kind>));
}

// ---- With a scalar.

struct ScalarParam : public dmlc::Parameter<ScalarParam> {
  double scalar;
  DMLC_DECLARE_PARAMETER(ScalarParam) {
    DMLC_DECLARE_FIELD(scalar).describe("The scalar operand.");
  }
};

enum class ScalarKind { kPlus, kMinus, kRMinus, kMul, kDiv, kRDiv };

template <ScalarKind kind>
void ScalarCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const double s = GetParam<ScalarParam>(attrs).scalar;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto x = Flat<DType>(in[0]);
    auto y = Flat<DType>(out[0]);
    const DType scalar = static_cast<DType>(s);
    switch (kind) {
      case ScalarKind::kPlus: Assign(y, req[0], x + scalar); break;
      case ScalarKind::kMinus: Assign(y, req[0], x - scalar); break;
      case ScalarKind::kRMinus: Assign(y, req[0], scalar - x); break;
      case ScalarKind::kMul: Assign(y, req[0], x * scalar); break;
      case ScalarKind::kDiv: Assign(y, req[0], x / scalar); break;
      case ScalarKind::kRDiv: Assign(y, req[0], scalar / x); break;
    }
  });
}

// Inputs: out_grad [, x for _rdiv_scalar].
template <ScalarKind kind>
void ScalarBackwardCompute(const NodeAttrs& attrs, const OpContext&,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  const double s = GetParam<ScalarParam>(attrs).scalar;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto og = Flat<DType>(in[0]);
    auto ig = Flat<DType>(out[0]);
    const DType scalar = static_cast<DType>(s);
    switch (kind) {
      case ScalarKind::kPlus:
      case ScalarKind::kMinus: Assign(ig, req[0], F<op::identity>(og)); break;
      case ScalarKind::kRMinus: Assign(ig, req[0], F<op::negation>(og)); break;
      case ScalarKind::kMul: Assign(ig, req[0], og * scalar); break;
      case ScalarKind::kDiv: Assign(ig, req[0], og / scalar); break;
      case ScalarKind::kRDiv: {
        auto x = Flat<DType>(in[1]);
        Assign(ig, req[0], F<op::negation>(og) * scalar / (x * x));
        break;
      }
    }
  });
}

template <ScalarKind kind>
void DefineScalar(const std::string& name, const std::string& description) {
  const bool uses_input = kind == ScalarKind::kRDiv;
  const std::string backward = "_backward" + name;
  Op& forward = RegisterOp(name)
                    .describe(description)
                    .set_num_inputs(1)
                    .set_num_outputs(1)
                    .add_argument("data", "NDArray-or-Symbol", "The input array.")
                    .add_arguments(ScalarParam::__FIELDS__())
                    .set_attr_parser(ParamParser<ScalarParam>)
                    .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
                    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
                    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);
  forward.set_attr<FCompute>("FCompute<cpu>", FCompute(ScalarCompute<kind>));
  SetGradient(forward, backward, uses_input, false);
  Op& grad = RegisterBackwardOp(backward, uses_input ? 2 : 1, 1)
                 .describe("Gradient of " + name + ".")
                 .set_attr_parser(ParamParser<ScalarParam>);
  grad.set_attr<FCompute>("FCompute<cpu>", FCompute(ScalarBackwardCompute<kind>));
}

const bool kRegistered = [] {
  DefineBinary<op::plus, BinaryKind::kAdd>("elemwise_add", "lhs + rhs, elementwise.");
  DefineBinary<op::minus, BinaryKind::kSub>("elemwise_sub", "lhs - rhs, elementwise.");
  DefineBinary<op::mul, BinaryKind::kMul>("elemwise_mul", "lhs * rhs, elementwise.");
  DefineBinary<op::div, BinaryKind::kDiv>("elemwise_div", "lhs / rhs, elementwise.");
  DefineScalar<ScalarKind::kPlus>("_plus_scalar", "data + scalar.");
  DefineScalar<ScalarKind::kMinus>("_minus_scalar", "data - scalar.");
  DefineScalar<ScalarKind::kRMinus>("_rminus_scalar", "scalar - data.");
  DefineScalar<ScalarKind::kMul>("_mul_scalar", "data * scalar.");
  DefineScalar<ScalarKind::kDiv>("_div_scalar", "data / scalar.");
  DefineScalar<ScalarKind::kRDiv>("_rdiv_scalar", "scalar / data.");
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(ScalarParam);

}  // namespace ops
