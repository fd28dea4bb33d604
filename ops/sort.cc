// topk, sort and argsort (sort-inl.h): the view, shape and type inference and the CPU
// registration; FCompute<gpu>: sort.cu.
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/sort-inl.h"

namespace ops {
namespace sort {

DMLC_REGISTER_PARAMETER(TopKParam);
DMLC_REGISTER_PARAMETER(SortParam);
DMLC_REGISTER_PARAMETER(ArgSortParam);

SortView ViewOf(const SortSpec& spec, const TShape& data, const char* op) {
  SortView v{1, static_cast<index_t>(data.Size()), 1, 0};
  if (spec.axis.has_value()) {
    const int axis = NormalizeAxis(spec.axis.value(), data.ndim());
    v = {data.ProdShape(0, axis), data[axis], data.ProdShape(axis + 1, data.ndim()), 0};
  }
  if (spec.k > v.n) {
    std::ostringstream os;
    os << op << ": k " << spec.k << " is more than the " << v.n << " elements of data " << data
       << (spec.axis.has_value() ? " along the axis" : "") << "; k must be at most " << v.n
       << ", or below 1 for all of them";
    throw dmlc::Error(os.str());
  }
  v.k = spec.k < 1 ? v.n : spec.k;
  return v;
}

namespace {

// The largest position each index type holds exactly.
int64_t LargestIndex(int type_flag) {
  switch (type_flag) {
    case mshadow::kFloat32:
      return int64_t{1} << 24;
    case mshadow::kFloat64:
      return int64_t{1} << 53;
    case mshadow::kInt32:
      return INT32_MAX;
    default:
      return INT64_MAX;
  }
}

template <typename Param>
bool SortShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const SortSpec spec = SpecOf<Param>(attrs);
  const SortView v = ViewOf(spec, data, attrs.op->name.c_str());
  if (spec.HasIndices() && v.n - 1 > LargestIndex(spec.dtype)) {
    std::ostringstream os;
    os << attrs.op->name << ": dtype " << mshadow::TypeFlagName(spec.dtype)
       << " cannot hold the positions of " << v.n << " elements exactly (at most "
       << LargestIndex(spec.dtype) + 1 << "); use int64 or float64";
    throw dmlc::Error(os.str());
  }
  TShape kept = data;  // the data with k along the axis; (k,) flattened
  if (spec.axis.has_value()) {
    kept[NormalizeAxis(spec.axis.value(), data.ndim())] = v.k;
  } else {
    kept = TShape{v.k};
  }
  AssignOutputShape(out, 0, spec.ret == kMask ? data : kept);
  if (spec.HasValues()) AssignOutputShape(out, 1, kept);
  return true;
}

// Values and masks in the data's type, indices in dtype, hidden positions int64.
template <typename Param>
bool SortType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int data = (*in)[0];
  if (data == -1) return false;
  CheckRealType(data);
  const SortSpec spec = SpecOf<Param>(attrs);
  AssignOutputType(out, 0, spec.ret == kIndices ? spec.dtype : data);
  if (spec.HasValues()) AssignOutputType(out, 1, spec.PositionType());
  return true;
}

template <typename Param>
uint32_t NumOutputs(const NodeAttrs& attrs) {
  return SpecOf<Param>(attrs).NumOutputs();
}

template <typename Param>
uint32_t NumVisibleOutputs(const NodeAttrs& attrs) {
  return SpecOf<Param>(attrs).NumVisibleOutputs();
}

template <typename Param>
void DefineSortOp(const std::string& name, const std::string& description, const char* backward) {
  Op& op = RegisterOp(name)
               .describe(description)
               .set_num_inputs(1)
               .set_num_outputs(NumOutputs<Param>)
               .set_num_visible_outputs(NumVisibleOutputs<Param>)
               .add_argument("data", "NDArray-or-Symbol", "The input array.");
  // One call a statement: a call with a dependent argument returns a dependent type.
  op.set_attr<FInferShape>("FInferShape", SortShape<Param>);
  op.set_attr<FInferType>("FInferType", SortType<Param>);
  op.add_arguments(Param::__FIELDS__());
  op.set_attr_parser(ParamParser<Param>);
  if constexpr (std::is_same_v<Param, ArgSortParam>) {
    SetZeroGradient(op, backward, ParamParser<Param>);
    return;
  }
  op.set_attr<FGradient>("FGradient", FGradient{backward, false, true});
  Op& grad = RegisterOp(backward)
                 .describe("Gradient of " + name +
                           ": each value's gradient back at the position the forward call "
                           "wrote beside it.")
                 .set_num_outputs(1)
                 .set_attr<bool>("TIsBackward", true);
  grad.set_num_inputs([](const NodeAttrs& attrs) { return 2 * NumOutputs<Param>(attrs); });
  grad.set_attr_parser(ParamParser<Param>);
}

const bool kRegistered = [] {
  DefineSortOp<TopKParam>(
      "topk",
      "The k largest (or, is_ascend, smallest) elements along axis, in order, ties by "
      "position: their values, indices, a mask, or values and indices (ret_typ). With "
      "ret_typ=value a second, hidden output holds the values' positions (int64) for the "
      "gradient.",
      "_backward_topk");
  DefineSortOp<SortParam>("sort",
                          "The data sorted along axis, stable (ties keep their order), NaN "
                          "after every number; a second, hidden output holds each value's "
                          "position (int64) for the gradient.",
                          "_backward_sort");
  DefineSortOp<ArgSortParam>("argsort",
                             "The positions that sort the data along axis (stable), in dtype; "
                             "its gradient is zero.",
                             "_backward_argsort");
  SetSortCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace sort
}  // namespace ops
