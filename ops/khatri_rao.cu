// FCompute<gpu> of khatri_rao and its gradient (khatri_rao-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/khatri_rao-inl.h"

namespace ops {
namespace khatri_rao {
namespace {

const bool kRegistered = [] {
  SetKhatriRaoCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace khatri_rao
}  // namespace ops
