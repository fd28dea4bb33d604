// ops/small_lu.h: LU factorization with partial pivoting (LAPACK's getrf) of a small matrix on
// the CPU, in LAPACK's layout, so that its factors serve getri and the determinant as
// LAPACK's do. OpenBLAS's getrf spent about 4 us on each 32 x 32 matrix of a batch, most of it
// outside the arithmetic (docs/benchmarks.md, seventy-third session); here a matrix's columns
// are contiguous runs, and the pivot search, the scaling and the trailing update are loops
// over them that the compiler vectorizes.
//
//   // m: n x n, column-major (LAPACK's view of a row-major matrix is its transpose)
//   const int info = small_lu::Factor(n, m, ld, pivots);  // as LAPACK's getrf
#ifndef OPS_SMALL_LU_H_
#define OPS_SMALL_LU_H_

#include <cmath>
#include <limits>
#include <utility>

#include "mshadow/base.h"
#include "ops/vector_loop.h"

namespace ops {
namespace small_lu {

using mshadow::index_t;

// The largest order factored here; larger matrices go to LAPACK's blocked algorithm.
constexpr index_t kMaxOrder = 64;

// m (n x n, column-major, column j at m + j * ld) = P L U in place, as LAPACK's getrf: L unit
// lower triangular below the diagonal, U on and above it, pivots[k] the 1-based row swapped
// with row k + 1 at step k (the first row of largest magnitude in column k, from row k on).
// Returns 0, or k + 1 for the first step k whose pivot is zero (that step swaps and scales
// nothing; the others go on, as LAPACK's do).
template <typename DType>
int Factor(index_t n, DType* m, index_t ld, int* pivots) {
  int info = 0;
  for (index_t k = 0; k < n; ++k) {
    DType* column = m + k * ld;
    index_t p = k;
    DType largest = std::abs(column[k]);
    for (index_t i = k + 1; i < n; ++i) {
      if (std::abs(column[i]) > largest) {
        largest = std::abs(column[i]);
        p = i;
      }
    }
    pivots[k] = static_cast<int>(p + 1);
    if (column[p] != DType(0)) {
      if (p != k) {
        for (index_t j = 0; j < n; ++j) std::swap(m[j * ld + k], m[j * ld + p]);
      }
      // LAPACK multiplies by the reciprocal unless it would overflow.
      const DType pivot = column[k];
      if (std::abs(pivot) >= std::numeric_limits<DType>::min()) {
        const DType reciprocal = DType(1) / pivot;
        OPS_SIMD_LOOP
        for (index_t i = k + 1; i < n; ++i) column[i] *= reciprocal;
      } else {
        for (index_t i = k + 1; i < n; ++i) column[i] /= pivot;
      }
    } else if (info == 0) {
      info = static_cast<int>(k + 1);
    }
    // The trailing columns less the outer product of column k's multipliers and row k.
    for (index_t j = k + 1; j < n; ++j) {
      DType* target = m + j * ld;
      const DType factor = target[k];
      OPS_SIMD_LOOP
      for (index_t i = k + 1; i < n; ++i) target[i] -= column[i] * factor;
    }
  }
  return info;
}

}  // namespace small_lu
}  // namespace ops

#endif  // OPS_SMALL_LU_H_
