// FCompute<gpu> of Embedding (embedding-inl.h).
#include "mshadow/tensor.h"
#include "ops/embedding-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace embedding {
namespace {

const bool kRegistered = [] {
  SetEmbeddingCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace embedding
}  // namespace ops
