#include "ops/registration_util.h"

namespace ops {

std::vector<std::pair<int, int>> InplaceFirstInput(const NodeAttrs&) { return {{0, 0}}; }

std::vector<ResourceRequest> RequestTempSpace(const NodeAttrs&) { return {ResourceRequest()}; }

void SetZeroGradient(Op& forward, const std::string& backward,
                     std::function<void(NodeAttrs*)> parser) {
  forward.set_attr<FGradient>("FGradient", FGradient{backward, true, false});
  const Op* op = &forward;  // registered operators never move
  RegisterOp(backward)
      .describe("Gradient of " + forward.name + ": zeros, as MXNet's.")
      .set_num_inputs(
          [op](const NodeAttrs& attrs) { return op->num_outputs(attrs) + op->num_inputs(attrs); })
      .set_num_outputs([op](const NodeAttrs& attrs) { return op->num_inputs(attrs); })
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(std::move(parser));
}

}  // namespace ops
