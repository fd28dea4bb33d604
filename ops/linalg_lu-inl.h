// ops/linalg_lu-inl.h: MXNet 1.9.1's operators on the LU factorization of batches of square
// matrices (the last two axes), written once for every device on Lapack<xpu, DType>:
// _linalg_inverse, _linalg_det and _linalg_slogdet, and their backward operators.
//
// Each factors a copy of A with partial pivoting (A itself is never written). The determinant
// is the product of U's diagonal, negated for every row exchange: zero for a singular matrix,
// whose slogdet is sign 0 and log|det| -inf (as MXNet and NumPy). Inverting a singular
// matrix, or differentiating the determinant of one (its gradient would need the adjugate),
// is a dmlc::Error naming the matrix.
// linalg_lu.cc registers them with FCompute<cpu>, linalg_lu.cu adds FCompute<gpu>.
#ifndef OPS_LINALG_LU_INL_H_
#define OPS_LINALG_LU_INL_H_

#include <cmath>
#include <string>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/dot-inl.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/linalg_batch.h"
#include "ops/linalg_lapack.h"

namespace ops {
namespace linalg {

// The determinant of matrix b from its LU factors (n x n, U's diagonal on the matrix's) and
// LAPACK's 1-based pivots: det in value[b], or with `logarithm` its sign in sign[b] and
// log|det| in value[b] (summed, so that it neither overflows nor underflows).
struct determinant_from_lu {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t b, index_t n, const DType* lu, const int* pivots,
                                  bool logarithm, DType* sign, DType* value) {
    const DType* u = lu + b * n * n;
    const int* p = pivots + b * n;
    bool negative = false, zero = false;
    DType product(1), log_sum(0);
    for (index_t i = 0; i < n; ++i) {
      const DType d = u[i * n + i];
      if (p[i] != static_cast<int>(i + 1)) negative = !negative;  // a row exchange
      if (d < DType(0)) negative = !negative;
      zero = zero || d == DType(0);
      if (logarithm) {
        log_sum += DType(std::log(d < DType(0) ? -d : d));
      } else {
        product *= d < DType(0) ? -d : d;
      }
    }
    if (!logarithm) {
      value[b] = negative ? -product : product;
      return;
    }
    sign[b] = zero ? DType(0) : (negative ? DType(-1) : DType(1));
    value[b] = log_sum;
  }
};

// da[b] = scale[b] (times factor[b] where given) times inverse[b]^T, over every element.
struct scaled_inverse_transpose {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, index_t n, const DType* inverse, const DType* scale,
                                  const DType* factor, DType* da) {
    const index_t within = i % (n * n), b = i / (n * n), row = within / n, column = within % n;
    const DType s = factor != nullptr ? scale[b] * factor[b] : scale[b];
    da[i] = s * inverse[b * n * n + column * n + row];
  }
};

// The LU factors of a copy of `a` and their pivots, in the operator's scratch (which holds
// `extra` more DTypes after them, for the caller).
template <typename xpu, typename DType>
struct LuFactors {
  Tensor<xpu, 3, DType> lu;
  Tensor<xpu, 2, int> pivots;
  DType* extra;
  std::vector<int> info;  // LAPACK's: k > 0 where U's k-th diagonal element is zero

  LuFactors(const OpContext& ctx, mshadow::Stream<xpu>* s, const Tensor<xpu, 3, DType>& a,
            index_t extra_size = 0) {
    const index_t batch = a.size(0), n = a.size(1);
    const std::vector<DType*> pieces =
        TempPieces<xpu, DType>(ctx, s, {a.shape_.Size(), IntSlots<DType>(batch * n), extra_size});
    lu = BatchAt<xpu, DType>(pieces[0], batch, n, n, s);
    pivots = Tensor<xpu, 2, int>(reinterpret_cast<int*>(pieces[1]), mshadow::Shape2(batch, n), s);
    extra = pieces[2];
    mshadow::Copy(lu, a, s);
    info = Lapack<xpu, DType>::Getrf(s, lu, pivots);
  }

  // A dmlc::Error naming the first singular matrix, for what needs the inverse.
  void RequireInvertible(const char* why) const {
    for (size_t b = 0; b < info.size(); ++b) {
      if (info[b] > 0) {
        throw dmlc::Error("matrix " + std::to_string(b) + " of the batch is singular (U's " +
                          "diagonal element " + std::to_string(info[b] - 1) + " is zero): " + why +
                          "; valid: invertible matrices");
      }
    }
  }

