// Concat(dim, num_args): joins arrays along an axis; its backward operator splits the
// gradient. _rnn_param_concat: the same, with one input's shape inferable from the output's.
// Kernels, for every device: concat-inl.h; FCompute<gpu>: concat.cu.
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ops/concat-inl.h"

namespace ops {
namespace concat {

DMLC_REGISTER_PARAMETER(ConcatParam);

namespace {

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  for (int i = 0; i < GetParam<ConcatParam>(attrs).num_args; ++i) {
    names.push_back("arg" + std::to_string(i));
  }
  return names;
}

// Whether a and b have the same rank and extents on every axis but `axis`.
bool SameExceptAlong(const TShape& a, const TShape& b, int axis) {
  if (a.ndim() != b.ndim()) return false;
  for (index_t d = 0; d < a.ndim(); ++d) {
    if (d != axis && a[d] != b[d]) return false;
  }
  return true;
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
    if (!SameExceptAlong(s, first, axis)) {
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

// _rnn_param_concat's: Concat's where every input is known; otherwise, from a known output,
// the one input of unknown shape is what the output leaves along dim (MXNet builds an RNN's
// parameter vector so, the vector's length inferred from the RNN).
bool RnnParamConcatShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                         std::vector<TShape>* out) {
  std::vector<size_t> unknown;
  for (size_t i = 0; i < in->size(); ++i) {
    if (!ShapeIsKnown((*in)[i])) unknown.push_back(i);
  }
  if (unknown.empty()) return ConcatShape(attrs, in, out);
  const TShape& whole = (*out)[0];
  if (unknown.size() > 1 || !ShapeIsKnown(whole)) return false;
  const int axis =
      NormalizeAxis(GetParam<ConcatParam>(attrs).dim, static_cast<int>(whole.ndim()), "dim");
  TShape rest = whole;
  for (size_t i = 0; i < in->size(); ++i) {
    if (i == unknown[0]) continue;
    const TShape& s = (*in)[i];
    if (!SameExceptAlong(s, whole, axis)) {
      std::ostringstream os;
      os << "input arg" << i << " has shape " << s << ", which does not match the output's "
         << whole << " on every axis but " << axis;
      throw dmlc::Error(os.str());
    }
    rest[axis] -= s[axis];
    if (rest[axis] < 0) {
      std::ostringstream os;
      os << "the known inputs are longer along dim " << axis << " than the output " << whole;
      throw dmlc::Error(os.str());
    }
  }
  AssignInputShape(in, static_cast<int>(unknown[0]), rest);
  return ConcatShape(attrs, in, out);
}

uint32_t NumArgs(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(GetParam<ConcatParam>(attrs).num_args);
}

// Registers `name` (ConcatParam, shapes by `shape`) and its backward operator.
Op& DefineConcat(const std::string& name, const std::string& description, FInferShape shape) {
  const std::string backward = "_backward_" + name;
  RegisterOp(backward)
      .describe("Gradient of " + name + ": the output gradient split along dim.")
      .set_num_inputs(1)
      .set_num_outputs(NumArgs)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParamParser<ConcatParam>);
  return RegisterOp(name)
      .describe(description)
      .set_num_inputs(NumArgs)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol[]", "The arrays to join (arg0, arg1, ...).")
      .add_arguments(ConcatParam::__FIELDS__())
      .set_attr_parser(ParamParser<ConcatParam>)
      .set_attr<FListInputNames>("FListInputNames", InputNames)
      .set_attr<FInferShape>("FInferShape", std::move(shape))
      .set_attr<FInferType>("FInferType", SameRealType)
      .set_attr<FGradient>("FGradient", FGradient{backward, false, false});
}

const bool kDefined = [] {
  DefineConcat("Concat",
               "Joins num_args arrays along axis dim; they must agree on every other axis.",
               ConcatShape)
      .add_alias("concat");
  DefineConcat("_rnn_param_concat",
               "Concat as MXNet joins an RNN layer's parameters: one input's shape may be left "
               "unknown and is inferred from the output's.",
               RnnParamConcatShape);
  SetConcatCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace concat
}  // namespace ops
