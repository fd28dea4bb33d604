// FCompute<gpu> of CTCLoss (ctc_loss-inl.h): a sample per CUDA thread for the recursions.
#include "mshadow/tensor.h"
#include "ops/ctc_loss-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace ctc {
namespace {

const bool kRegistered = [] {
  SetCTCLossCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace ctc
}  // namespace ops
