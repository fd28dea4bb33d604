#include "ops/random_request.h"

namespace ops {

std::vector<ResourceRequest> RequestRandom(const NodeAttrs&) {
  ResourceRequest request;
  request.type = ResourceRequest::kRandom;
  return {request};
}

}  // namespace ops
