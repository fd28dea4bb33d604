// FCompute<gpu> of the density operators and their backward operators (pdf-inl.h).
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/pdf-inl.h"

namespace ops {
namespace pdf {
namespace {

const bool kRegistered = [] {
  SetPdfCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace pdf
}  // namespace ops
