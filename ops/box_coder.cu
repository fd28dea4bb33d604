// FCompute<gpu> of box_encode and box_decode (box_coder-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/box_coder-inl.h"

namespace ops {
namespace box_coder {
namespace {

const bool kRegistered = [] {
  SetBoxCoderCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace box_coder
}  // namespace ops
