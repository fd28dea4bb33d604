// take, pick, batch_take, fill_element_0index and one_hot (indexing-inl.h): shape and type
// inference, the CPU registration; FCompute<gpu>: indexing.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/indexing-inl.h"

namespace ops {
namespace indexing {

DMLC_REGISTER_PARAMETER(TakeParam);
DMLC_REGISTER_PARAMETER(PickParam);
DMLC_REGISTER_PARAMETER(OneHotParam);

namespace {

void CheckIndexType(const char* op, int type_flag) {
  if (type_flag != -1 && !IsIndexType(type_flag)) {
    throw dmlc::Error(std::string(op) + " indices of type " + mshadow::TypeFlagName(type_flag) +
                      " are not supported; valid: float32, float64, int32, int64");
  }
}

// Input 0 real, input 1 indices; the output has input 0's type.
template <const char* kOp>
bool DataAndIndexType(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
  CheckIndexType(kOp, (*in)[1]);
  const int type = (*in)[0] != -1 ? (*in)[0] : (*out)[0];
  if (type == -1) return false;
  CheckRealType(type);
  AssignInputType(in, 0, type);
  AssignOutputType(out, 0, type);
  return (*in)[1] != -1;
}
constexpr char kTake[] = "take";
constexpr char kPick[] = "pick";
constexpr char kBatchTake[] = "batch_take";
constexpr char kFillElement[] = "fill_element_0index";

// a.shape[:axis] + indices.shape + a.shape[axis + 1:].
// Selecting along an axis of no elements has nothing to read (mode clip or wrap would
// index outside the data): a dmlc::Error, unless there is nothing to output either.
void CheckSelectable(const char* op, const TShape& data, index_t extent, const TShape& out) {
  if (extent == 0 && out.Size() > 0) {
    std::ostringstream os;
    os << op << ": data " << data << " has no element to select along the axis, but the output "
       << out << " is not empty";
    throw dmlc::Error(os.str());
  }
}

bool TakeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  const TShape& indices = (*in)[1];
  if (!ShapeIsKnown(a) || !ShapeIsKnown(indices)) return false;
  const int axis = NormalizeAxis(GetParam<TakeParam>(attrs).axis, a.ndim());
  std::vector<index_t> dims(a.begin(), a.begin() + axis);
  dims.insert(dims.end(), indices.begin(), indices.end());
  dims.insert(dims.end(), a.begin() + axis + 1, a.end());
  const TShape result(dims.begin(), dims.end());
  CheckSelectable("take", a, a[axis], result);
  AssignOutputShape(out, 0, result);
  return true;
}

// The index (and output) shape: the data's without the axis, or with it as 1 (keepdims);
// (1,) without an axis.
TShape PickedShape(const PickParam& param, const TShape& data) {
  if (!param.axis.has_value()) return TShape{1};
  const int axis = NormalizeAxis(param.axis.value(), data.ndim());
  std::vector<index_t> dims(data.begin(), data.end());
  if (param.keepdims) {
    dims[axis] = 1;
  } else {
    dims.erase(dims.begin() + axis);
  }
  if (dims.empty()) dims.push_back(1);
  return TShape(dims.begin(), dims.end());
}

bool PickShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const PickParam& param = GetParam<PickParam>(attrs);
  const TShape picked = PickedShape(param, data);
  CheckSelectable(attrs.op->name.c_str(), data, PickView(param, data).n, picked);
  // The index may also keep the axis as 1 when the output drops it (same elements, same
  // order), as MXNet allows.
  PickParam kept = param;
  kept.keepdims = true;
  const TShape& index = (*in)[1];
  if (!(ShapeIsKnown(index) && index == PickedShape(kept, data))) AssignInputShape(in, 1, picked);
  AssignOutputShape(out, 0, picked);
  return true;
}

// lhs (rows, cols); mhs and rhs (rows): one value and one column per row.
bool FillElementShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& lhs = (*in)[0];
  if (!ShapeIsKnown(lhs)) return false;
  if (lhs.ndim() != 2) {
    std::ostringstream os;
    os << kFillElement << ": lhs " << lhs << " must be a matrix (rows, cols)";
    throw dmlc::Error(os.str());
  }
  const TShape per_row{lhs[0]};
  for (int i : {1, 2}) {
    if (ShapeIsKnown((*in)[i]) && (*in)[i] != per_row) {
      std::ostringstream os;
      os << kFillElement << ": " << (i == 1 ? "mhs " : "rhs ") << (*in)[i] << " must be " << per_row
         << ", one per row of lhs " << lhs;
      throw dmlc::Error(os.str());
    }
    AssignInputShape(in, i, per_row);
  }
  AssignOutputShape(out, 0, lhs);
  return true;
}

// lhs and mhs of one real type, the output's; rhs indices.
bool FillElementType(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
  CheckIndexType(kFillElement, (*in)[2]);
  int type = -1;
  for (int t : {(*in)[0], (*in)[1], (*out)[0]}) {
    if (type == -1) type = t;
  }
  if (type == -1) return false;
  CheckRealType(type);
  AssignInputType(in, 0, type);
  AssignInputType(in, 1, type);
  AssignOutputType(out, 0, type);
  return (*in)[2] != -1;
}

