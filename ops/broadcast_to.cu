// FCompute<gpu> of broadcast_to, broadcast_like, tile and repeat (broadcast_to-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/broadcast_to-inl.h"

namespace ops {
namespace broadcast_to {
namespace {

const bool kRegistered = [] {
  SetBroadcastToCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace broadcast_to
}  // namespace ops
