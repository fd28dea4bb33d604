// _ravel_multi_index (ravel_multi_index) and _unravel_index (unravel_index): flat indices from
// multi-indices in a row-major shape and back; zero gradients, as MXNet. Kernels, for every
// device: ravel-inl.h; FCompute<gpu>: ravel.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/ravel-inl.h"
#include "ops/registration_util.h"

namespace ops {
namespace ravel {
namespace {

void ParseRavel(NodeAttrs* attrs) {
  ParamParser<RavelParam>(attrs);
  const TShape& shape = GetParam<RavelParam>(*attrs).shape;
  bool positive = true;
  for (const index_t extent : shape) positive = positive && extent > 0;
  if (shape.ndim() < 1 || shape.ndim() > RavelShape::kMaxAxes || !positive) {
    std::ostringstream os;
    os << attrs->op->name << ": shape " << shape << " is not valid; valid: 1 to "
       << RavelShape::kMaxAxes << " positive extents";
    throw dmlc::ParamError(os.str());
  }
}

// ravel: (ndim, N) -> (N,).
bool RavelShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& shape = GetParam<RavelParam>(attrs).shape;
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  if (data.ndim() != 2 || data[0] != shape.ndim()) {
    std::ostringstream os;
    os << "ravel_multi_index: data has shape " << data << "; valid: (" << shape.ndim()
       << ", N), one multi-index of shape " << shape << " a column";
    throw dmlc::Error(os.str());
  }
  AssignOutputShape(out, 0, TShape{data[1]});
  return true;
}

// unravel: any shape S -> (ndim, *S).
bool UnravelShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& shape = GetParam<RavelParam>(attrs).shape;
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  std::vector<index_t> dims = {static_cast<index_t>(shape.ndim())};
  dims.insert(dims.end(), data.begin(), data.end());
  AssignOutputShape(out, 0, TShape(dims.begin(), dims.end()));
  return true;
}

// One of the seven numeric types (bfloat16 and bool are storage types, not indices).
bool IndexType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if (!ElemwiseType<1, 1>(attrs, in, out)) return false;
  const int type = out->at(0);
  if (type == mshadow::kBfloat16 || type == mshadow::kBool) {
    throw dmlc::Error("data type " + mshadow::TypeFlagName(type) +
                      " is not supported; valid: float32, float64, float16, uint8, int8, int32, "
                      "int64");
  }
  return true;
}

const bool kRegistered = [] {
  Op& ravel = RegisterOp("_ravel_multi_index");
  ravel.add_alias("ravel_multi_index")
      .describe(
          "Flat indices of multi-indices in a row-major `shape`: data (ndim, N), one "
          "multi-index a column, gives (N,); no range check (as MXNet).")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "Multi-indices, (ndim, N).")
      .add_arguments(RavelParam::__FIELDS__())
      .set_attr_parser(ParseRavel)
      .set_attr<FInferShape>("FInferShape", RavelShape)
      .set_attr<FInferType>("FInferType", IndexType);
  SetZeroGradient(ravel, "_backward_ravel_multi_index", ParseRavel);
  Op& unravel = RegisterOp("_unravel_index");
  unravel.add_alias("unravel_index")
      .describe(
          "Multi-indices in a row-major `shape` of flat indices of any shape S: (ndim, "
          "*S), as NumPy (MXNet 1.9.1 gives (ndim, S[0]) and drops the rest of a 2+-d "
          "input); no range check (as MXNet: the first axis takes what is left over).")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "Flat indices.")
      .add_arguments(RavelParam::__FIELDS__())
      .set_attr_parser(ParseRavel)
      .set_attr<FInferShape>("FInferShape", UnravelShape)
      .set_attr<FInferType>("FInferType", IndexType);
  SetZeroGradient(unravel, "_backward_unravel_index", ParseRavel);
  SetRavelCompute<cpu>();
  return true;
}();

}  // namespace
DMLC_REGISTER_PARAMETER(RavelParam);
}  // namespace ravel
}  // namespace ops
