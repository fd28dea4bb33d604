// ops/linalg_orthogonal-inl.h: MXNet 1.9.1's factorizations with an orthonormal factor, on
// batches of matrices (the last two axes), written once for every device on
// Lapack<xpu, DType>: _linalg_syevd (A = U^T diag(L) U for symmetric A, U's rows its
// eigenvectors) and _linalg_gelqf (A = L Q, Q's rows orthonormal, L lower triangular), and
// their backward operators.
//
// syevd reads A's lower triangle and returns the gradient of the symmetric A it stands for;
// each eigenvector's sign makes its element of largest magnitude (the first of equals)
// positive, as MXNet's, so that the result does not depend on the LAPACK build. gelqf is the
// QR factorization of A^T (Householder, as LAPACK and MXNet); L's diagonal may be negative.
// linalg_orthogonal.cc registers them with FCompute<cpu>, linalg_orthogonal.cu adds
// FCompute<gpu>.
#ifndef OPS_LINALG_ORTHOGONAL_INL_H_
#define OPS_LINALG_ORTHOGONAL_INL_H_

#include <vector>

#include "mshadow/tensor.h"
#include "ops/dot-inl.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/linalg_batch.h"
#include "ops/linalg_lapack.h"
#include "ops/triangle_product.h"

namespace ops {
namespace linalg {

// Row `row` of the n-column eigenvector matrices: negated unless its element of largest
// magnitude (the first of equals) is positive.
struct canonical_eigenvector_sign {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t row, index_t n, DType* u) {
    DType* r = u + row * n;
    index_t largest = 0;
    DType magnitude(0);
    for (index_t i = 0; i < n; ++i) {
      const DType m = r[i] < DType(0) ? -r[i] : r[i];
      if (m > magnitude) {
        magnitude = m;
        largest = i;
      }
    }
    if (r[largest] < DType(0)) {
      for (index_t i = 0; i < n; ++i) r[i] = -r[i];
    }
  }
};

// The inner matrix of syevd's gradient, S[b] with dA = U^T S U: dL on the diagonal and
// (X_ij - X_ji) / (2 (L_j - L_i)) off it, X = U dU^T; zero between equal eigenvalues, where
// the eigenvectors are not unique and the gradient is not defined.
struct eigen_gradient_core {
  template <typename DType>
  MSHADOW_XINLINE static void Element(index_t b, index_t row, index_t column, index_t n,
                                      DType* core, const DType* x, const DType* eigenvalues,
                                      const DType* d_eigenvalues) {
    DType* out = core + (b * n + row) * n + column;
    if (row == column) {
      *out = d_eigenvalues[b * n + row];
      return;
    }
    const DType* l = eigenvalues + b * n;
    const DType* xm = x + b * n * n;
    const DType gap = l[column] - l[row];
    const DType antisymmetric = xm[row * n + column] - xm[column * n + row];
    *out = gap == DType(0) ? DType(0) : antisymmetric / (DType(2) * gap);
  }
};

// l[b] = the lower triangle of the first m columns of the m x n matrix q[b] (zeros above).
struct lower_triangle_of_columns {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, index_t m, index_t n, const DType* q, DType* l) {
    const index_t b = i / (m * m), row = (i / m) % m, column = i % m;
    l[i] = column <= row ? q[(b * m + row) * n + column] : DType(0);
  }
};

// Input A: outputs U (rows the eigenvectors) and L (the eigenvalues, ascending).
template <typename xpu>
void SyevdCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp && req[1] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    Result<xpu, DType> u(out[0], req[0], s, in[0]), l(out[1], req[1], s);
    const auto vectors = u.matrices();
    const index_t batch = vectors.size(0), n = vectors.size(1);
    const Tensor<xpu, 2, DType> values(l.flat().dptr_, mshadow::Shape2(batch, n), s);
    Lapack<xpu, DType>::Syevd(s, vectors, values);
    Kernel<canonical_eigenvector_sign, xpu>::Launch(s, batch * n, n, vectors.dptr_);
    u.Commit();
    l.Commit();
  });
}

