// shape_array and size_array: the input's shape and element count as int64 arrays, its data
// never read (any type); their gradients are zero, as MXNet's. The computation, for every
// device: shape_array-inl.h; FCompute<gpu>: shape_array.cu.
#include <string>
#include <vector>

#include "ops/shape_array-inl.h"

namespace ops {
namespace shape_array {
namespace {

template <bool kSize>
bool CountShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!ShapeIsKnown((*in)[0])) return false;
  AssignOutputShape(out, 0, TShape{kSize ? 1 : (*in)[0].ndim()});
  return true;
}

bool Int64Output(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
  AssignOutputType(out, 0, mshadow::kInt64);
  return (*in)[0] != -1;
}

void Define(const std::string& name, const std::string& description, FInferShape shape) {
  Op& op = RegisterOp(name);
  SetZeroGradient(op, "_backward_" + name, [](NodeAttrs*) {});
  op.describe(description)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input array (its values are not read).")
      .set_attr<FInferShape>("FInferShape", shape)
      .set_attr<FInferType>("FInferType", Int64Output);
}

const bool kRegistered = [] {
  Define("shape_array", "The input's shape as a 1-d int64 array of its rank.", CountShape<false>);
  Define("size_array", "The input's element count as an int64 array of shape (1,).",
         CountShape<true>);
  SetShapeArrayCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace shape_array
}  // namespace ops
