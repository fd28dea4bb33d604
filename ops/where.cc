// where (where-inl.h): shape and type inference, the CPU registration; FCompute<gpu>:
// where.cu.
#include <sstream>
#include <vector>

#include "ops/where-inl.h"

namespace ops {
namespace where {
namespace {

// x and y of one shape; the condition shaped like them, or (x.shape[0],).
bool WhereShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape data = ShapeIsKnown((*in)[1]) ? (*in)[1] : (*in)[2];
  if (!ShapeIsKnown(data)) return false;
  AssignInputShape(in, 1, data);
  AssignInputShape(in, 2, data);
  const TShape& cond = (*in)[0];
  if (ShapeIsKnown(cond) && cond != data && !(cond.ndim() == 1 && cond[0] == data[0])) {
    std::ostringstream os;
    os << "the condition " << cond << " must be shaped like x " << data << " or be (" << data[0]
       << ",), one value per row";
    throw dmlc::Error(os.str());
  }
  if (!ShapeIsKnown(cond)) AssignInputShape(in, 0, data);
  AssignOutputShape(out, 0, data);
  return true;
}

// x, y and the output of one real type; the condition real too, of any such type.
bool WhereType(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
  const int type = (*in)[1] != -1 ? (*in)[1] : (*in)[2];
  if (type == -1 || (*in)[0] == -1) return false;
  CheckRealType(type);
  CheckRealType((*in)[0]);
  AssignInputType(in, 1, type);
  AssignInputType(in, 2, type);
  AssignOutputType(out, 0, type);
  return true;
}

const bool kRegistered = [] {
  SetWhereCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(where)
    .describe("x where the condition is nonzero, y elsewhere. The condition is shaped like x, "
              "or (x.shape[0],) to choose whole rows.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("condition", "NDArray-or-Symbol", "Where to take x.")
    .add_argument("x", "NDArray-or-Symbol", "The values where the condition holds.")
    .add_argument("y", "NDArray-or-Symbol", "The values elsewhere.")
    .set_attr<FInferShape>("FInferShape", WhereShape)
    .set_attr<FInferType>("FInferType", WhereType)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_where", true, false});

OPS_REGISTER_OP(_backward_where)
    .describe("Gradient of where: the output gradient to x or y as the condition chose.")
    .set_num_inputs(4)
    .set_num_outputs(3)
    .set_attr<bool>("TIsBackward", true);

}  // namespace where
}  // namespace ops
