#include "ops/registration_util.h"

namespace ops {

std::vector<std::pair<int, int>> InplaceFirstInput(const NodeAttrs&) { return {{0, 0}}; }

std::vector<ResourceRequest> RequestTempSpace(const NodeAttrs&) { return {ResourceRequest()}; }

}  // namespace ops
