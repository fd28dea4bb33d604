// Binary elementwise operators on equal shapes (elemwise_add, _sub, _mul, _div) and with a
// scalar (_plus_scalar, ...), each with its backward operator. Their kernels, for every
// device: elemwise_binary-inl.h; FCompute<gpu>: elemwise_binary.cu.
#include <string>

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
  SetBinaryCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(ScalarParam);

}  // namespace binary
}  // namespace ops
