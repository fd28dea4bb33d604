// FCompute<gpu> of FullyConnected (fully_connected-inl.h).
#include "mshadow/tensor.h"
#include "ops/fully_connected-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace fully_connected {
namespace {

const bool kRegistered = [] {
  SetFullyConnectedCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace fully_connected
}  // namespace ops
