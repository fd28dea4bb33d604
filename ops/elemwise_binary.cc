// Binary elementwise operators on equal shapes (elemwise_add, _sub, _mul, _div) and with a
// scalar (_plus_scalar, ...), each with its backward operator. Their kernels, for every
// device: elemwise_binary-inl.h; FCompute<gpu>: elemwise_binary.cu.
#include <string>
#include <utility>
#include <vector>

#include "ops/elemwise_binary-inl.h"

namespace ops {
namespace binary {
namespace {

void DefineElemwise(const std::string& name, const std::string& description,
                    bool grad_reads_operands) {
  const std::string backward = "_backward_" + name;
  Op& forward = RegisterOp(name)
                    .describe(description)
                    .set_num_inputs(2)
                    .set_num_outputs(1)
                    .add_argument("lhs", "NDArray-or-Symbol", "First input.")
                    .add_argument("rhs", "NDArray-or-Symbol", "Second input, same shape.")
                    .set_attr<FInferShape>("FInferShape", ElemwiseShape<2, 1>)
                    .set_attr<FInferType>("FInferType", ElemwiseFloatType<2, 1>)
                    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);
  forward.set_attr<FGradient>("FGradient", FGradient{backward, grad_reads_operands, false});
  RegisterOp(backward)
      .set_num_inputs(grad_reads_operands ? 3 : 1)
      .set_num_outputs(2)
      .set_attr<bool>("TIsBackward", true)
      .describe("Gradient of " + name + ".");
}

void DefineScalar(const std::string& name, const std::string& description, bool reads_data) {
  const std::string backward = ScalarBackwardName(name);
  Op& forward = RegisterOp(name)
                    .describe(description)
                    .set_num_inputs(1)
                    .set_num_outputs(1)
                    .add_argument("data", "NDArray-or-Symbol", "The input array.")
                    .add_arguments(ScalarParam::__FIELDS__())
                    .set_attr_parser(ParamParser<ScalarParam>)
                    .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
                    .set_attr<FInferType>("FInferType", ElemwiseFloatType<1, 1>)
                    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);
  forward.set_attr<FGradient>("FGradient", FGradient{backward, reads_data, false});
  RegisterOp(backward)
      .describe("Gradient of " + name + ".")
      .set_num_inputs(reads_data ? 2 : 1)
      .set_num_outputs(1)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParamParser<ScalarParam>);
}

const bool kRegistered = [] {
  ForEachElemwise([](auto op, const std::string& name, const std::string& description) {
    DefineElemwise(name, description, decltype(op)::type::kGradReadsOperands);
  });
  ForEachScalar([](auto, auto, auto reads_data, const std::string& name,
                   const std::string& description) {
    DefineScalar(name, description, decltype(reads_data)::value);
  });
  // MXNet's older names, which its symbol files still carry.
  const std::pair<const char*, std::vector<const char*>> legacy_names[] = {
      {"elemwise_add", {"_add", "_plus", "_Plus", "_grad_add"}},
      {"elemwise_sub", {"_sub", "_minus", "_Minus"}},
      {"elemwise_mul", {"_mul", "_Mul"}},
      {"elemwise_div", {"_div", "_Div"}},
      {"_maximum", {"_Maximum"}},
      {"_minimum", {"_Minimum"}},
      {"_power", {"_Power"}},
      {"_hypot", {"_Hypot"}},
      {"_mod", {"_Mod"}},
      {"_equal", {"_Equal"}},
      {"_not_equal", {"_Not_Equal"}},
      {"_greater", {"_Greater"}},
      {"_greater_equal", {"_Greater_Equal"}},
      {"_lesser", {"_Lesser"}},
      {"_lesser_equal", {"_Lesser_Equal"}},
      {"_logical_and", {"_Logical_And"}},
      {"_logical_or", {"_Logical_Or"}},
      {"_logical_xor", {"_Logical_Xor"}},
      {"_plus_scalar", {"_PlusScalar"}},
      {"_minus_scalar", {"_MinusScalar"}},
      {"_rminus_scalar", {"_RMinusScalar"}},
      {"_mul_scalar", {"_MulScalar"}},
      {"_div_scalar", {"_DivScalar"}},
      {"_rdiv_scalar", {"_RDivScalar"}},
      {"_maximum_scalar", {"_MaximumScalar"}},
      {"_minimum_scalar", {"_MinimumScalar"}},
      {"_power_scalar", {"_PowerScalar"}},
      {"_rpower_scalar", {"_RPowerScalar"}},
      {"_hypot_scalar", {"_HypotScalar"}},
      {"_mod_scalar", {"_ModScalar"}},
      {"_rmod_scalar", {"_RModScalar"}},
      {"_equal_scalar", {"_EqualScalar"}},
      {"_not_equal_scalar", {"_NotEqualScalar"}},
      {"_greater_scalar", {"_GreaterScalar"}},
      {"_greater_equal_scalar", {"_GreaterEqualScalar"}},
      {"_lesser_scalar", {"_LesserScalar"}},
      {"_lesser_equal_scalar", {"_LesserEqualScalar"}},
      {"_logical_and_scalar", {"_LogicalAndScalar"}},
      {"_logical_or_scalar", {"_LogicalOrScalar"}},
      {"_logical_xor_scalar", {"_LogicalXorScalar"}},
  };
  for (const auto& [name, aliases] : legacy_names) {
    for (const char* alias : aliases) RegisterOp(name).add_alias(alias);
  }
  SetBinaryCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(ScalarParam);

}  // namespace binary
}  // namespace ops
