// gather_nd and scatter_nd (gather_nd-inl.h): the addressing, shape and type inference and the
// CPU registration; FCompute<gpu>: gather_nd.cu.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "ops/gather_nd-inl.h"

namespace ops {
namespace gather_nd {

DMLC_REGISTER_PARAMETER(ScatterNDParam);

namespace {

// The product of shape[begin, end); one past index_t is a dmlc::Error (an empty axis elsewhere
// can make such a shape's size 0, so CheckedSize does not rule it out).
index_t Product(const TShape& shape, int begin, int end, const char* op) {
  index_t product = 1;
  for (int d = begin; d < end; ++d) {
    if (shape[d] < 0 || __builtin_mul_overflow(product, shape[d], &product)) {
      std::ostringstream os;
      os << op << ": shape " << shape << " has a negative extent or one whose product "
         << "with the others overflows index_t";
      throw dmlc::Error(os.str());
    }
  }
  return product;
}

}  // namespace

Addressing AddressingOf(const TShape& array, const TShape& indices, const char* op) {
  std::ostringstream os;
  if (indices.ndim() < 2) {
    os << op << ": indices " << indices << " must have at least 2 axes (M, Y...)";
    throw dmlc::Error(os.str());
  }
  const index_t m = indices[0];
  if (m < 1 || m > array.ndim() || m > kMaxIndexedAxes) {
    os << op << ": indices " << indices << " address " << m << " axes of " << array
       << "; they may address 1 to " << std::min<index_t>(array.ndim(), kMaxIndexedAxes);
    throw dmlc::Error(os.str());
  }
  Addressing a{};
  a.m = static_cast<int>(m);
  a.columns = Product(indices, 1, indices.ndim(), op);
  a.slab = Product(array, a.m, array.ndim(), op);
  for (int axis = 0; axis < a.m; ++axis) {
    a.extent[axis] = array[axis];
    a.stride[axis] = Product(array, axis + 1, a.m, op);
  }
  return a;
}

namespace {

// indices' Y axes, then the array's axes past the M addressed.
TShape SlabsShape(const TShape& array, const TShape& indices) {
  std::vector<index_t> dims(indices.begin() + 1, indices.end());
  dims.insert(dims.end(), array.begin() + indices[0], array.end());
  return TShape(dims.begin(), dims.end());
}

bool GatherNDShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &data = (*in)[0], &indices = (*in)[1];
  if (!ShapeIsKnown(data) || !ShapeIsKnown(indices)) return false;
  AddressingOf(data, indices, "gather_nd");
  AssignOutputShape(out, 0, SlabsShape(data, indices));
  return true;
}

bool ScatterNDShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& shape = GetParam<ScatterNDParam>(attrs).shape;
  const TShape& indices = (*in)[1];
  if (!ShapeIsKnown(indices)) return false;
  AddressingOf(shape, indices, "scatter_nd");
  AssignInputShape(in, 0, SlabsShape(shape, indices));
  AssignOutputShape(out, 0, shape);
  return true;
}

// data real, indices float32/float64/int32/int64, the output in data's type.
bool GatherNDType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int data = (*in)[0], indices = (*in)[1];
  if (data == -1 || indices == -1) return false;
  CheckRealType(data);
  if (!IsIndexType(indices)) {
    throw dmlc::Error(attrs.op->name + ": indices have type " + mshadow::TypeFlagName(indices) +
                      "; they must be float32, float64, int32 or int64");
  }
  AssignOutputType(out, 0, data);
  return true;
}

void DefineOp(const std::string& name, const std::string& description,
              const std::string& data_description, FInferShape shape) {
  RegisterOp(name)
      .describe(description)
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", data_description)
      .add_argument("indices", "NDArray-or-Symbol",
                    "(M, Y...): column y holds the indices of the slab it picks.")
      .set_attr<FInferShape>("FInferShape", shape)
      .set_attr<FInferType>("FInferType", GatherNDType)
      .set_attr<FGradient>("FGradient", FGradient{"_backward_" + name, true, false});
  RegisterOp("_backward_" + name)
      .describe("Gradient of " + name + "; the indices get none (zeros).")
      .set_num_inputs(3)
      .set_num_outputs(2)
      .set_attr<bool>("TIsBackward", true);
}

const bool kRegistered = [] {
  DefineOp("gather_nd",
           "The slabs of data that the columns of indices pick: (Y..., X(M), ...) from data "
           "(X0, ..., X(N-1)) and indices (M, Y...).",
           "The array to gather from.", GatherNDShape);
  DefineOp("scatter_nd",
           "An array of `shape`, zeros except at the slabs the columns of indices pick, which "
           "hold data's slabs.",
           "The slabs to place, (Y..., shape[M], ...).", ScatterNDShape);
  Op& scatter = RegisterOp("scatter_nd");
  scatter.add_arguments(ScatterNDParam::__FIELDS__());
  scatter.set_attr_parser(ParamParser<ScatterNDParam>);
  RegisterOp("_backward_scatter_nd").set_attr_parser(ParamParser<ScatterNDParam>);
  SetGatherNDCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace gather_nd
}  // namespace ops