bool OneHotShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& indices = (*in)[0];
  if (!ShapeIsKnown(indices)) return false;
  std::vector<index_t> dims(indices.begin(), indices.end());
  dims.push_back(GetParam<OneHotParam>(attrs).depth);
  AssignOutputShape(out, 0, TShape(dims.begin(), dims.end()));
  return true;
}

bool OneHotType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  CheckIndexType("one_hot", (*in)[0]);
  AssignOutputType(out, 0, GetParam<OneHotParam>(attrs).dtype);
  return (*in)[0] != -1;
}

// batch_take takes no parameters: pick along the last axis with indices clipped, which are
// PickParam's defaults.
void ParseBatchTake(NodeAttrs* attrs) {
  if (!attrs->dict.empty()) {
    throw dmlc::ParamError("batch_take takes no parameters; got '" + attrs->dict.begin()->first +
                           "'");
  }
  ParamParser<PickParam>(attrs);
}

const bool kRegistered = [] {
  SetIndexingCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(take)
    .describe("Takes slices of a along axis at the given indices: the result's shape is "
              "a.shape[:axis] + indices.shape + a.shape[axis+1:]. Indices are truncated toward "
              "zero, then clipped, wrapped or checked (mode).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("a", "NDArray-or-Symbol", "The array to take from.")
    .add_argument("indices", "NDArray-or-Symbol", "The indices (float32/64 or int32/64).")
    .add_arguments(TakeParam::__FIELDS__())
    .set_attr_parser(ParamParser<TakeParam>)
    .set_attr<FInferShape>("FInferShape", TakeShape)
    .set_attr<FInferType>("FInferType", DataAndIndexType<kTake>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_take", true, false});

OPS_REGISTER_OP(_backward_take)
    .describe("Gradient of take: the output gradient added onto the slices it took.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<TakeParam>);

OPS_REGISTER_OP(pick)
    .add_alias("choose_element_0index")
    .describe(
        "Picks one element along axis at each position: out[i, k] = data[i, index[i, "
        "k], k] around the axis. Indices are truncated toward zero, then clipped or "
        "wrapped (mode).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The array to pick from.")
    .add_argument("index", "NDArray-or-Symbol",
                  "The positions along the axis, shaped like the data without it.")
    .add_arguments(PickParam::__FIELDS__())
    .set_attr_parser(ParamParser<PickParam>)
    .set_attr<FInferShape>("FInferShape", PickShape)
    .set_attr<FInferType>("FInferType", DataAndIndexType<kPick>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_pick", true, false});

OPS_REGISTER_OP(_backward_pick)
    .describe("Gradient of pick: the output gradient at the picked elements, zero elsewhere.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<PickParam>);

OPS_REGISTER_OP(batch_take)
    .describe(
        "out[i] = a[i, indices[i]]: pick along a's last axis, indices truncated toward zero and "
        "clipped to it (MXNet's deprecated form of pick; a has the indices' shape plus one "
        "axis). The gradient, which MXNet does not give, is pick's.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("a", "NDArray-or-Symbol", "The array to take from.")
    .add_argument("indices", "NDArray-or-Symbol", "The positions along a's last axis.")
    .set_attr_parser(ParseBatchTake)
    .set_attr<FInferShape>("FInferShape", PickShape)
    .set_attr<FInferType>("FInferType", DataAndIndexType<kBatchTake>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_batch_take", true, false});

OPS_REGISTER_OP(_backward_batch_take)
    .describe("Gradient of batch_take: the output gradient at the taken elements, zero elsewhere.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParseBatchTake);

OPS_REGISTER_OP(fill_element_0index)
    .describe(
        "lhs (rows, cols) with one element of each row replaced: out[r, rhs[r]] = mhs[r], lhs "
        "elsewhere. Indices are truncated toward zero; one outside the row is an error. Its "
        "gradient (MXNet 1.9.1 registers none) passes the output gradient to lhs but at the "
        "replaced elements, whose gradient goes to mhs.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("lhs", "NDArray-or-Symbol", "The matrix (rows, cols).")
    .add_argument("mhs", "NDArray-or-Symbol", "The new value of each row (rows).")
    .add_argument("rhs", "NDArray-or-Symbol", "The column replaced in each row (rows).")
    .set_attr<FInferShape>("FInferShape", FillElementShape)
    .set_attr<FInferType>("FInferType", FillElementType)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_fill_element_0index", true, false});

OPS_REGISTER_OP(_backward_fill_element_0index)
    .describe("Gradient of fill_element_0index in lhs and mhs (rhs's is zero).")
    .set_num_inputs(4)
    .set_num_outputs(3)
    .set_attr<bool>("TIsBackward", true);

OPS_REGISTER_OP(one_hot)
    .describe("One-hot encoding: shape indices.shape + (depth,), on_value at each index "
              "(truncated toward zero), off_value elsewhere and for indices outside [0, depth).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("indices", "NDArray-or-Symbol", "The class indices.")
    .add_arguments(OneHotParam::__FIELDS__())
    .set_attr_parser(ParamParser<OneHotParam>)
    .set_attr<FInferShape>("FInferShape", OneHotShape)
    .set_attr<FInferType>("FInferType", OneHotType);

const bool kOneHotGradient = [] {
  SetZeroGradient(RegisterOp("one_hot"), "_backward_one_hot", ParamParser<OneHotParam>);
  return true;
}();

}  // namespace indexing
}  // namespace ops
