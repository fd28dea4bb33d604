// mshadow/cpu/gemv.h: matrix-vector products of a row-major matrix in SIMD packets on the
// library's threads; the CPU dot engine's gemv (mshadow/cpu/blas_engine.h) runs on them
// where its vectors are contiguous, in place of OpenBLAS's sgemv/dgemv, which streamed a
// weight from memory at about half the rate these loops reach (docs/benchmarks.md,
// seventy-fifth session).
//
//   // y[i] = alpha * (a's row i . x) + beta * y[i * incy], for i < rows
//   gemv::RowDots<float>(rows, cols, alpha, a, lda, x, beta, y, incy);
//   // y[j] = alpha * sum over i of x[i * incx] * a's row i [j] + beta * y[j], for j < cols
//   gemv::RowCombination<float>(rows, cols, alpha, a, lda, x, incx, beta, y);
//
// For float and double; the loops are compiled once, in gemv.cc.
//
// As in BLAS, beta = 0 writes y without reading it, and alpha = 0 reads nothing of a or x.
// Each element of y is summed in one order whatever the thread count: RowDots gives a row
// to one thread, RowCombination splits the columns at whole packets.
#ifndef MSHADOW_CPU_GEMV_H_
#define MSHADOW_CPU_GEMV_H_

#include "mshadow/base.h"

namespace mshadow {
namespace gemv {

template <typename DType>
void RowDots(index_t rows, index_t cols, DType alpha, const DType* a, index_t lda, const DType* x,
             DType beta, DType* y, index_t incy);

template <typename DType>
void RowCombination(index_t rows, index_t cols, DType alpha, const DType* a, index_t lda,
                    const DType* x, index_t incx, DType beta, DType* y);

}  // namespace gemv
}  // namespace mshadow

#endif  // MSHADOW_CPU_GEMV_H_
