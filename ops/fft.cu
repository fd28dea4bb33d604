// FCompute<gpu> of _contrib_fft, _contrib_ifft and their backward operators (fft-inl.h).
#include "mshadow/tensor.h"
#include "ops/fft-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace fft {
namespace {

const bool kRegistered = [] {
  SetFFTCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace fft
}  // namespace ops
