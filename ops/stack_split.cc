// stack, split (SliceChannel) and _split_v2 with their backward operators: shape inference and the
// CPU registration. The computation, for every device: stack_split-inl.h; FCompute<gpu>:
// stack_split.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/stack_split-inl.h"

namespace ops {
namespace stack_split {

DMLC_REGISTER_PARAMETER(StackParam);
DMLC_REGISTER_PARAMETER(SplitParam);
DMLC_REGISTER_PARAMETER(SplitV2Param);

namespace {

uint32_t StackInputs(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(GetParam<StackParam>(attrs).num_args);
}

uint32_t SplitOutputs(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(GetParam<SplitParam>(attrs).num_outputs);
}

std::vector<std::string> StackInputNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  for (uint32_t i = 0; i < StackInputs(attrs); ++i) names.push_back("arg" + std::to_string(i));
  return names;
}

// Every input of the first's shape; the result has num_args on the new axis.
bool StackShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape known;
  for (const TShape& s : *in) {
    if (ShapeIsKnown(s)) known = s;
  }
  if (!ShapeIsKnown(known)) return false;
  for (size_t i = 0; i < in->size(); ++i) AssignInputShape(in, static_cast<int>(i), known);
  const StackParam& param = GetParam<StackParam>(attrs);
  std::vector<index_t> dims(known.begin(), known.end());
  dims.insert(dims.begin() + NormalizeAxis(param.axis, known.ndim() + 1), param.num_args);
  AssignOutputShape(out, 0, TShape(dims.begin(), dims.end()));
  return true;
}

// A part's shape squeezed: `axis` dropped, (1) where nothing is left (shapes have rank >= 1).
TShape WithoutAxis(const TShape& part, int axis) {
  std::vector<index_t> dims(part.begin(), part.end());
  dims.erase(dims.begin() + axis);
  if (dims.empty()) dims.push_back(1);
  return TShape(dims.begin(), dims.end());
}

bool SplitShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const SplitParam& param = GetParam<SplitParam>(attrs);
  const int axis = NormalizeAxis(param.axis, data.ndim());
  if (data[axis] % param.num_outputs != 0) {
    std::ostringstream os;
    os << "cannot split axis " << param.axis << " of " << data << " (extent " << data[axis]
       << ") into " << param.num_outputs << " equal parts";
    throw dmlc::Error(os.str());
  }
  TShape part = SplitView(param, data).parts[0];
  if (param.squeeze_axis) {
    if (part[axis] != 1) {
      std::ostringstream os;
      os << "squeeze_axis needs parts of extent 1 on the axis; splitting " << data << " into "
         << param.num_outputs << " gives " << part[axis];
      throw dmlc::Error(os.str());
    }
    part = WithoutAxis(part, axis);
  }
  for (uint32_t i = 0; i < SplitOutputs(attrs); ++i) AssignOutputShape(out, static_cast<int>(i), part);
  return true;
}

// sections, or indices that start at 0 and never decrease.
void ParseSplitV2(NodeAttrs* attrs) {
  ParamParser<SplitV2Param>(attrs);
  const SplitV2Param& param = GetParam<SplitV2Param>(*attrs);
  if (param.sections > 0) return;
  const TShape& starts = param.indices;
  std::ostringstream os;
  os << "_split_v2: indices " << starts;
  if (starts.ndim() == 0) {
    os << " with sections 0 name no parts; give sections > 0 or indices starting at 0";
    throw dmlc::ParamError(os.str());
  }
  if (starts[0] != 0) {
    os << " start at " << starts[0] << "; the first part starts at 0, so must indices";
    throw dmlc::ParamError(os.str());
  }
  for (int p = 1; p < starts.ndim(); ++p) {
    if (starts[p] < starts[p - 1]) {
      os << " decrease at position " << p << " (" << starts[p - 1] << " then " << starts[p]
         << "); valid: non-decreasing positions";
      throw dmlc::ParamError(os.str());
    }
  }
}

uint32_t SplitV2Outputs(const NodeAttrs& attrs) {
  const SplitV2Param& param = GetParam<SplitV2Param>(attrs);
  return static_cast<uint32_t>(param.sections > 0 ? param.sections : param.indices.ndim());
}

bool SplitV2Shape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const SplitV2Param& param = GetParam<SplitV2Param>(attrs);
  const int axis = NormalizeAxis(param.axis, data.ndim());
  const std::vector<TShape> parts = SplitV2View(param, data).parts;
  for (size_t p = 0; p < parts.size(); ++p) {
    TShape part = parts[p];
    if (param.squeeze_axis) {
      if (part[axis] != 1) {
        std::ostringstream os;
        os << "_split_v2: squeeze_axis needs parts of extent 1 on the axis; part " << p << " of "
           << data << " has extent " << part[axis];
        throw dmlc::Error(os.str());
      }
      part = WithoutAxis(part, axis);
    }
    AssignOutputShape(out, static_cast<int>(p), part);
  }
  return true;
}

const bool kRegistered = [] {
  SetStackSplitCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(stack)
    .describe("Joins num_args arrays of one shape along a new axis.")
    .set_num_inputs(StackInputs)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol[]", "The arrays to stack (arg0, arg1, ...).")
    .add_arguments(StackParam::__FIELDS__())
    .set_attr_parser(ParamParser<StackParam>)
    .set_attr<FListInputNames>("FListInputNames", StackInputNames)
    .set_attr<FInferShape>("FInferShape", StackShape)
    .set_attr<FInferType>("FInferType", SameRealType)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_stack", false, false});

OPS_REGISTER_OP(_backward_stack)
    .describe("Gradient of stack.")
    .set_num_inputs(1)
    .set_num_outputs(StackInputs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<StackParam>);

OPS_REGISTER_OP(SliceChannel)
    .describe("Cuts the data into num_outputs equal parts along axis (alias split).")
    .add_alias("split")
    .set_num_inputs(1)
    .set_num_outputs(SplitOutputs)
    .add_argument("data", "NDArray-or-Symbol", "The array to cut.")
    .add_arguments(SplitParam::__FIELDS__())
    .set_attr_parser(ParamParser<SplitParam>)
    .set_attr<FInferShape>("FInferShape", SplitShape)
    .set_attr<FInferType>("FInferType", SameRealType)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_SliceChannel", false, false});

OPS_REGISTER_OP(_backward_SliceChannel)
    .describe("Gradient of SliceChannel.")
    .set_num_inputs(SplitOutputs)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<SplitParam>);

OPS_REGISTER_OP(_split_v2)
    .describe(
        "Cuts the data along axis at the positions in indices, or into sections parts of "
        "near-equal extent (NumPy's array_split); parts may be empty.")
    .set_num_inputs(1)
    .set_num_outputs(SplitV2Outputs)
    .add_argument("data", "NDArray-or-Symbol", "The array to cut.")
    .add_arguments(SplitV2Param::__FIELDS__())
    .set_attr_parser(ParseSplitV2)
    .set_attr<FInferShape>("FInferShape", SplitV2Shape)
    .set_attr<FInferType>("FInferType", SameRealType)
    .set_attr<FGradient>("FGradient", FGradient{"_split_v2_backward", false, false});

OPS_REGISTER_OP(_split_v2_backward)
    .describe("Gradient of _split_v2.")
    .set_num_inputs(SplitV2Outputs)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParseSplitV2);

}  // namespace stack_split
}  // namespace ops
