// argmax, argmin and argmax_channel (arg_reduce-inl.h): shape inference and the CPU
// registration; FCompute<gpu>: arg_reduce.cu.
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ops/arg_reduce-inl.h"

namespace ops {
namespace arg_reduce {

DMLC_REGISTER_PARAMETER(ArgReduceParam);

namespace {

// The data's shape without the axis (or with it as 1); without an axis (1,), or all ones of
// the data's rank with keepdims.
bool ArgReduceShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const ArgReduceParam& param = GetParam<ArgReduceParam>(attrs);
  std::vector<index_t> dims(data.begin(), data.end());
  if (!param.axis.has_value()) {
    dims.assign(param.keepdims ? data.ndim() : 1, 1);
  } else {
    const int axis = NormalizeAxis(param.axis.value(), data.ndim());
    if (param.keepdims) {
      dims[axis] = 1;
    } else {
      dims.erase(dims.begin() + axis);
    }
    if (dims.empty()) dims.push_back(1);
  }
  const TShape result(dims.begin(), dims.end());
  // An output position whose line has no element has no answer (its search would read
  // outside the data).
  const index_t extent =
      param.axis.has_value() ? data[NormalizeAxis(param.axis.value(), data.ndim())] : data.Size();
  if (extent == 0 && result.Size() > 0) {
    std::ostringstream os;
    os << attrs.op->name << ": data " << data
       << " has no element to compare along the axis, but the output " << result
       << " is not empty";
    throw dmlc::Error(os.str());
  }
  AssignOutputShape(out, 0, result);
  return true;
}

void DefineArgReduce(const std::string& name, const std::string& description) {
  Op& op = RegisterOp(name);
  SetZeroGradient(op, "_backward_" + name, ParamParser<ArgReduceParam>);
  op.describe(description + " The index is in the data's type; its gradient is zero.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input array.")
      .add_arguments(ArgReduceParam::__FIELDS__())
      .set_attr_parser(ParamParser<ArgReduceParam>)
      .set_attr<FInferShape>("FInferShape", ArgReduceShape)
      .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>);
}

// argmax_channel takes no parameters: argmax along axis 1, as MXNet's.
void ParseArgmaxChannel(NodeAttrs* attrs) {
  if (!attrs->dict.empty()) {
    throw dmlc::ParamError("argmax_channel takes no parameters, got " + attrs->dict.begin()->first);
  }
  ArgReduceParam param;
  param.Init(std::map<std::string, std::string>{{"axis", "1"}});
  attrs->parsed = std::move(param);
}

const bool kRegistered = [] {
  DefineArgReduce("argmax", "The index of the first maximum along axis.");
  DefineArgReduce("argmin", "The index of the first minimum along axis.");
  // No gradient, as MXNet registers none for it.
  RegisterOp("argmax_channel")
      .describe("The index of the first maximum along axis 1 (the channels).")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input array.")
      .set_attr_parser(ParseArgmaxChannel)
      .set_attr<FInferShape>("FInferShape", ArgReduceShape)
      .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>);
  SetArgReduceCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace arg_reduce
}  // namespace ops
