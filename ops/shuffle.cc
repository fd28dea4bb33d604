// _shuffle (shuffle-inl.h): shape, type, resources and the CPU registration; FCompute<gpu>:
// shuffle.cu.
#include <vector>

#include "ops/infer.h"
#include "ops/shuffle-inl.h"

namespace ops {
namespace shuffle {
namespace {

// Random numbers for the permutation and temporary space for a GPU's copy of it.
std::vector<ResourceRequest> RandomAndTempSpace(const NodeAttrs&) {
  std::vector<ResourceRequest> requests(2);
  requests[0].type = ResourceRequest::kRandom;
  requests[1].type = ResourceRequest::kTempSpace;
  return requests;
}

const bool kRegistered = [] {
  RegisterOp("_shuffle")
      .add_alias("shuffle")
      .describe(
          "The data's slices along the first axis in a random order (the elements within each "
          "slice in theirs); the same order for a seed on any device. Not differentiable.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The data to shuffle (any type).")
      .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
      .set_attr<FInferType>("FInferType", ElemwiseType<1, 1>)
      .set_attr<FResourceRequest>("FResourceRequest", RandomAndTempSpace);
  SetShuffleCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace shuffle
}  // namespace ops
