// FCompute<gpu> of SequenceMask, SequenceLast and SequenceReverse (sequence-inl.h).
#include "mshadow/tensor.h"
#include "ops/sequence-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace sequence {
namespace {

const bool kRegistered = [] {
  SetSequenceCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace sequence
}  // namespace ops
