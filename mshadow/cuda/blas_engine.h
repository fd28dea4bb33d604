// mshadow/cuda/blas_engine.h: `BLASEngine<gpu, float|double|half_t|bf16_t>`, the cuBLAS calls the
// dot engine (mshadow/dot_engine.h) makes on the GPU, in the same column-major convention as the
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

// half_t and bf16_t: the ...Ex calls with float32 accumulation, alpha and beta in float.
// cuBLAS has no 16-bit gemv or ger: they are gemms with one row (y^T = x^T op(A)^T) or an
// inner dimension of one, whose strided vectors are 1 x n matrices with leading dimension inc.
template <typename DType, cudaDataType_t kType>
struct BlasEx {
  static cublasStatus_t gemm(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb,
                             int m, int n, int k, const DType* alpha, const DType* A, int lda,
                             const DType* B, int ldb, const DType* beta, DType* C, int ldc) {
    const float a = static_cast<float>(*alpha), b = static_cast<float>(*beta);
    return cublasGemmEx(handle, ta, tb, m, n, k, &a, A, kType, lda, B, kType, ldb, &b, C, kType,
                        ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  // y = alpha op(A) x + beta y, A m x n: as y^T (1 x M) = x^T (1 x N) op(A)^T.
  static cublasStatus_t gemv(cublasHandle_t handle, cublasOperation_t trans, int m, int n,
                             const DType* alpha, const DType* A, int lda, const DType* x, int incx,
                             const DType* beta, DType* y, int incy) {
    const bool transposed = trans != CUBLAS_OP_N;
    const int rows = transposed ? n : m, cols = transposed ? m : n;
    return gemm(handle, CUBLAS_OP_N, transposed ? CUBLAS_OP_N : CUBLAS_OP_T, 1, rows, cols, alpha,
                x, incx, A, lda, beta, y, incy);
  }
  // A += alpha x y^T (m x n): x as the transpose of a 1 x m matrix, y as a 1 x n one.
  static cublasStatus_t ger(cublasHandle_t handle, int m, int n, const DType* alpha, const DType* x,
                            int incx, const DType* y, int incy, DType* A, int lda) {
    const DType one(1);
    return gemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, 1, alpha, x, incx, y, incy, &one, A, lda);
  }
  static cublasStatus_t dot(cublasHandle_t handle, int n, const DType* x, int incx, const DType* y,
                            int incy, DType* result) {
    return cublasDotEx(handle, n, x, kType, incx, y, kType, incy, result, kType, CUDA_R_32F);
  }
  static cublasStatus_t gemm_strided_batched(cublasHandle_t handle, cublasOperation_t ta,
                                             cublasOperation_t tb, int m, int n, int k,
                                             const DType* alpha, const DType* A, int lda,
                                             long long stride_a, const DType* B, int ldb,
                                             long long stride_b, const DType* beta, DType* C,
                                             int ldc, long long stride_c, int batch) {
    const float a = static_cast<float>(*alpha), b = static_cast<float>(*beta);
    return cublasGemmStridedBatchedEx(handle, ta, tb, m, n, k, &a, A, kType, lda, stride_a, B,
                                      kType, ldb, stride_b, &b, C, kType, ldc, stride_c, batch,
                                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
};

template <>
struct Blas<half::half_t> : BlasEx<half::half_t, CUDA_R_16F> {};
template <>
struct Blas<bfloat::bf16_t> : BlasEx<bfloat::bf16_t, CUDA_R_16BF> {};

}  // namespace cuda

// The GPU's products also take the 16-bit types (float32 accumulation).
template <>
struct BlasSupports<gpu, half::half_t> : std::true_type {};
template <>
struct BlasSupports<gpu, bfloat::bf16_t> : std::true_type {};

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
