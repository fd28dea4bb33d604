// _contrib_index_copy: rows of one array copied over the rows of another that an index vector
// names, and its backward operator. Shapes and types are here; the computation, for every
// device: index_copy-inl.h; FCompute<gpu>: index_copy.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/index_copy-inl.h"
#include "ops/infer.h"
#include "ops/infer_util.h"

namespace ops {
namespace index_copy {
namespace {

// old (N, ...), index (M,), new (M, ...) with old's trailing axes -> old's shape.
bool IndexCopyShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &old_shape = (*in)[0], &index = (*in)[1], &new_shape = (*in)[2];
  if (!ShapeIsKnown(old_shape) || !ShapeIsKnown(index) || !ShapeIsKnown(new_shape)) return false;
  std::ostringstream os;
  if (index.ndim() != 1) {
    os << "index_vector must be a vector (M,), got " << index;
    throw dmlc::Error(os.str());
  }
  bool rows_match =
      old_shape.ndim() >= 1 && new_shape.ndim() == old_shape.ndim() && new_shape[0] == index[0];
  for (int d = 1; rows_match && d < static_cast<int>(old_shape.ndim()); ++d) {
    rows_match = new_shape[d] == old_shape[d];
  }
  if (!rows_match) {
    os << "new_tensor " << new_shape << " must be (M, ...) with old_tensor " << old_shape
       << "'s trailing axes, M = " << index[0] << " the indices' count";
    throw dmlc::Error(os.str());
  }
  AssignOutputShape(out, 0, old_shape);
  return true;
}

bool IndexCopyType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int index = (*in)[1];
  if (index != -1 && !IsIndexType(index)) {
    throw dmlc::Error("index_vector of type " + mshadow::TypeFlagName(index) +
                      " is not supported; valid: float32, float64, int32, int64");
  }
  std::vector<int> tensors = {(*in)[0], (*in)[2]};
  if (!SameRealType(attrs, &tensors, out)) return false;
  AssignInputType(in, 0, tensors[0]);
  AssignInputType(in, 2, tensors[1]);
  return index != -1;
}

const bool kRegistered = [] {
  SetIndexCopyCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(_contrib_index_copy)
    .describe(
        "A copy of old_tensor (N, ...) whose row index_vector[i] is new_tensor's row i, for "
        "each i: the indices must be distinct rows of old_tensor.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("old_tensor", "NDArray-or-Symbol", "The array copied, (N, ...).")
    .add_argument("index_vector", "NDArray-or-Symbol", "The rows replaced, (M,).")
    .add_argument("new_tensor", "NDArray-or-Symbol", "The rows put there, (M, ...).")
    .set_attr<FInferShape>("FInferShape", IndexCopyShape)
    .set_attr<FInferType>("FInferType", IndexCopyType)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_contrib_index_copy", true, false});

OPS_REGISTER_OP(_backward_contrib_index_copy)
    .describe(
        "Gradient of _contrib_index_copy: old_tensor's (the output's, zero at the replaced "
        "rows), index_vector's (zero), new_tensor's (the output's rows it went to).")
    .set_num_inputs(4)
    .set_num_outputs(3)
    .set_attr<bool>("TIsBackward", true);

}  // namespace index_copy
}  // namespace ops
