// mshadow/cuda/blas_engine.h: `BLASEngine<gpu, float|double>`, the cuBLAS calls the dot
// engine (mshadow/dot_engine.h) makes on the GPU, in the same column-major convention as the
// CPU's CBLAS engine. Each call runs on the tensor's stream through that stream's cuBLAS
// handle; scalars are passed from the host. Failures are dmlc::Error naming the call.
#ifndef MSHADOW_CUDA_BLAS_ENGINE_H_
#define MSHADOW_CUDA_BLAS_ENGINE_H_

#include <cublas_v2.h>

#include "mshadow/cuda/check.h"
#include "mshadow/cuda/stream.h"
#include "mshadow/dot_engine.h"

namespace mshadow {
namespace cuda {

inline cublasOperation_t BlasOp(bool transposed) { return transposed ? CUBLAS_OP_T : CUBLAS_OP_N; }

// The cuBLAS functions of one element type, so that BLASEngine<gpu, DType> is written once.
template <typename DType>
struct Blas;

template <>
struct Blas<float> {
  static constexpr auto gemm = cublasSgemm;
  static constexpr auto gemv = cublasSgemv;
  static constexpr auto ger = cublasSger;
  static constexpr auto dot = cublasSdot;
  static constexpr auto gemm_strided_batched = cublasSgemmStridedBatched;
};

template <>
struct Blas<double> {
  static constexpr auto gemm = cublasDgemm;
  static constexpr auto gemv = cublasDgemv;
  static constexpr auto ger = cublasDger;
  static constexpr auto dot = cublasDdot;
  static constexpr auto gemm_strided_batched = cublasDgemmStridedBatched;
};

}  // namespace cuda

template <typename DType>
struct BLASEngine<gpu, DType> {
  using B = cuda::Blas<DType>;
  static cublasHandle_t Handle(Stream<gpu>* stream) { return Stream<gpu>::GetBlasHandle(stream); }

  static void SetStream(Stream<gpu>* stream) { Handle(stream); }
  static void gemm(Stream<gpu>* stream, bool transa, bool transb, int m, int n, int k, DType alpha,
                   const DType* A, int lda, const DType* Bm, int ldb, DType beta, DType* C,
                   int ldc) {
    MSHADOW_CUBLAS_CALL(B::gemm(Handle(stream), cuda::BlasOp(transa), cuda::BlasOp(transb), m, n, k,
                                &alpha, A, lda, Bm, ldb, &beta, C, ldc));
  }
  static void gemv(Stream<gpu>* stream, bool trans, int m, int n, DType alpha, const DType* A,
                   int lda, const DType* X, int incX, DType beta, DType* Y, int incY) {
    MSHADOW_CUBLAS_CALL(B::gemv(Handle(stream), cuda::BlasOp(trans), m, n, &alpha, A, lda, X, incX,
                                &beta, Y, incY));
  }
  static void ger(Stream<gpu>* stream, int m, int n, DType alpha, const DType* X, int incX,
                  const DType* Y, int incY, DType* A, int lda) {
    MSHADOW_CUBLAS_CALL(B::ger(Handle(stream), m, n, &alpha, X, incX, Y, incY, A, lda));
  }
  // *ret (device memory) = X . Y.
  static void dot(Stream<gpu>* stream, int n, const DType* X, int incX, const DType* Y, int incY,
                  DType* ret) {
    cublasHandle_t handle = Handle(stream);
    MSHADOW_CUBLAS_CALL(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE));
    const cublasStatus_t status = B::dot(handle, n, X, incX, Y, incY, ret);
    cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST);
    if (status != CUBLAS_STATUS_SUCCESS) cuda::ThrowBlasError(status, "cublas<T>dot");
  }
  static void batched_gemm(Stream<gpu>* stream, bool transa, bool transb, int m, int n, int k,
                           DType alpha, const DType* A, int lda, index_t strideA, const DType* Bm,
                           int ldb, index_t strideB, DType beta, DType* C, int ldc, index_t strideC,
                           int batch) {
    MSHADOW_CUBLAS_CALL(B::gemm_strided_batched(
        Handle(stream), cuda::BlasOp(transa), cuda::BlasOp(transb), m, n, k, &alpha, A, lda,
        strideA, Bm, ldb, strideB, &beta, C, ldc, strideC, batch));
  }
};

}  // namespace mshadow

#endif  // MSHADOW_CUDA_BLAS_ENGINE_H_
