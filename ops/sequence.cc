// SequenceMask, SequenceLast and SequenceReverse (sequence-inl.h): shape and type inference and
// the CPU registration; FCompute<gpu>: sequence.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/sequence-inl.h"

namespace ops {
namespace sequence {

DMLC_REGISTER_PARAMETER(SequenceMaskParam);
DMLC_REGISTER_PARAMETER(SequenceLastParam);
DMLC_REGISTER_PARAMETER(SequenceReverseParam);

namespace {

// data (T, B, ...) or (B, T, ...); sequence_length (B,). The output: the data's shape, or
// SequenceLast's without the sequence axis.
template <typename Param>
bool SequenceShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const Param& param = GetParam<Param>(attrs);
  if (data.ndim() < 2) {
    std::ostringstream os;
    os << attrs.op->name << ": data " << data << " must have at least 2 axes ("
       << (param.axis == 0 ? "steps, batch" : "batch, steps") << ", ...)";
    throw dmlc::Error(os.str());
  }
  if (std::is_same_v<Param, SequenceLastParam> && data[param.axis] == 0) {
    std::ostringstream os;
    os << "SequenceLast: data " << data << " has no steps along axis " << param.axis
       << " to take the last of";
    throw dmlc::Error(os.str());
  }
  if (param.use_sequence_length) AssignInputShape(in, 1, TShape{data[1 - param.axis]});
  TShape result = data;
  if (std::is_same_v<Param, SequenceLastParam>) {
    std::vector<index_t> dims(data.begin(), data.end());
    dims.erase(dims.begin() + param.axis);
    result = TShape(dims.begin(), dims.end());
  }
  AssignOutputShape(out, 0, result);
  return true;
}

// The data's type out; the lengths in float32, float64, int32 or int64.
bool SequenceType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int data = (*in)[0];
  if (data == -1) return false;
  CheckRealType(data);
  if (in->size() > 1 && (*in)[1] != -1 && !IsIndexType((*in)[1])) {
    throw dmlc::Error(attrs.op->name + ": sequence_length has type " +
                      mshadow::TypeFlagName((*in)[1]) +
                      "; it must be float32, float64, int32 or int64");
  }
  if (in->size() > 1 && (*in)[1] == -1) AssignInputType(in, 1, data);
  AssignOutputType(out, 0, data);
  return true;
}

template <typename Param>
std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  if (GetParam<Param>(attrs).use_sequence_length) return {"data", "sequence_length"};
  return {"data"};
}

template <typename Param>
void DefineSequenceOp(const std::string& name, const std::string& description) {
  Op& op = RegisterOp(name)
               .describe(description)
               .set_num_outputs(1)
               .add_argument("data", "NDArray-or-Symbol",
                             "(steps, batch, ...) for axis 0, (batch, steps, ...) for axis 1.")
               .add_argument("sequence_length", "NDArray-or-Symbol",
                             "(batch,): each sequence's length (with use_sequence_length).")
               .set_attr<FInferType>("FInferType", SequenceType)
               .set_attr<FGradient>("FGradient", FGradient{"_backward_" + name, true, false});
  // One call a statement: a call with a dependent argument returns a dependent type.
  op.set_num_inputs(NumInputs<Param>);
  op.set_attr<FInferShape>("FInferShape", SequenceShape<Param>);
  op.set_attr<FListInputNames>("FListInputNames", InputNames<Param>);
  op.add_arguments(Param::__FIELDS__());
  op.set_attr_parser(ParamParser<Param>);
  Op& grad = RegisterOp("_backward_" + name)
                 .describe("Gradient of " + name + "; the lengths get none (zeros).")
                 .set_attr<bool>("TIsBackward", true);
  grad.set_num_inputs([](const NodeAttrs& attrs) { return NumInputs<Param>(attrs) + 1; });
  grad.set_num_outputs(NumInputs<Param>);
  grad.set_attr_parser(ParamParser<Param>);
}

const bool kRegistered = [] {
  DefineSequenceOp<SequenceMaskParam>(
      "SequenceMask", "Each sequence's steps from its length on replaced by value.");
  DefineSequenceOp<SequenceLastParam>(
      "SequenceLast", "Each sequence's last step (at its length - 1), without the step axis.");
  DefineSequenceOp<SequenceReverseParam>(
      "SequenceReverse", "Each sequence's first length steps in reverse order, the rest kept.");
  SetSequenceCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace sequence
}  // namespace ops
