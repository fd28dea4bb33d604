// mshadow/cuda/check.h: CUDA runtime and cuBLAS failures as dmlc::Error.
//
//   MSHADOW_CUDA_CALL(cudaMemsetAsync(ptr, 0, bytes, stream));
//   MSHADOW_CUBLAS_CALL(cublasSgemm(handle, ...));
//
// The message names the call and the runtime's error string ("cudaMalloc(...): out of
// memory"). The runtime's last error is cleared, so a recoverable failure (an allocation too
// large, a bad argument) leaves the device and its streams usable; a sticky error (a kernel
// that faulted) keeps failing every later call, as CUDA defines.
#ifndef MSHADOW_CUDA_CHECK_H_
#define MSHADOW_CUDA_CHECK_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "dmlc/logging.h"

namespace mshadow {
namespace cuda {

[[noreturn]] inline void ThrowCudaError(cudaError_t error, const char* call) {
  cudaGetLastError();  // clear it, so that later calls do not report it again
  throw dmlc::Error(std::string(call) + ": " + cudaGetErrorString(error));
}

[[noreturn]] inline void ThrowBlasError(cublasStatus_t status, const char* call) {
  throw dmlc::Error(std::string(call) + ": " + cublasGetStatusString(status));
}

}  // namespace cuda
}  // namespace mshadow

#define MSHADOW_CUDA_CALL(call)                                                   \
  do {                                                                            \
    const cudaError_t mshadow_cuda_status = (call);                               \
    if (mshadow_cuda_status != cudaSuccess) {                                     \
      ::mshadow::cuda::ThrowCudaError(mshadow_cuda_status, #call);                \
    }                                                                             \
  } while (0)

#define MSHADOW_CUBLAS_CALL(call)                                                 \
  do {                                                                            \
    const cublasStatus_t mshadow_cublas_status = (call);                          \
    if (mshadow_cublas_status != CUBLAS_STATUS_SUCCESS) {                         \
      ::mshadow::cuda::ThrowBlasError(mshadow_cublas_status, #call);              \
    }                                                                             \
  } while (0)

// After a kernel launch: a bad launch configuration is reported now, naming the kernel
// (errors during execution surface at the next synchronizing call).
#define MSHADOW_CUDA_CHECK_LAUNCH(kernel_name)                                    \
  do {                                                                            \
    const cudaError_t mshadow_cuda_status = cudaGetLastError();                   \
    if (mshadow_cuda_status != cudaSuccess) {                                     \
      ::mshadow::cuda::ThrowCudaError(mshadow_cuda_status, "launch of " kernel_name); \
    }                                                                             \
  } while (0)

#endif  // MSHADOW_CUDA_CHECK_H_
