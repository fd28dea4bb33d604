#include "ops/random_request.h"

namespace ops {

std::vector<ResourceRequest> RequestRandom(const NodeAttrs&) {
  ResourceRequest request;
  request.type = ResourceRequest::kRandom;
  return {request};
}

std::vector<ResourceRequest> RequestRandomAndTempSpace(const NodeAttrs&) {
  std::vector<ResourceRequest> requests(2);
  requests[0].type = ResourceRequest::kRandom;
  requests[1].type = ResourceRequest::kTempSpace;
  return requests;
}

}  // namespace ops
