// ops/linalg_lapack.h: `Lapack<xpu, DType>`, the factorizations and triangular products that
// the linear-algebra operators (linalg_triangular, linalg_lu, linalg_orthogonal) run on every
// matrix of a batch, for float and double. This header is the CPU's, through OpenBLAS's BLAS
// and LAPACK; the GPU's, through cuBLAS and cuSOLVER, is ops/linalg_lapack_gpu.h. The
// operators are written once against either.
//
// A batch is a Tensor<xpu, 3, DType> of row-major matrices, each contiguous (stride = the
// columns). LAPACK is column-major: it sees each row-major matrix as its transpose, so a
// row-major lower triangle is its upper one ('U'), and a factorization of the transpose is
// read back accordingly (each function says how). Failures that the input causes (a matrix
// that is not positive definite) are dmlc::Errors naming the matrix's place in the batch.
#ifndef OPS_LINALG_LAPACK_H_
#define OPS_LINALG_LAPACK_H_

#include <cblas.h>

#include <climits>
#include <cstddef>
#include <string>
#include <vector>

#include "dmlc/logging.h"
#include "mshadow/parallel.h"
#include "mshadow/tensor.h"
#include "ops/blocked_triangular.h"
#include "ops/small_lu.h"
#include "ops/small_triangular.h"

// LAPACK's Fortran entry points in OpenBLAS; the trailing size_t arguments are the lengths of
// the character arguments, which gfortran passes hidden.
extern "C" {
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t);
void spotri_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t);
void dpotri_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t);
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetri_(const int* n, float* a, const int* lda, const int* ipiv, float* work, const int* lwork,
             int* info);
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work,
             const int* lwork, int* info);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w,
             float* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t,
             size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
             double* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t,
             size_t);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work,
             const int* lwork, int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau,
             float* work, const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau,
             double* work, const int* lwork, int* info);
}

namespace ops {
namespace linalg {

template <typename xpu, typename DType>
struct Lapack;

// A matrix extent as LAPACK's int; a dmlc::Error beyond it.
inline int LapackInt(mshadow::index_t v, const char* what) {
  if (v > INT_MAX) {
    throw dmlc::Error(std::string(what) + " " + std::to_string(v) +
                      " exceeds LAPACK's 32-bit extents (at most " + std::to_string(INT_MAX) + ")");
  }
  return static_cast<int>(v);
}

// The errors the input causes, naming the matrix's place in the batch (the operator's name
// comes first when the registry passes them on).
[[noreturn]] inline void ThrowNotPositiveDefinite(mshadow::index_t matrix, int order) {
  throw dmlc::Error("matrix " + std::to_string(matrix) +
                    " of the batch is not positive definite (its leading minor of order " +
                    std::to_string(order) + " is not); valid: symmetric positive definite " +
                    "matrices, of which the lower triangle is read");
}

[[noreturn]] inline void ThrowBadMatrix(mshadow::index_t matrix, const char* why) {
  throw dmlc::Error("matrix " + std::to_string(matrix) + " of the batch " + why);
}

namespace cpu_lapack {

// The LAPACK and CBLAS functions of one element type, so that Lapack<cpu, DType> is written once.
template <typename DType>
struct Functions;

template <>
struct Functions<float> {
  static constexpr auto potrf = spotrf_;
  static constexpr auto potri = spotri_;
  static constexpr auto getrf = sgetrf_;
  static constexpr auto getri = sgetri_;
  static constexpr auto syevd = ssyevd_;
  static constexpr auto geqrf = sgeqrf_;
  static constexpr auto orgqr = sorgqr_;
  static constexpr auto trmm = cblas_strmm;
  static constexpr auto trsm = cblas_strsm;
  static constexpr auto syrk = cblas_ssyrk;
};

template <>
struct Functions<double> {
  static constexpr auto potrf = dpotrf_;
  static constexpr auto potri = dpotri_;
  static constexpr auto getrf = dgetrf_;
  static constexpr auto getri = dgetri_;
  static constexpr auto syevd = dsyevd_;
  static constexpr auto geqrf = dgeqrf_;
  static constexpr auto orgqr = dorgqr_;
  static constexpr auto trmm = cblas_dtrmm;
  static constexpr auto trsm = cblas_dtrsm;
  static constexpr auto syrk = cblas_dsyrk;
};

}  // namespace cpu_lapack

template <typename DType>
struct Lapack<mshadow::cpu, DType> {
  using F = cpu_lapack::Functions<DType>;
  using Batch = mshadow::Tensor<mshadow::cpu, 3, DType>;
  using Stream = mshadow::Stream<mshadow::cpu>;

