// ops/random_request.h: the FResourceRequest of the operators that draw random numbers.
#ifndef OPS_RANDOM_REQUEST_H_
#define OPS_RANDOM_REQUEST_H_

#include <vector>

#include "ops/op_types.h"

namespace ops {

// One ResourceRequest::kRandom: blocks of the host's Philox sequence (ops/random_source.h),
// taken with OpContext::requested[0].TakeRandom.
std::vector<ResourceRequest> RequestRandom(const NodeAttrs& attrs);

// requested[0] random, requested[1] temporary space: the operators that draw on the host and
// copy what they drew to a GPU (_shuffle's order, _sample_unique_zipfian's samples).
std::vector<ResourceRequest> RequestRandomAndTempSpace(const NodeAttrs& attrs);

}  // namespace ops

#endif  // OPS_RANDOM_REQUEST_H_
