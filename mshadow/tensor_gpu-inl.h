// mshadow/tensor_gpu-inl.h: tensors on a CUDA GPU: the engine and streams, allocation
// (pitched rows), copies between host and device, and, in CUDA translation units, evaluation
// of expressions (mshadow/cuda/tensor_gpu-inl.cuh), Softmax/SoftmaxGrad
// (mshadow/cuda/softmax_gpu.cuh) and the cuBLAS dot engine.
//
//   InitTensorEngine<gpu>(0);                        // selects GPU 0
//   Stream<gpu>* s = NewStream<gpu>();
//   Tensor<gpu, 2> a = NewTensor<gpu>(Shape2(1024, 1024), 0.0f, MSHADOW_ALLOC_PAD, s);
//   Copy(a, host_tensor, s);                         // asynchronous on s
//   a = F<op::exp>(a) * 2.0f;                        // one kernel on s (in a .cu file)
//   Copy(host_tensor, a, s);
//   s->Wait();                                       // host_tensor now holds the result
//   FreeSpace(&a);
//   DeleteStream(s);
//
// Copies and kernels are asynchronous with respect to the host: wait on the stream before
// reading host memory a copy wrote. Every CUDA failure is a dmlc::Error (mshadow/cuda/check.h).
#ifndef MSHADOW_TENSOR_GPU_INL_H_
#define MSHADOW_TENSOR_GPU_INL_H_

#include <cuda_runtime.h>

#include <sstream>
#include <string>

#include "mshadow/cuda/blas_engine.h"
#include "mshadow/cuda/check.h"
#include "mshadow/cuda/stream.h"
#include "mshadow/host_memory.h"
#include "mshadow/tensor_alloc.h"
#include "mshadow/tensor_core.h"

