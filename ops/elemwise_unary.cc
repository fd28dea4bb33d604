// Unary elementwise operators (the list: ForEachUnary) and clip; each with its backward
// operator _backward_<name>. Their kernels, for every device:
// elemwise_unary-inl.h; FCompute<gpu>: elemwise_unary.cu.
#include <string>

#include "ops/elemwise_unary-inl.h"

namespace ops {
namespace unary {
namespace {

// Registers `name` and `_backward_<name>` (their FCompute<cpu>: SetUnaryCompute).
void DefineUnary(const std::string& name, const std::string& description, GradFrom from) {
  const std::string backward = "_backward_" + name;
  Op& op = RegisterOp(name)
               .describe(description)
               .set_num_inputs(1)
               .set_num_outputs(1)
               .add_argument("data", "NDArray-or-Symbol", "The input array.")
               .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
               .set_attr<FInferType>("FInferType", ElemwiseFloatType<1, 1>)
               .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);
  op.set_attr<FGradient>("FGradient",
                         FGradient{backward, from == GradFrom::kInput, from == GradFrom::kOutput});
  const uint32_t backward_inputs = from == GradFrom::kOutputGradOnly ? 1 : 2;
  RegisterOp(backward)
      .describe("Gradient of " + name + ".")
      .set_num_inputs(backward_inputs)
      .set_num_outputs(1)
      .set_attr<bool>("TIsBackward", true)
      .set_attr<FInferShape>("FInferShape",
                             backward_inputs == 1 ? ElemwiseShape<1, 1> : ElemwiseShape<2, 1>)
      .set_attr<FInferType>(
          "FInferType", backward_inputs == 1 ? ElemwiseFloatType<1, 1> : ElemwiseFloatType<2, 1>);
}

const bool kRegistered = [] {
  ForEachUnary([](auto, auto, const char* name, const char* description, GradFrom from) {
    DefineUnary(name, description, from);
  });
  RegisterOp("BlockGrad").add_alias("stop_gradient");
  SetUnaryCompute<cpu>();
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
    .set_attr<FGradient>("FGradient", FGradient{"_backward_clip", true, false});

OPS_REGISTER_OP(_backward_clip)
    .describe("Gradient of clip.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<ClipParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<2, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>);

}  // namespace unary
}  // namespace ops
