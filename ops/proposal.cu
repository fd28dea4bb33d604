// FCompute<gpu> of _contrib_Proposal, _contrib_MultiProposal and their zero gradients
// (proposal-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/proposal-inl.h"

namespace ops {
namespace bounding_box {
namespace {

const bool kRegistered = [] {
  SetProposalCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace bounding_box
}  // namespace ops