  // b = alpha op(a) b, or alpha b op(a) with `rightside`: a square and triangular (its lower
  // triangle with `lower`, else its upper one; the other is not read). Matrices of order up to
  // small_triangular::kMaxOrder on the library's threads, a matrix each; larger ones to BLAS.
  static void Trmm(Stream*, const Batch& a, const Batch& b, bool rightside, bool lower,
                   bool transpose, DType alpha) {
    if (a.size(1) <= small_triangular::kMaxOrder) {
      return SmallTriangular<false>(a, b, rightside, lower, transpose, alpha);
    }
    ForEach(a.size(0), [&](index_t i) {
      F::trmm(CblasRowMajor, rightside ? CblasRight : CblasLeft, lower ? CblasLower : CblasUpper,
              transpose ? CblasTrans : CblasNoTrans, CblasNonUnit, Int(b.size(1)), Int(b.size(2)),
              alpha, a[i].dptr_, Ld(a.size(2)), b[i].dptr_, Ld(b.size(2)));
    });
  }

  // b = alpha op(a)^-1 b, or alpha b op(a)^-1 with `rightside` (a as for Trmm). A zero on a's
  // diagonal divides by zero, as BLAS does: infinities and NaN.
  static void Trsm(Stream*, const Batch& a, const Batch& b, bool rightside, bool lower,
                   bool transpose, DType alpha) {
    if (a.size(1) <= small_triangular::kMaxOrder) {
      return SmallTriangular<true>(a, b, rightside, lower, transpose, alpha);
    }
    // From the right on one thread, large triangles by blocks on the register-tiled products,
    // which ran them 1.13-1.23x faster than OpenBLAS's trsm (from the left 0.87-1.14x). On more
    // threads OpenBLAS's: its threads, still spinning after the BLAS call before (trmm in
    // potrf's gradient), took a core from the library's (potrf's gradient at 0.75-0.90 of its
    // time through OpenBLAS; docs/benchmarks.md, sixty-first session).
    if (rightside && mshadow::GetNumThreads() == 1) {
      ForEach(a.size(0), [&](index_t i) {
        blocked_triangular::Solve(a[i].dptr_, a.size(2), a.size(1), lower, transpose, rightside,
                                  alpha, b[i].dptr_, b.size(2), b.size(1), b.size(2));
      });
      return;
    }
    ForEach(a.size(0), [&](index_t i) {
      F::trsm(CblasRowMajor, rightside ? CblasRight : CblasLeft, lower ? CblasLower : CblasUpper,
              transpose ? CblasTrans : CblasNoTrans, CblasNonUnit, Int(b.size(1)), Int(b.size(2)),
              alpha, a[i].dptr_, Ld(a.size(2)), b[i].dptr_, Ld(b.size(2)));
    });
  }

  // The lower triangle of c = alpha a a^T, or alpha a^T a with `transpose`; c's upper triangle
  // is left as it was.
  static void Syrk(Stream*, const Batch& a, const Batch& c, bool transpose, DType alpha) {
    const int k = Int(transpose ? a.size(1) : a.size(2));
    ForEach(a.size(0), [&](index_t i) {
      F::syrk(CblasRowMajor, CblasLower, transpose ? CblasTrans : CblasNoTrans, Int(c.size(1)), k,
              alpha, a[i].dptr_, Ld(a.size(2)), DType(0), c[i].dptr_, Ld(c.size(2)));
    });
  }

  // a's lower triangle (the upper one is not read) becomes its Cholesky factor L, a = L L^T;
  // the upper triangle is left as it was. A matrix that is not positive definite is a
  // dmlc::Error.
  static void Potrf(Stream*, const Batch& a) {
    const int n = Int(a.size(1)), ld = Ld(a.size(1));
    ForEach(a.size(0), [&](index_t i) {
      int info = 0;
      F::potrf("U", &n, a[i].dptr_, &ld, &info, 1);
      if (info > 0) ThrowNotPositiveDefinite(i, info);
      CHECK_EQ(info, 0) << "potrf: bad argument " << -info;
    });
  }