// Inputs dU, dL, U, L: dA = U^T S U (eigen_gradient_core), symmetric.
template <typename xpu>
void SyevdBackwardCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const auto du = MatrixBatch<xpu, DType>(in[0], s), u = MatrixBatch<xpu, DType>(in[2], s);
    const index_t batch = u.size(0), n = u.size(1), size = u.shape_.Size();
    const std::vector<DType*> pieces = TempPieces<xpu, DType>(ctx, s, {size, size});
    const auto x = BatchAt<xpu, DType>(pieces[0], batch, n, n, s);
    const auto core = BatchAt<xpu, DType>(pieces[1], batch, n, n, s);
    matmul::Product(x, kWriteTo, u, false, du, true, DType(1));
    ForEachMatrixElement<eigen_gradient_core>(s, core, static_cast<const DType*>(x.dptr_),
                                              in[3].dptr<DType>(), in[1].dptr<DType>());
    matmul::Product(x, kWriteTo, core, false, u, false, DType(1));  // S U
    Result<xpu, DType> da(out[0], req[0], s);
    matmul::Product(da.matrices(), kWriteTo, u, true, x, false, DType(1));
    da.Commit();
  });
}

// Input A (m x n, m <= n): outputs Q (m x n, orthonormal rows) and L (m x m, lower).
template <typename xpu>
void GelqfCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp && req[1] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    using Solver = Lapack<xpu, DType>;
    Result<xpu, DType> q(out[0], req[0], s, in[0]), l(out[1], req[1], s);
    const auto factors = q.matrices();
    const index_t batch = factors.size(0), m = factors.size(1), n = factors.size(2);
    const Tensor<xpu, 2, DType> tau(TempPieces<xpu, DType>(ctx, s, {batch * m})[0],
                                    mshadow::Shape2(batch, m), s);
    Solver::Geqrf(s, factors, tau);
    Kernel<lower_triangle_of_columns, xpu>::Launch(s, batch * m * m, m, n, factors.dptr_,
                                                   l.flat().dptr_);
    Solver::Orgqr(s, factors, tau);
    q.Commit();
    l.Commit();
  });
}

// Inputs dQ, dL, Q, L: with M = L^T dL - dQ Q^T, dA = L^-T (dQ + copyLTU(M) Q), copyLTU making
// a symmetric matrix of M's lower triangle (MXNet's formula).
template <typename xpu>
void GelqfBackwardCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const auto dq = MatrixBatch<xpu, DType>(in[0], s), dl = MatrixBatch<xpu, DType>(in[1], s),
               q = MatrixBatch<xpu, DType>(in[2], s), l = MatrixBatch<xpu, DType>(in[3], s);
    const index_t size = l.shape_.Size();
    const std::vector<DType*> pieces = TempPieces<xpu, DType>(ctx, s, {size, size});
    const auto m = BatchAt<xpu, DType>(pieces[0], l.size(0), l.size(1), l.size(2), s);
    const auto lt_dl = BatchAt<xpu, DType>(pieces[1], l.size(0), l.size(1), l.size(2), s);
    // copyLTU reads M's lower triangle alone: -dQ Q^T's triangle, L^T dL a triangular product.
    TriangleOfProduct(s, m, dq, false, q, true, DType(-1), true);
    mshadow::Copy(lt_dl, dl, s);
    Lapack<xpu, DType>::Trmm(s, l, lt_dl, false, true, true, DType(1));
    Assign(m, kAddTo, lt_dl);
    ForEachMatrixElement<mirror_lower>(s, m);
    Result<xpu, DType> da(out[0], req[0], s, in[0]);
    matmul::Product(da.matrices(), kAddTo, m, false, q, false, DType(1));
    Lapack<xpu, DType>::Trsm(s, l, da.matrices(), false, true, true, DType(1));
    da.Commit();
  });
}

// Adds FCompute<xpu> to the operators and their backward operators.
template <typename xpu>
void SetLinalgOrthogonalCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  const auto set = [&](const char* name, FCompute fn) {
    RegisterOp(name).set_attr<FCompute>(attr_name, fn);
  };
  set("_linalg_syevd", SyevdCompute<xpu>);
  set("_backward_linalg_syevd", SyevdBackwardCompute<xpu>);
  set("_linalg_gelqf", GelqfCompute<xpu>);
  set("_backward_linalg_gelqf", GelqfBackwardCompute<xpu>);
}

}  // namespace linalg
}  // namespace ops

#endif  // OPS_LINALG_ORTHOGONAL_INL_H_
