// _contrib_arange_like and _contrib_index_array: arrays of positions over their input's shape
// (its values are not read), with MXNet's zero gradients. Shapes and types are here; the
// values, for every device: positions-inl.h; FCompute<gpu>: positions.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/infer.h"
#include "ops/infer_util.h"
#include "ops/positions-inl.h"

namespace ops {
namespace positions {

DMLC_REGISTER_PARAMETER(ArangeLikeParam);
DMLC_REGISTER_PARAMETER(IndexArrayParam);

CoordinateLayout CoordinateLayoutOf(const IndexArrayParam& p, const TShape& data) {
  CoordinateLayout l;
  l.ndim = static_cast<int>(data.ndim());
  if (l.ndim > CoordinateLayout::kMaxAxes) {
    throw dmlc::Error("data has " + std::to_string(l.ndim) + " axes; valid: at most " +
                      std::to_string(CoordinateLayout::kMaxAxes));
  }
  for (int d = 0; d < l.ndim; ++d) l.extent[d] = data[d];
  if (!p.axes.has_value()) {
    l.picked = l.ndim;
    for (int d = 0; d < l.ndim; ++d) l.axis[d] = d;
    return l;
  }
  const TShape& axes = p.axes.value();
  if (static_cast<int>(axes.ndim()) > CoordinateLayout::kMaxAxes) {
    throw dmlc::Error("axes " + ShapeText(axes) + " names more than " +
                      std::to_string(CoordinateLayout::kMaxAxes) + " axes");
  }
  l.picked = static_cast<int>(axes.ndim());
  for (int a = 0; a < l.picked; ++a) l.axis[a] = NormalizeAxis(axes[a], l.ndim, "axes");
  return l;
}

namespace {

// The input's shape, or its length along `axis`.
bool ArangeLikeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const dmlc::optional<int>& axis = GetParam<ArangeLikeParam>(attrs).axis;
  if (!axis.has_value()) {
    AssignOutputShape(out, 0, data);
  } else {
    AssignOutputShape(out, 0, TShape{data[NormalizeAxis(axis.value(), data.ndim())]});
  }
  return true;
}

// The input's shape and one more axis of the picked axes' count.
bool IndexArrayShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const CoordinateLayout l = CoordinateLayoutOf(GetParam<IndexArrayParam>(attrs), data);
  std::vector<index_t> dims(data.begin(), data.end());
  dims.push_back(l.picked);
  AssignOutputShape(out, 0, TShape(dims.begin(), dims.end()));
  return true;
}

bool IndexArrayType(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
  if ((*in)[0] == -1) return false;
  AssignOutputType(out, 0, mshadow::kInt64);
  return true;
}

const bool kRegistered = [] {
  Op& arange = RegisterOp("_contrib_arange_like");
  arange
      .describe(
          "start + step * (i / repeat) for every element i of data's shape (row-major), or, "
          "with axis, for each position along that axis; in data's type.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The array whose shape (and type) is taken.")
      .add_arguments(ArangeLikeParam::__FIELDS__())
      .set_attr_parser(ParamParser<ArangeLikeParam>)
      .set_attr<FInferShape>("FInferShape", ArangeLikeShape)
      .set_attr<FInferType>("FInferType", ElemwiseType<1, 1>);
  SetZeroGradient(arange, "_backward_contrib_arange_like", ParamParser<ArangeLikeParam>);
  Op& index = RegisterOp("_contrib_index_array");
  index
      .describe(
          "Every element's coordinates along `axes` (every axis by default), int64: shape "
          "data.shape + (number of axes,).")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The array whose shape is taken.")
      .add_arguments(IndexArrayParam::__FIELDS__())
      .set_attr_parser(ParamParser<IndexArrayParam>)
      .set_attr<FInferShape>("FInferShape", IndexArrayShape)
      .set_attr<FInferType>("FInferType", IndexArrayType);
  SetZeroGradient(index, "_backward_contrib_index_array", ParamParser<IndexArrayParam>);
  SetPositionsCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace positions
}  // namespace ops