  // From a Cholesky factor L in a's lower triangle, the lower triangle of (L L^T)^-1; the
  // upper one is left as it was. A zero on L's diagonal is a dmlc::Error.
  static void Potri(Stream*, const Batch& a) {
    const int n = Int(a.size(1)), ld = Ld(a.size(1));
    ForEach(a.size(0), [&](index_t i) {
      int info = 0;
      F::potri("U", &n, a[i].dptr_, &ld, &info, 1);
      if (info > 0) ThrowBadMatrix(i, "has a zero on its diagonal: (L L^T) is singular");
      CHECK_EQ(info, 0) << "potri: bad argument " << -info;
    });
  }

  // LU factorization with partial pivoting, in place, of each matrix's transpose (what LAPACK
  // sees): a^T = P L U. det(a) is the product of U's diagonal (a's diagonal after the call)
  // times (-1) for every pivot i (1-based) != i + 1. Returns each matrix's LAPACK info: k > 0
  // where U's k-th diagonal element is zero (a singular matrix). Matrices of order up to
  // small_lu::kMaxOrder by small_lu::Factor (LAPACK's layout and pivots), larger ones by LAPACK.
  static std::vector<int> Getrf(Stream*, const Batch& a,
                                const mshadow::Tensor<mshadow::cpu, 2, int>& pivots) {
    const int n = Int(a.size(1)), ld = Ld(a.size(1));
    std::vector<int> info(a.size(0));
    const index_t order = a.size(1);
    if (order <= small_lu::kMaxOrder) {  // a matrix a thread at a time
      ParallelRows(a.size(0), order * order * order / 3, [&](index_t begin, index_t end) {
        for (index_t i = begin; i < end; ++i) {
          info[i] = small_lu::Factor<DType>(order, a[i].dptr_, ld, pivots[i].dptr_);
        }
      });
      return info;
    }
    ForEach(a.size(0), [&](index_t i) {
      F::getrf(&n, &n, a[i].dptr_, &ld, pivots[i].dptr_, &info[i]);
      CHECK_GE(info[i], 0) << "getrf: bad argument " << -info[i];
    });
    return info;
  }

  // inverse = the inverse of the matrices whose Getrf factors lu holds; none may be singular.
  static void Getri(Stream*, const Batch& lu, const mshadow::Tensor<mshadow::cpu, 2, int>& pivots,
                    const Batch& inverse) {
    const int n = Int(lu.size(1)), ld = Ld(lu.size(1));
    if (lu.size(0) == 0) return;
    mshadow::Copy(inverse, lu);
    std::vector<DType> work(QueryWork([&](DType* w, const int* lwork, int* info) {
      F::getri(&n, inverse[0].dptr_, &ld, pivots[0].dptr_, w, lwork, info);
    }));
    const int lwork = static_cast<int>(work.size());
    ForEach(lu.size(0), [&](index_t i) {
      int info = 0;
      F::getri(&n, inverse[i].dptr_, &ld, pivots[i].dptr_, work.data(), &lwork, &info);
      CHECK_EQ(info, 0) << "getri: info " << info;
    });
  }

  // Eigen-decomposition of the symmetric matrices whose lower triangles a holds: a's rows
  // become the eigenvectors (unit length, signs as LAPACK leaves them), w's rows the
  // eigenvalues, ascending, one per row of a.
  static void Syevd(Stream*, const Batch& a, const mshadow::Tensor<mshadow::cpu, 2, DType>& w) {
    const int n = Int(a.size(1)), ld = Ld(a.size(1));
    std::vector<DType> work;
    std::vector<int> iwork;
    ForEach(a.size(0), [&](index_t i) {
      DType work_size = 0;
      int iwork_size = 0, info = 0;
      const int query = -1;
      F::syevd("V", "U", &n, a[i].dptr_, &ld, w[i].dptr_, &work_size, &query, &iwork_size, &query,
               &info, 1, 1);
      work.resize(static_cast<size_t>(work_size) + 1);
      iwork.resize(static_cast<size_t>(iwork_size) + 1);
      const int lwork = static_cast<int>(work.size()), liwork = static_cast<int>(iwork.size());
      F::syevd("V", "U", &n, a[i].dptr_, &ld, w[i].dptr_, work.data(), &lwork, iwork.data(),
               &liwork, &info, 1, 1);
      if (info > 0) ThrowBadMatrix(i, "has eigenvalues that did not converge");
      CHECK_EQ(info, 0) << "syevd: bad argument " << -info;
    });
  }

