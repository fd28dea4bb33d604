#include "ops/gpu_context.h"

#include <memory>
#include <unordered_map>

#include "mshadow/cuda/check.h"
#include "mshadow/cuda/scratch_pool.h"
#include "ops/invoke.h"

namespace ops {

mshadow::Stream<mshadow::gpu>* AdoptCudaStream(cudaStream_t stream) {
  thread_local std::unordered_map<cudaStream_t, std::unique_ptr<mshadow::Stream<mshadow::gpu>>>
      adopted;
  std::unique_ptr<mshadow::Stream<mshadow::gpu>>& entry = adopted[stream];
  if (entry == nullptr) {
    entry = std::make_unique<mshadow::Stream<mshadow::gpu>>();
    entry->stream_ = stream;
  }
  return entry.get();
}

StreamOrderedTempSpace::~StreamOrderedTempSpace() {
  if (memory_ != nullptr) cudaFreeAsync(memory_, stream_);  // no throwing from a destructor
}

void* StreamOrderedTempSpace::Get(size_t bytes) {
  if (bytes > capacity_) {
    if (memory_ != nullptr) MSHADOW_CUDA_CALL(cudaFreeAsync(memory_, stream_));
    memory_ = nullptr;
    capacity_ = 0;
    MSHADOW_CUDA_CALL(
        cudaMallocFromPoolAsync(&memory_, bytes, mshadow::cuda::ScratchPool(), stream_));
    capacity_ = bytes;
  }
  return memory_;
}

GpuCall::GpuCall(const NodeAttrs& attrs, void* cuda_stream, bool is_train)
    : temp_space_(static_cast<cudaStream_t>(cuda_stream)) {
  ctx_.is_train = is_train;
  ctx_.stream = AdoptCudaStream(static_cast<cudaStream_t>(cuda_stream));
  ctx_.requested = RequestedResources(attrs, &temp_space_);
}

}  // namespace ops