  // inverse = a^-1 for every matrix; a dmlc::Error for a singular one.
  void Invert(mshadow::Stream<xpu>* s, const Tensor<xpu, 3, DType>& inverse, const char* why) {
    RequireInvertible(why);
    Lapack<xpu, DType>::Getri(s, lu, pivots, inverse);
  }
};

// Input A: out = A^-1.
template <typename xpu>
void InverseCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    LuFactors<xpu, DType> factors(ctx, s, MatrixBatch<xpu, DType>(in[0], s));
    Result<xpu, DType> r(out[0], req[0], s);
    factors.Invert(s, r.matrices(), "it has no inverse");
    r.Commit();
  });
}

// Inputs dOut, out = A^-1: dA = -out^T dOut out^T.
template <typename xpu>
void InverseBackwardCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const auto g = MatrixBatch<xpu, DType>(in[0], s), inverse = MatrixBatch<xpu, DType>(in[1], s);
    const auto product = BatchAt<xpu, DType>(TempPieces<xpu, DType>(ctx, s, {g.shape_.Size()})[0],
                                             g.size(0), g.size(1), g.size(2), s);
    matmul::Product(product, kWriteTo, inverse, true, g, false, DType(1));
    Result<xpu, DType> da(out[0], req[0], s);
    matmul::Product(da.matrices(), kWriteTo, product, false, inverse, true, DType(-1));
    da.Commit();
  });
}

// Input A: det(A) (or, with `log`, sign and log|det(A)|), one per matrix.
template <typename xpu, bool log>
void DeterminantCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  if (req[0] == kNullOp && (!log || req[1] == kNullOp)) return;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const auto a = MatrixBatch<xpu, DType>(in[0], s);
    LuFactors<xpu, DType> factors(ctx, s, a);
    Result<xpu, DType> first(out[0], req[0], s);
    if constexpr (log) {
      Result<xpu, DType> second(out[1], req[1], s);
      Kernel<determinant_from_lu, xpu>::Launch(s, a.size(0), a.size(1), factors.lu.dptr_,
                                               factors.pivots.dptr_, true, first.flat().dptr_,
                                               second.flat().dptr_);
      second.Commit();
    } else {
      Kernel<determinant_from_lu, xpu>::Launch(s, a.size(0), a.size(1), factors.lu.dptr_,
                                               factors.pivots.dptr_, false,
                                               static_cast<DType*>(nullptr), first.flat().dptr_);
    }
    first.Commit();
  });
}

// det: inputs dOut, A, det; dA = dOut det A^-T. slogdet: inputs dSign, dLogAbsDet, A, sign,
// logabsdet; dA = dLogAbsDet A^-T (the sign is constant where it is defined).
template <typename xpu, bool log>
void DeterminantBackwardCompute(const NodeAttrs&, const OpContext& ctx,
                                const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TBlob& g = in[log ? 1 : 0];
  const TBlob& a_blob = in[log ? 2 : 1];
  MSHADOW_SGL_DBL_TYPE_SWITCH(g.type_flag_, DType, {
    const auto a = MatrixBatch<xpu, DType>(a_blob, s);
    LuFactors<xpu, DType> factors(ctx, s, a, a.shape_.Size());
    const auto inverse = BatchAt<xpu, DType>(factors.extra, a.size(0), a.size(1), a.size(2), s);
    factors.Invert(s, inverse, "the determinant's gradient is not computed for it");
    Result<xpu, DType> da(out[0], req[0], s);
    const DType* factor = log ? nullptr : in[2].dptr<DType>();
    Kernel<scaled_inverse_transpose, xpu>::Launch(s, a.shape_.Size(), a.size(1), inverse.dptr_,
                                                  g.dptr<DType>(), factor, da.flat().dptr_);
    da.Commit();
  });
}

// Adds FCompute<xpu> to the operators and their backward operators.
template <typename xpu>
void SetLinalgLuCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  const auto set = [&](const char* name, FCompute fn) {
    RegisterOp(name).set_attr<FCompute>(attr_name, fn);
  };
  set("_linalg_inverse", InverseCompute<xpu>);
  set("_backward_linalg_inverse", InverseBackwardCompute<xpu>);
  set("_linalg_det", DeterminantCompute<xpu, false>);
  set("_backward_linalg_det", DeterminantBackwardCompute<xpu, false>);
  set("_linalg_slogdet", DeterminantCompute<xpu, true>);
  set("_backward_linalg_slogdet", DeterminantBackwardCompute<xpu, true>);
}

}  // namespace linalg
}  // namespace ops

#endif  // OPS_LINALG_LU_INL_H_