namespace mshadow {

// Selects GPU `dev_id` for the calling thread.
template <>
inline void InitTensorEngine<gpu>(int dev_id) {
  MSHADOW_CUDA_CALL(cudaSetDevice(dev_id));
}
template <>
inline void SetDevice<gpu>(int devid) {
  MSHADOW_CUDA_CALL(cudaSetDevice(devid));
}
// Waits for the device's work to finish (the context stays, for other users in the process).
template <>
inline void ShutdownTensorEngine<gpu>() {
  MSHADOW_CUDA_CALL(cudaDeviceSynchronize());
}

// A new stream that does not synchronize with the default stream, with its cuBLAS handle
// when `create_blas_handle` (else on the first dot). `dev_id` >= 0 selects that GPU first.
template <>
inline Stream<gpu>* NewStream<gpu>(bool create_blas_handle, bool /*create_dnn_handle*/,
                                   int dev_id) {
  if (dev_id >= 0) MSHADOW_CUDA_CALL(cudaSetDevice(dev_id));
  auto* stream = new Stream<gpu>();
  const cudaError_t status = cudaStreamCreateWithFlags(&stream->stream_, cudaStreamNonBlocking);
  if (status != cudaSuccess) {
    delete stream;
    cuda::ThrowCudaError(status, "cudaStreamCreateWithFlags");
  }
  if (create_blas_handle) {
    try {
      stream->CreateBlasHandle();
    } catch (...) {
      cudaStreamDestroy(stream->stream_);
      delete stream;
      throw;
    }
  }
  return stream;
}

// Waits for the stream's work, then destroys it with its cuBLAS handle.
template <>
inline void DeleteStream<gpu>(Stream<gpu>* stream) {
  if (stream == nullptr) return;
  const cudaError_t status = cudaStreamSynchronize(stream->stream_);
  stream->DestroyBlasHandle();
  if (stream->stream_ != nullptr) cudaStreamDestroy(stream->stream_);
  delete stream;
  if (status != cudaSuccess) cuda::ThrowCudaError(status, "cudaStreamSynchronize");
}

// Allocates device memory for `obj->shape_`. With `pad` and more than one row, rows are
// pitched (cudaMallocPitch: each row starts on the device's preferred boundary). A failure
// is a dmlc::Error naming the size and the shape; the tensor is then left unchanged.
template <int dim, typename DType>
inline void AllocSpace(Tensor<gpu, dim, DType>* obj, bool pad = MSHADOW_ALLOC_PAD) {
  const AllocationPurpose what = detail::TensorOfShape(obj->shape_);
  const index_t rows = detail::AllocRows(obj->shape_, what);
  const index_t width = obj->shape_[dim - 1];
  const size_t bytes = detail::AllocBytes<DType>(rows, width, what);
  void* ptr = nullptr;
  cudaError_t status = cudaSuccess;
  index_t stride = width;
  if (bytes == 0) {
    // Nothing to allocate; dptr_ stays null, which kernels over zero elements never touch.
  } else if (pad && rows > 1) {
    size_t pitch = 0;
    status = cudaMallocPitch(&ptr, &pitch, static_cast<size_t>(width) * sizeof(DType),
                             static_cast<size_t>(rows));
    stride = static_cast<index_t>(pitch / sizeof(DType));
  } else {
    status = cudaMalloc(&ptr, bytes);
  }
  if (status != cudaSuccess) {
    cudaGetLastError();
    std::ostringstream os;
    os << "AllocSpace: cudaMalloc of " << bytes << " bytes for " << what() << ": "
       << cudaGetErrorString(status);
    throw dmlc::Error(os.str());
  }
  obj->dptr_ = static_cast<DType*>(ptr);
  obj->stride_ = stride;
}

// Frees memory from AllocSpace/NewTensor; dptr_ becomes null (freeing twice is harmless).
template <int dim, typename DType>
inline void FreeSpace(Tensor<gpu, dim, DType>* obj) {
  if (obj->dptr_ != nullptr) MSHADOW_CUDA_CALL(cudaFree(obj->dptr_));
  obj->dptr_ = nullptr;
}

namespace cuda {

// Copies rows of `src` to `dst` (equal shapes, any strides) on `stream`.
template <typename DstDevice, typename SrcDevice, int dim, typename DType>
inline void CopyRows(const Tensor<DstDevice, dim, DType>& dst,
                     const Tensor<SrcDevice, dim, DType>& src, Stream<gpu>* stream,
                     cudaMemcpyKind kind) {
  CHECK_EQ(dst.shape_, src.shape_) << "Copy: source and destination shapes differ";
  if (dst.shape_.Size() == 0) return;
  const Tensor<DstDevice, 2, DType> d = dst.FlatTo2D();
  const Tensor<SrcDevice, 2, DType> s = src.FlatTo2D();
  MSHADOW_CUDA_CALL(cudaMemcpy2DAsync(d.dptr_, d.stride_ * sizeof(DType), s.dptr_,
                                      s.stride_ * sizeof(DType), d.size(1) * sizeof(DType),
                                      d.size(0), kind, Stream<gpu>::GetStream(stream)));
}

}  // namespace cuda

// Copies between host and device, or within the device; shapes must be equal (strides may
// differ). Asynchronous on `stream`: wait on it before reading host memory it wrote.
template <int dim, typename DType>
inline void Copy(Tensor<gpu, dim, DType> dst, const Tensor<cpu, dim, DType>& src,
                 Stream<gpu>* stream = nullptr) {
  cuda::CopyRows(dst, src, stream, cudaMemcpyHostToDevice);
}
template <int dim, typename DType>
inline void Copy(Tensor<cpu, dim, DType> dst, const Tensor<gpu, dim, DType>& src,
                 Stream<gpu>* stream = nullptr) {
  cuda::CopyRows(dst, src, stream, cudaMemcpyDeviceToHost);
}
template <int dim, typename DType>
inline void Copy(Tensor<gpu, dim, DType> dst, const Tensor<gpu, dim, DType>& src,
                 Stream<gpu>* stream = nullptr) {
  cuda::CopyRows(dst, src, stream, cudaMemcpyDeviceToDevice);
}

}  // namespace mshadow

#ifdef __CUDACC__
#include "mshadow/cuda/tensor_gpu-inl.cuh"
// After the backend they launch on.
#include "mshadow/cuda/random_gpu.cuh"
#include "mshadow/cuda/softmax_gpu.cuh"
#endif

#endif  // MSHADOW_TENSOR_GPU_INL_H_