  // For a of m x n row-major matrices, m <= n: the QR factorization of each transpose (what
  // LAPACK sees, n x m), a^T = Q R, as Householder reflectors in a and tau (m per matrix). R's
  // upper triangle is then the lower triangle of a's first m columns: a = R^T Q^T, an LQ
  // factorization.
  static void Geqrf(Stream*, const Batch& a, const mshadow::Tensor<mshadow::cpu, 2, DType>& tau) {
    const int rows = Int(a.size(2)), columns = Int(a.size(1)),
              ld = Ld(a.size(2));  // of the transposes
    if (a.size(0) == 0) return;
    std::vector<DType> work(QueryWork([&](DType* w, const int* lwork, int* info) {
      F::geqrf(&rows, &columns, a[0].dptr_, &ld, tau[0].dptr_, w, lwork, info);
    }));
    const int lwork = static_cast<int>(work.size());
    ForEach(a.size(0), [&](index_t i) {
      int info = 0;
      F::geqrf(&rows, &columns, a[i].dptr_, &ld, tau[i].dptr_, work.data(), &lwork, &info);
      CHECK_EQ(info, 0) << "geqrf: bad argument " << -info;
    });
  }

  // After Geqrf: a = Q^T, the m orthonormal rows of the LQ factorization.
  static void Orgqr(Stream*, const Batch& a, const mshadow::Tensor<mshadow::cpu, 2, DType>& tau) {
    const int rows = Int(a.size(2)), columns = Int(a.size(1)), ld = Ld(a.size(2));
    if (a.size(0) == 0) return;
    std::vector<DType> work(QueryWork([&](DType* w, const int* lwork, int* info) {
      F::orgqr(&rows, &columns, &columns, a[0].dptr_, &ld, tau[0].dptr_, w, lwork, info);
    }));
    const int lwork = static_cast<int>(work.size());
    ForEach(a.size(0), [&](index_t i) {
      int info = 0;
      F::orgqr(&rows, &columns, &columns, a[i].dptr_, &ld, tau[i].dptr_, work.data(), &lwork,
               &info);
      CHECK_EQ(info, 0) << "orgqr: bad argument " << -info;
    });
  }

 private:
  using index_t = mshadow::index_t;

  static int Int(index_t v) { return LapackInt(v, "matrix extent"); }

  // Trmm (kSolve false) or Trsm of a batch of small matrices, on the library's threads.
  template <bool kSolve>
  static void SmallTriangular(const Batch& a, const Batch& b, bool rightside, bool lower,
                              bool transpose, DType alpha) {
    small_triangular::Batch<kSolve>(a.size(0), a.dptr_, a.size(1) * a.size(2), a.size(1), lower,
                                    transpose, rightside, alpha, b.dptr_, b.size(1) * b.size(2),
                                    b.size(1), b.size(2));
  }

  // A leading dimension: at least 1, as BLAS and LAPACK require even of empty matrices.
  static int Ld(index_t v) { return v == 0 ? 1 : Int(v); }

  // The matrices one after another: LAPACK and OpenBLAS spread a large one over their own
  // threads.
  template <typename Fn>
  static void ForEach(index_t batch, Fn&& fn) {
    for (index_t i = 0; i < batch; ++i) fn(i);
  }

  // The workspace LAPACK asks for, from a call with lwork = -1.
  template <typename Call>
  static size_t QueryWork(Call&& call) {
    DType size = 0;
    int info = 0;
    const int query = -1;
    call(&size, &query, &info);
    return static_cast<size_t>(size) + 1;
  }
};

}  // namespace linalg
}  // namespace ops

#endif  // OPS_LINALG_LAPACK_H_
