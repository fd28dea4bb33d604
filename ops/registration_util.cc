#include "ops/registration_util.h"

namespace ops {

std::vector<std::pair<int, int>> InplaceFirstInput(const NodeAttrs&) { return {{0, 0}}; }

std::vector<ResourceRequest> RequestTempSpace(const NodeAttrs&) { return {ResourceRequest()}; }

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
