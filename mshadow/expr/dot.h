// mshadow/expr/dot.h: `DotExp`, matrix products evaluated by BLAS.
//
//   C = dot(A, B);              // C[m,n] = A[m,k] B[k,n]
//   C += dot(A.T(), B) * 0.5f;  // transposes and a scale map onto one gemm call
//   y = dot(x, W);              // vector x matrix (gemv)
//   M = dot(u.T(), v);          // outer product of two vectors (ger)
//   Z = batch_dot<false, true>(X, Y);  // Z[b] = X[b] Y[b]^T for 3-D tensors
//
// Transpose convention: `ltrans`/`rtrans` mean the operand is used transposed; the tensors
// themselves are row-major and never copied.
#ifndef MSHADOW_EXPR_DOT_H_
#define MSHADOW_EXPR_DOT_H_

#include "mshadow/expr/elementwise.h"
#include "mshadow/expr/rvalue.h"
#include "mshadow/expr/transpose.h"

namespace mshadow {

// Computes dst SV= scale * op(lhs) op(rhs) on a device. Defined by the device backends
// (mshadow/dot_engine.h for the CPU with BLAS); dimensions select gemm, gemv, ger or batched
// gemm.
template <typename SV, typename Device, int ddim, int ldim, int rdim, bool ltrans, bool rtrans,
          typename DType>
struct DotEngine;

namespace expr {

template <typename TA, typename TB, bool ltrans, bool rtrans, typename DType>
struct DotExp : public Exp<DotExp<TA, TB, ltrans, rtrans, DType>, DType, type::kComplex> {
  const TA& lhs_;
  const TB& rhs_;
  // The product is multiplied by this (BLAS alpha).
  DType scale_;
  DotExp(const TA& lhs, const TB& rhs, DType scale) : lhs_(lhs), rhs_(rhs), scale_(scale) {}
};

template <typename TA, typename TB, typename DType>
inline DotExp<TA, TB, false, false, DType> dot(const RValueExp<TA, DType>& lhs,
                                               const RValueExp<TB, DType>& rhs) {
  return DotExp<TA, TB, false, false, DType>(lhs.self(), rhs.self(), DType(1));
}
template <typename TA, typename TB, typename DType>
inline DotExp<TA, TB, true, false, DType> dot(const TransposeExp<TA, DType>& lhs,
                                              const RValueExp<TB, DType>& rhs) {
  return DotExp<TA, TB, true, false, DType>(lhs.exp, rhs.self(), DType(1));
}
template <typename TA, typename TB, typename DType>
inline DotExp<TA, TB, false, true, DType> dot(const RValueExp<TA, DType>& lhs,
                                              const TransposeExp<TB, DType>& rhs) {
  return DotExp<TA, TB, false, true, DType>(lhs.self(), rhs.exp, DType(1));
}
template <typename TA, typename TB, typename DType>
inline DotExp<TA, TB, true, true, DType> dot(const TransposeExp<TA, DType>& lhs,
                                             const TransposeExp<TB, DType>& rhs) {
  return DotExp<TA, TB, true, true, DType>(lhs.exp, rhs.exp, DType(1));
}

// Batched product of 3-D tensors: result[b] = op(lhs[b]) * op(rhs[b]), where op transposes
// the last two dimensions when the flag is set.
template <bool transpose_left, bool transpose_right, typename TA, typename TB, typename DType>
inline DotExp<TA, TB, transpose_left, transpose_right, DType> batch_dot(
    const RValueExp<TA, DType>& lhs, const RValueExp<TB, DType>& rhs) {
  return DotExp<TA, TB, transpose_left, transpose_right, DType>(lhs.self(), rhs.self(),
                                                                DType(1));
}

// dot(a, b) * s and s * dot(a, b) only change the BLAS alpha.
template <typename TA, typename TB, bool ltrans, bool rtrans, typename DType>
inline DotExp<TA, TB, ltrans, rtrans, DType> operator*(
    const DotExp<TA, TB, ltrans, rtrans, DType>& lhs, typename NonDeduced<DType>::type s) {
  return DotExp<TA, TB, ltrans, rtrans, DType>(lhs.lhs_, lhs.rhs_, lhs.scale_ * s);
}
template <typename TA, typename TB, bool ltrans, bool rtrans, typename DType>
inline DotExp<TA, TB, ltrans, rtrans, DType> operator*(
    typename NonDeduced<DType>::type s, const DotExp<TA, TB, ltrans, rtrans, DType>& rhs) {
  return rhs * s;
}
template <typename TA, typename TB, bool ltrans, bool rtrans, typename DType>
inline DotExp<TA, TB, ltrans, rtrans, DType> operator*(
    const DotExp<TA, TB, ltrans, rtrans, DType>& lhs, const ScalarExp<DType>& s) {
  return lhs * s.scalar_;
}
template <typename TA, typename TB, bool ltrans, bool rtrans, typename DType>
inline DotExp<TA, TB, ltrans, rtrans, DType> operator*(
    const ScalarExp<DType>& s, const DotExp<TA, TB, ltrans, rtrans, DType>& rhs) {
  return rhs * s.scalar_;
}

template <typename SV, typename Device, int ddim, int ldim, int rdim, bool ltrans, bool rtrans,
          typename DType>
struct ExpComplexEngine<SV, Tensor<Device, ddim, DType>,
                        DotExp<Tensor<Device, ldim, DType>, Tensor<Device, rdim, DType>, ltrans,
                               rtrans, DType>,
                        DType> {
  static void Eval(Tensor<Device, ddim, DType>* dst,
                   const DotExp<Tensor<Device, ldim, DType>, Tensor<Device, rdim, DType>, ltrans,
                                rtrans, DType>& exp) {
    DotEngine<SV, Device, ddim, ldim, rdim, ltrans, rtrans, DType>::Eval(dst, exp.lhs_, exp.rhs_,
                                                                         exp.scale_);
  }
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXPR_DOT_H_
