// Concat(dim, num_args): joins arrays along an axis; its backward operator splits the
// gradient. Kernels, for every device: concat-inl.h; FCompute<gpu>: concat.cu.
#include <sstream>

#include "ops/concat-inl.h"

namespace ops {
namespace concat {
namespace {

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  for (int i = 0; i < GetParam<ConcatParam>(attrs).num_args; ++i) {
    names.push_back("arg" + std::to_string(i));
  }
  return names;
}

bool ConcatShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ConcatParam& param = GetParam<ConcatParam>(attrs);
  for (const TShape& s : *in) {
    if (!ShapeIsKnown(s)) return false;
  }
  const TShape& first = (*in)[0];
  const int axis = NormalizeAxis(param.dim, static_cast<int>(first.ndim()), "dim");
  TShape result = first;
  result[axis] = 0;
  for (size_t i = 0; i < in->size(); ++i) {
    const TShape& s = (*in)[i];
    bool compatible = s.ndim() == first.ndim();
    for (index_t d = 0; compatible && d < s.ndim(); ++d) compatible = d == axis || s[d] == first[d];
    if (!compatible) {
      std::ostringstream os;
      os << "input arg" << i << " has shape " << s << ", which does not match arg0's " << first
         << " on every axis but " << axis;
      throw dmlc::Error(os.str());
    }
    result[axis] += s[axis];
  }
  AssignOutputShape(out, 0, result);
  return true;
}

const bool kRegistered = [] {
  SetConcatCompute<cpu>();
  return true;
}();

uint32_t NumArgs(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(GetParam<ConcatParam>(attrs).num_args);
}

}  // namespace

DMLC_REGISTER_PARAMETER(ConcatParam);

OPS_REGISTER_OP(Concat)
    .add_alias("concat")
    .describe("Joins num_args arrays along axis dim; they must agree on every other axis.")
    .set_num_inputs(NumArgs)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol[]", "The arrays to join (arg0, arg1, ...).")
    .add_arguments(ConcatParam::__FIELDS__())
    .set_attr_parser(ParamParser<ConcatParam>)
    .set_attr<FListInputNames>("FListInputNames", InputNames)
    .set_attr<FInferShape>("FInferShape", ConcatShape)
    .set_attr<FInferType>("FInferType", SameRealType)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_Concat", false, false});

OPS_REGISTER_OP(_backward_Concat)
    .describe("Gradient of Concat.")
    .set_num_inputs(1)
    .set_num_outputs(NumArgs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<ConcatParam>);

}  // namespace concat
}  // namespace ops
