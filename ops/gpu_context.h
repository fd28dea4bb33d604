// ops/gpu_context.h: running operators on CUDA memory a host owns (the C ABI, and through it
// Python): its cudaStream_t adopted as a mshadow::Stream<gpu>, and temporary space allocated
// in stream order. Built with --config=cuda only; it defines MSHADOW_OPS_WITH_CUDA for the
// targets that depend on it.
//
//   ops::GpuCall call(attrs, host_stream);     // host_stream: a cudaStream_t, or null
//   ops::Invoke<mshadow::gpu>(attrs, call.context(), inputs, req, outputs);
#ifndef OPS_GPU_CONTEXT_H_
#define OPS_GPU_CONTEXT_H_

#include <cuda_runtime.h>

#include <vector>

#include "mshadow/cuda/stream.h"
#include "ops/op_types.h"

namespace ops {

// The Stream<gpu> that issues work on the host's `stream` (null: the default stream), with a
// cuBLAS handle bound to it. One per host thread and stream, kept for the thread's lifetime
// (cuBLAS handles are costly to create and must not be shared by concurrent threads). The
// host's stream is not owned: it is never destroyed here.
mshadow::Stream<mshadow::gpu>* AdoptCudaStream(cudaStream_t stream);

// Temporary space for one call, allocated on the call's stream from the scratch pool
// (mshadow/cuda/scratch_pool.h) and freed on it when the call's context ends, so that later
// work on other streams cannot race with the kernels still using it.
class StreamOrderedTempSpace : public TempSpace {
 public:
  explicit StreamOrderedTempSpace(cudaStream_t stream) : stream_(stream) {}
  StreamOrderedTempSpace(const StreamOrderedTempSpace&) = delete;
  StreamOrderedTempSpace& operator=(const StreamOrderedTempSpace&) = delete;
  ~StreamOrderedTempSpace() override;
  void* Get(size_t bytes) override;

 private:
  cudaStream_t stream_;
  void* memory_ = nullptr;
  size_t capacity_ = 0;
};

// An OpContext on the GPU for one call of `attrs` on the host's stream, with the temporary
// space the operator requests.
class GpuCall {
 public:
  GpuCall(const NodeAttrs& attrs, void* cuda_stream, bool is_train = false);
  GpuCall(const GpuCall&) = delete;
  GpuCall& operator=(const GpuCall&) = delete;
  const OpContext& context() const { return ctx_; }
  OpContext& context() { return ctx_; }

 private:
  StreamOrderedTempSpace temp_space_;
  OpContext ctx_;
};

}  // namespace ops

#endif  // OPS_GPU_CONTEXT_H_
