// mshadow/cpu/blas_engine.h: `BLASEngine<cpu, float|double>`, the dot engine's BLAS calls on
// the CPU through OpenBLAS's CBLAS interface (the GPU's, through cuBLAS, is
// mshadow/cuda/blas_engine.h; the expressions that reach them, mshadow/dot_engine.h).
#ifndef MSHADOW_CPU_BLAS_ENGINE_H_
#define MSHADOW_CPU_BLAS_ENGINE_H_

#include <cblas.h>

#include "mshadow/cpu/stream.h"
#include "mshadow/dot_engine.h"

namespace mshadow {

namespace detail {

inline CBLAS_TRANSPOSE BlasTranspose(bool t) { return t ? CblasTrans : CblasNoTrans; }

// A batched gemm as one gemm per entry, or one gemv per entry where C has one column (n = 1;
// BLAS's gemm pays for packing its operands, which a single column does not repay).
template <typename Engine, typename DType>
inline void LoopedBatchedGemm(Stream<cpu>* stream, bool transa, bool transb, int m, int n, int k,
                              DType alpha, const DType* A, int lda, index_t strideA, const DType* B,
                              int ldb, index_t strideB, DType beta, DType* C, int ldc,
                              index_t strideC, int batch) {
  for (int i = 0; i < batch; ++i) {
    const DType* a = A + i * strideA;
    const DType* b = B + i * strideB;
    DType* c = C + i * strideC;
    if (n == 1) {  // c(m) = op(A)(m,k) b(k), b's elements ldb apart when transposed
      Engine::gemv(stream, transa, transa ? k : m, transa ? m : k, alpha, a, lda, b,
                   transb ? ldb : 1, beta, c, 1);
    } else {
      Engine::gemm(stream, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    }
  }
}

}  // namespace detail

template <>
struct BLASEngine<cpu, float> {
  static void SetStream(Stream<cpu>* /*stream*/) {}
  static void gemm(Stream<cpu>* /*stream*/, bool transa, bool transb, int m, int n, int k,
                   float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                   float* C, int ldc) {
    cblas_sgemm(CblasColMajor, detail::BlasTranspose(transa), detail::BlasTranspose(transb), m, n,
                k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  static void gemv(Stream<cpu>* /*stream*/, bool trans, int m, int n, float alpha, const float* A,
                   int lda, const float* X, int incX, float beta, float* Y, int incY) {
    cblas_sgemv(CblasColMajor, detail::BlasTranspose(trans), m, n, alpha, A, lda, X, incX, beta, Y,
                incY);
  }
  static void ger(Stream<cpu>* /*stream*/, int m, int n, float alpha, const float* X, int incX,
                  const float* Y, int incY, float* A, int lda) {
    cblas_sger(CblasColMajor, m, n, alpha, X, incX, Y, incY, A, lda);
  }
  static void dot(Stream<cpu>* /*stream*/, int n, const float* X, int incX, const float* Y,
                  int incY, float* ret) {
    *ret = cblas_sdot(n, X, incX, Y, incY);
  }
  static void batched_gemm(Stream<cpu>* stream, bool transa, bool transb, int m, int n, int k,
                           float alpha, const float* A, int lda, index_t strideA, const float* B,
                           int ldb, index_t strideB, float beta, float* C, int ldc, index_t strideC,
                           int batch) {
    detail::LoopedBatchedGemm<BLASEngine>(stream, transa, transb, m, n, k, alpha, A, lda, strideA,
                                          B, ldb, strideB, beta, C, ldc, strideC, batch);
  }
};

template <>
struct BLASEngine<cpu, double> {
  static void SetStream(Stream<cpu>* /*stream*/) {}
  static void gemm(Stream<cpu>* /*stream*/, bool transa, bool transb, int m, int n, int k,
                   double alpha, const double* A, int lda, const double* B, int ldb, double beta,
                   double* C, int ldc) {
    cblas_dgemm(CblasColMajor, detail::BlasTranspose(transa), detail::BlasTranspose(transb), m, n,
                k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  static void gemv(Stream<cpu>* /*stream*/, bool trans, int m, int n, double alpha, const double* A,
                   int lda, const double* X, int incX, double beta, double* Y, int incY) {
    cblas_dgemv(CblasColMajor, detail::BlasTranspose(trans), m, n, alpha, A, lda, X, incX, beta, Y,
                incY);
  }
  static void ger(Stream<cpu>* /*stream*/, int m, int n, double alpha, const double* X, int incX,
                  const double* Y, int incY, double* A, int lda) {
    cblas_dger(CblasColMajor, m, n, alpha, X, incX, Y, incY, A, lda);
  }
  static void dot(Stream<cpu>* /*stream*/, int n, const double* X, int incX, const double* Y,
                  int incY, double* ret) {
    *ret = cblas_ddot(n, X, incX, Y, incY);
  }
  static void batched_gemm(Stream<cpu>* stream, bool transa, bool transb, int m, int n, int k,
                           double alpha, const double* A, int lda, index_t strideA, const double* B,
                           int ldb, index_t strideB, double beta, double* C, int ldc,
                           index_t strideC, int batch) {
    detail::LoopedBatchedGemm<BLASEngine>(stream, transa, transb, m, n, k, alpha, A, lda, strideA,
                                          B, ldb, strideB, beta, C, ldc, strideC, batch);
  }
};

}  // namespace mshadow

#endif  // MSHADOW_CPU_BLAS_ENGINE_H_
