// FCompute<gpu> of RNN (rnn-inl.h): cuBLAS gemms and a thread per (sample, unit) per step.
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/rnn-inl.h"

namespace ops {
namespace rnn {
namespace {

const bool kRegistered = [] {
  SetRNNCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace rnn
}  // namespace ops
