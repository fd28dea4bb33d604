// _shuffle (shuffle-inl.h): shape, type, resources and the CPU registration; FCompute<gpu>:
// shuffle.cu.
#include <vector>

#include "ops/infer.h"
#include "ops/random_request.h"
#include "ops/shuffle-inl.h"

namespace ops {
namespace shuffle {
namespace {

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
      .set_attr<FResourceRequest>("FResourceRequest", RequestRandomAndTempSpace);
  SetShuffleCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace shuffle
}  // namespace ops
