// FCompute<gpu> of _histogram (histogram-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/histogram-inl.h"

namespace ops {
namespace histogram {
namespace {

const bool kRegistered = [] {
  SetHistogramCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace histogram
}  // namespace ops
