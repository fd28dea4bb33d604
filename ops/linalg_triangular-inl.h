// ops/linalg_triangular-inl.h: MXNet 1.9.1's triangular and Cholesky operators on batches of
// matrices (the last two axes), written once for every device on Lapack<xpu, DType>:
// _linalg_trmm (out = alpha op(A) B, A triangular), _linalg_trsm (out = alpha op(A)^-1 B),
// _linalg_syrk (out = alpha A A^T), _linalg_potrf (the Cholesky factor L of A = L L^T) and
// _linalg_potri (A^-1 from L), and their backward operators.
//
// Triangular operands are read in one triangle only, and gradients with respect to them are
// zero in the other; potrf reads A's lower triangle and, as MXNet, returns the gradient of the
// symmetric A it stands for (symmetric itself).
// linalg_triangular.cc registers them with FCompute<cpu>, linalg_triangular.cu adds
// FCompute<gpu>.
#ifndef OPS_LINALG_TRIANGULAR_INL_H_
#define OPS_LINALG_TRIANGULAR_INL_H_

#include <vector>

#include "mshadow/tensor.h"
#include "ops/dot-inl.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/linalg_batch.h"
#include "ops/linalg_lapack.h"
#include "ops/transpose_block.h"
#include "ops/triangle_product.h"

namespace ops {
namespace linalg {

struct LinalgTriangularParam : public dmlc::Parameter<LinalgTriangularParam> {
  bool transpose;
  bool rightside;
  bool lower;
  double alpha;
  DMLC_DECLARE_PARAMETER(LinalgTriangularParam) {
    DMLC_DECLARE_FIELD(transpose).set_default(false).describe("Use the triangular A transposed.");
    DMLC_DECLARE_FIELD(rightside).set_default(false).describe(
        "A multiplies B from the right (B op(A)) instead of the left.");
    DMLC_DECLARE_FIELD(lower).set_default(true).describe(
        "A is lower triangular (its upper triangle is not read), else upper.");
    DMLC_DECLARE_FIELD(alpha).set_default(1.0).describe("The result's scale.");
  }
};

struct LinalgSyrkParam : public dmlc::Parameter<LinalgSyrkParam> {
  bool transpose;
  double alpha;
  DMLC_DECLARE_PARAMETER(LinalgSyrkParam) {
    DMLC_DECLARE_FIELD(transpose).set_default(false).describe(
        "alpha A^T A instead of alpha A A^T.");
    DMLC_DECLARE_FIELD(alpha).set_default(1.0).describe("The result's scale.");
  }
};

// s = g + g^T over a batch of n x n matrices.
struct add_transpose {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, index_t n, const DType* g, DType* s) {
    const index_t within = i % (n * n), row = within / n, column = within % n;
    s[i] = g[i] + g[i - within + column * n + row];
  }
};

// CPU item: matrix x, transposed through register squares, then g added (the element
// kernel's divisions: docs/benchmarks.md).
struct add_transpose_matrix {
  template <typename DType>
  static void Map(index_t x, index_t n, const DType* g, DType* s) {
    const DType* gm = g + x * n * n;
    DType* sm = s + x * n * n;
    transpose::Transpose2D<false>(gm, n, sm, n, n, n);
    OPS_SIMD_LOOP
    for (index_t i = 0; i < n * n; ++i) sm[i] += gm[i];
  }
};

template <typename xpu, typename DType>
void AddTranspose(mshadow::Stream<xpu>* s, const Tensor<xpu, 3, DType>& g,
                  const Tensor<xpu, 3, DType>& sum) {
  const index_t n = g.size(1);
  if constexpr (std::is_same_v<xpu, cpu>) {
    Kernel<add_transpose_matrix, cpu>::LaunchItems(s, g.size(0), n * n, n, g.dptr_, sum.dptr_);
  } else {
    Kernel<add_transpose, xpu>::Launch(s, g.shape_.Size(), n, g.dptr_, sum.dptr_);
  }
}

// Inputs A, B: out = alpha op(A) B (or B op(A)), or with `solve` alpha op(A)^-1 B.
template <typename xpu, bool solve>
void TriangularCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = GetParam<LinalgTriangularParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    using L = Lapack<xpu, DType>;
    Result<xpu, DType> r(out[0], req[0], s, in[1]);
    const auto a = MatrixBatch<xpu, DType>(in[0], s);
    (solve ? L::Trsm : L::Trmm)(s, a, r.matrices(), p.rightside, p.lower, p.transpose,
                                DType(p.alpha));
    r.Commit();
  });
}

