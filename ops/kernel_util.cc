#include "ops/kernel_util.h"

namespace ops {

std::vector<std::pair<int, int>> InplaceFirstInput(const NodeAttrs&) { return {{0, 0}}; }

std::vector<ResourceRequest> RequestTempSpace(const NodeAttrs&) { return {ResourceRequest()}; }

void CheckRealType(int type_flag) {
  if (type_flag != mshadow::kFloat32 && type_flag != mshadow::kFloat64) {
    throw dmlc::Error("data type " + mshadow::TypeFlagName(type_flag) +
                      " is not supported; valid: float32, float64");
  }
}

int NormalizeAxis(int64_t axis, int64_t ndim, const char* what) {
  if (axis < -ndim || axis >= ndim) {
    throw dmlc::Error(std::string(what) + " " + std::to_string(axis) +
                      " is out of range for a " + std::to_string(ndim) + "-d input; valid: [" +
                      std::to_string(-ndim) + ", " + std::to_string(ndim) + ")");
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

std::vector<index_t> RowMajorStrides(const TShape& shape) {
  std::vector<index_t> strides(shape.ndim());
  index_t stride = 1;
  for (index_t i = shape.ndim() - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

Op& SetGradient(Op& op, const std::string& backward_op, bool uses_inputs, bool uses_outputs) {
  FGradient gradient;
  gradient.backward_op = backward_op;
  gradient.uses_inputs = uses_inputs;
  gradient.uses_outputs = uses_outputs;
  return op.set_attr<FGradient>("FGradient", gradient);
}

Op& RegisterBackwardOp(const std::string& name, uint32_t num_inputs, uint32_t num_outputs) {
  return RegisterOp(name)
      .set_num_inputs(num_inputs)
      .set_num_outputs(num_outputs)
      .set_attr<bool>("TIsBackward", true);
}

}  // namespace ops
