// FCompute<gpu> of _contrib_count_sketch and its backward (count_sketch-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/count_sketch-inl.h"

namespace ops {
namespace count_sketch {
namespace {

const bool kRegistered = [] {
  SetCountSketchCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace count_sketch
}  // namespace ops