// Inputs dOut, A, B: dB = alpha op(A)^T dOut (or dOut op(A)^T); dA, in A's triangle, is
// alpha dOut B^T as op(A) sees it (B^T dOut from the right), transposed with A.
template <typename xpu>
void TrmmBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = GetParam<LinalgTriangularParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const auto g = MatrixBatch<xpu, DType>(in[0], s), a = MatrixBatch<xpu, DType>(in[1], s),
               b = MatrixBatch<xpu, DType>(in[2], s);
    const DType alpha(p.alpha);
    if (req[0] != kNullOp) {
      Result<xpu, DType> da(out[0], req[0], s);
      // The gradient of op(A) is alpha dOut B^T (left) or alpha B^T dOut (right); A's is its
      // transpose when A is used transposed.
      const bool swap = p.transpose;
      if (!p.rightside) {
        swap ? TriangleOfProduct(s, da.matrices(), b, false, g, true, alpha, p.lower)
             : TriangleOfProduct(s, da.matrices(), g, false, b, true, alpha, p.lower);
      } else {
        swap ? TriangleOfProduct(s, da.matrices(), g, true, b, false, alpha, p.lower)
             : TriangleOfProduct(s, da.matrices(), b, true, g, false, alpha, p.lower);
      }
      da.Commit();
    }
    if (req[1] != kNullOp) {
      Result<xpu, DType> db(out[1], req[1], s, in[0]);
      Lapack<xpu, DType>::Trmm(s, a, db.matrices(), p.rightside, p.lower, !p.transpose, alpha);
      db.Commit();
    }
  });
}

// Inputs dOut, A, B, out: with dBu = op(A)^-T dOut (or dOut op(A)^-T), dB = alpha dBu and the
// gradient of op(A) is -dBu out^T (or -out^T dBu), transposed with A, in A's triangle.
template <typename xpu>
void TrsmBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = GetParam<LinalgTriangularParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  if (req[0] == kNullOp && req[1] == kNullOp) return;
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const auto a = MatrixBatch<xpu, DType>(in[1], s), y = MatrixBatch<xpu, DType>(in[3], s);
    Result<xpu, DType> db(out[1], req[1], s, in[0]);
    const auto dbu = db.matrices();
    Lapack<xpu, DType>::Trsm(s, a, dbu, p.rightside, p.lower, !p.transpose, DType(1));
    if (req[0] != kNullOp) {
      Result<xpu, DType> da(out[0], req[0], s);
      const bool swap = p.transpose;
      const DType minus(-1);
      if (!p.rightside) {
        swap ? TriangleOfProduct(s, da.matrices(), y, false, dbu, true, minus, p.lower)
             : TriangleOfProduct(s, da.matrices(), dbu, false, y, true, minus, p.lower);
      } else {
        swap ? TriangleOfProduct(s, da.matrices(), dbu, true, y, false, minus, p.lower)
             : TriangleOfProduct(s, da.matrices(), y, true, dbu, false, minus, p.lower);
      }
      da.Commit();
    }
    if (req[1] != kNullOp) {
      if (p.alpha != 1.0) {
        Assign(db.flat(), kWriteTo, db.flat() * mshadow::expr::scalar<DType>(DType(p.alpha)));
      }
      db.Commit();
    }
  });
}

// Input A: out = alpha A A^T (or alpha A^T A), symmetric.
template <typename xpu>
void SyrkCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = GetParam<LinalgSyrkParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    Result<xpu, DType> r(out[0], req[0], s);
    Lapack<xpu, DType>::Syrk(s, MatrixBatch<xpu, DType>(in[0], s), r.matrices(), p.transpose,
                             DType(p.alpha));
    ForEachMatrixElement<mirror_lower>(s, r.matrices());
    r.Commit();
  });
}

