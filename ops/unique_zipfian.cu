// FCompute<gpu> of _sample_unique_zipfian (unique_zipfian-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/unique_zipfian-inl.h"

namespace ops {
namespace unique_zipfian {
namespace {

const bool kRegistered = [] {
  SetUniqueZipfianCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace unique_zipfian
}  // namespace ops
