// mshadow/cuda/stream.h: `Stream<gpu>`, a CUDA stream and the cuBLAS handle bound to it.
//
//   Stream<gpu>* s = NewStream<gpu>();   // a new non-blocking stream (tensor_gpu-inl.h)
//   Tensor<gpu, 2> t(ptr, Shape2(4, 5), s);
//   t = 1.0f;                            // a kernel on s; returns at once
//   s->Wait();                           // everything issued on s has finished
//   DeleteStream(s);
//
// A null Stream<gpu>* means the device's default (legacy) stream, as in mshadow.
#ifndef MSHADOW_CUDA_STREAM_H_
#define MSHADOW_CUDA_STREAM_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "mshadow/cuda/check.h"
#include "mshadow/device.h"

namespace mshadow {

template <>
struct Stream<gpu> {
  // The stream work is issued on (0: the default stream).
  cudaStream_t stream_ = nullptr;
  // cuBLAS handle bound to stream_, created by CreateBlasHandle or on the first dot.
  cublasHandle_t blas_handle_ = nullptr;

  Stream() = default;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Blocks until all work issued on the stream has finished; an error of that work is
  // raised here.
  void Wait() { MSHADOW_CUDA_CALL(cudaStreamSynchronize(stream_)); }

  // Whether all work issued on the stream has finished.
  bool CheckIdle() {
    const cudaError_t status = cudaStreamQuery(stream_);
    if (status == cudaSuccess) return true;
    if (status == cudaErrorNotReady) return false;
    cuda::ThrowCudaError(status, "cudaStreamQuery");
  }

  // Creates the cuBLAS handle (once), bound to this stream, in the default math mode:
  // float32 products in full float32, no TF32 (set CUBLAS_TF32_TENSOR_OP_MATH on the handle
  // to trade accuracy for speed).
  void CreateBlasHandle() {
    if (blas_handle_ != nullptr) return;
    MSHADOW_CUBLAS_CALL(cublasCreate(&blas_handle_));
    MSHADOW_CUBLAS_CALL(cublasSetStream(blas_handle_, stream_));
    MSHADOW_CUBLAS_CALL(cublasSetMathMode(blas_handle_, CUBLAS_DEFAULT_MATH));
  }

  void DestroyBlasHandle() {
    if (blas_handle_ == nullptr) return;
    cublasDestroy(blas_handle_);
    blas_handle_ = nullptr;
  }

  // The CUDA stream of `stream`; the default stream for null.
  static cudaStream_t GetStream(Stream<gpu>* stream) {
    return stream == nullptr ? nullptr : stream->stream_;
  }

  // The cuBLAS handle of `stream`, created on first use. A null stream uses one handle per
  // host thread on the default stream (cuBLAS handles must not be shared between threads
  // that call concurrently).
  static cublasHandle_t GetBlasHandle(Stream<gpu>* stream) {
    if (stream == nullptr) {
      thread_local Stream<gpu> default_stream;
      stream = &default_stream;
    }
    stream->CreateBlasHandle();
    return stream->blas_handle_;
  }

  ~Stream() { DestroyBlasHandle(); }
};

}  // namespace mshadow

#endif  // MSHADOW_CUDA_STREAM_H_