// Inputs dOut, A: dA = alpha (dOut + dOut^T) A (or alpha A (dOut + dOut^T)).
template <typename xpu>
void SyrkBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = GetParam<LinalgSyrkParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const auto g = MatrixBatch<xpu, DType>(in[0], s), a = MatrixBatch<xpu, DType>(in[1], s);
    const auto sum = BatchAt<xpu, DType>(TempPieces<xpu, DType>(ctx, s, {g.shape_.Size()})[0],
                                         g.size(0), g.size(1), g.size(2), s);
    AddTranspose(s, g, sum);
    Result<xpu, DType> da(out[0], req[0], s);
    p.transpose ? matmul::Product(da.matrices(), kWriteTo, a, false, sum, false, DType(p.alpha))
                : matmul::Product(da.matrices(), kWriteTo, sum, false, a, false, DType(p.alpha));
    da.Commit();
  });
}

// potrf (input A: out = L, A = L L^T, from A's lower triangle; zeros above L's diagonal) or,
// with kInverse, potri (input L: out = (L L^T)^-1, symmetric).
template <typename xpu, bool kInverse>
void CholeskyCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    Result<xpu, DType> r(out[0], req[0], s, in[0]);
    if constexpr (kInverse) {
      Lapack<xpu, DType>::Potri(s, r.matrices());
      ForEachMatrixElement<mirror_lower>(s, r.matrices());
    } else {
      Lapack<xpu, DType>::Potrf(s, r.matrices());
      ForEachMatrixElement<keep_triangle>(s, r.matrices(), true);
    }
    r.Commit();
  });
}

// Inputs dL, L: dA = L^-T copyLTU(L^T dL) L^-1 / 2, copyLTU making a symmetric matrix of the
// lower triangle (MXNet's formula; the gradient of the symmetric A).
template <typename xpu>
void PotrfBackwardCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    using L = Lapack<xpu, DType>;
    const auto l = MatrixBatch<xpu, DType>(in[1], s);
    Result<xpu, DType> da(out[0], req[0], s, in[0]);
    const auto m = da.matrices();
    L::Trmm(s, l, m, false, true, true, DType(1));  // L^T dL
    ForEachMatrixElement<mirror_lower>(s, m);
    L::Trsm(s, l, m, false, true, true, DType(1));    // L^-T ...
    L::Trsm(s, l, m, true, true, false, DType(0.5));  // ... L^-1 / 2
    da.Commit();
  });
}

// Inputs dOut, L, out: dL = -tril(out (dOut + dOut^T) L^-T).
template <typename xpu>
void PotriBackwardCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const auto g = MatrixBatch<xpu, DType>(in[0], s), l = MatrixBatch<xpu, DType>(in[1], s),
               inverse = MatrixBatch<xpu, DType>(in[2], s);
    const auto sum = BatchAt<xpu, DType>(TempPieces<xpu, DType>(ctx, s, {g.shape_.Size()})[0],
                                         g.size(0), g.size(1), g.size(2), s);
    AddTranspose(s, g, sum);
    Result<xpu, DType> dl(out[0], req[0], s);
    matmul::Product(dl.matrices(), kWriteTo, inverse, false, sum, false, DType(-1));
    Lapack<xpu, DType>::Trsm(s, l, dl.matrices(), true, true, true, DType(1));
    ForEachMatrixElement<keep_triangle>(s, dl.matrices(), true);
    dl.Commit();
  });
}

// Adds FCompute<xpu> to the operators and their backward operators.
template <typename xpu>
void SetLinalgTriangularCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  const auto set = [&](const char* name, FCompute fn) {
    RegisterOp(name).set_attr<FCompute>(attr_name, fn);
  };
  set("_linalg_trmm", TriangularCompute<xpu, false>);
  set("_backward_linalg_trmm", TrmmBackwardCompute<xpu>);
  set("_linalg_trsm", TriangularCompute<xpu, true>);
  set("_backward_linalg_trsm", TrsmBackwardCompute<xpu>);
  set("_linalg_syrk", SyrkCompute<xpu>);
  set("_backward_linalg_syrk", SyrkBackwardCompute<xpu>);
  set("_linalg_potrf", CholeskyCompute<xpu, false>);
  set("_backward_linalg_potrf", PotrfBackwardCompute<xpu>);
  set("_linalg_potri", CholeskyCompute<xpu, true>);
  set("_backward_linalg_potri", PotriBackwardCompute<xpu>);
}

}  // namespace linalg
}  // namespace ops

#endif  // OPS_LINALG_TRIANGULAR_INL_H_
