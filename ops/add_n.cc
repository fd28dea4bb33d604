// add_n / ElementWiseSum (add_n-inl.h): inference and the CPU registration; FCompute<gpu>:
// add_n.cu.
#include <string>
#include <vector>

#include "ops/add_n-inl.h"

namespace ops {
namespace add_n {

DMLC_REGISTER_PARAMETER(AddNParam);

namespace {

uint32_t NumArgs(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(GetParam<AddNParam>(attrs).num_args);
}

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  for (uint32_t i = 0; i < NumArgs(attrs); ++i) names.push_back("arg" + std::to_string(i));
  return names;
}

// Every input and the output of one shape and one real type.
bool SameShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape known = ShapeIsKnown((*out)[0]) ? (*out)[0] : TShape();
  for (const TShape& s : *in) {
    if (ShapeIsKnown(s)) known = s;
  }
  if (!ShapeIsKnown(known)) return false;
  for (size_t i = 0; i < in->size(); ++i) AssignInputShape(in, static_cast<int>(i), known);
  AssignOutputShape(out, 0, known);
  return true;
}

const bool kRegistered = [] {
  SetAddNCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(add_n)
    .describe("The elementwise sum of num_args arrays of one shape (alias ElementWiseSum).")
    .add_alias("ElementWiseSum")
    .set_num_inputs(NumArgs)
    .set_num_outputs(1)
    .add_argument("args", "NDArray-or-Symbol[]", "The arrays to add (arg0, arg1, ...).")
    .add_arguments(AddNParam::__FIELDS__())
    .set_attr_parser(ParamParser<AddNParam>)
    .set_attr<FListInputNames>("FListInputNames", InputNames)
    .set_attr<FInferShape>("FInferShape", SameShape)
    .set_attr<FInferType>("FInferType", SameRealType)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_add_n", false, false});

OPS_REGISTER_OP(_backward_add_n)
    .describe("Gradient of add_n: the output gradient, for every input.")
    .set_num_inputs(1)
    .set_num_outputs(NumArgs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<AddNParam>);

}  // namespace add_n
}  // namespace ops
