// FCompute<gpu> of the creation operators (creation-inl.h).
#include "mshadow/tensor.h"
#include "ops/creation-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace creation {
namespace {

const bool kRegistered = [] {
  SetCreationCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace creation
}  // namespace ops
