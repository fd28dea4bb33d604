// mshadow/dot_engine.h: the dot engine, for every device with a `BLASEngine<Device, DType>`:
// OpenBLAS (CBLAS) on the CPU (mshadow/cpu/blas_engine.h), cuBLAS on the GPU
// (mshadow/cuda/blas_engine.h). Float and double.
//
// dst SV= scale * op(lhs) op(rhs) maps onto a single BLAS call per matrix: gemm for 2-D
// operands (gemv when the result has one row), gemv for vector x matrix, ger for outer
// products and one batched gemm for batch_dot. Strided (padded or sliced) operands are passed
// through leading dimensions, never copied. Savers: `=` (beta 0), `+=` (beta 1), `-=` (alpha
// negated, beta 1).
#ifndef MSHADOW_DOT_ENGINE_H_
#define MSHADOW_DOT_ENGINE_H_

#include <climits>
#include <type_traits>

#include "mshadow/tensor_core.h"

namespace mshadow {

// BLAS calls in mshadow's column-major convention (what MXNet's linalg code calls).
template <typename Device, typename DType = default_real_t>
struct BLASEngine;

// Whether BLASEngine<Device, DType> exists: float and double everywhere; a backend adds
// what else its BLAS computes (mshadow/cuda/blas_engine.h: the 16-bit types on the GPU).
template <typename Device, typename DType>
struct BlasSupports
    : std::bool_constant<std::is_same<DType, float>::value || std::is_same<DType, double>::value> {
};

namespace detail {

// BLAS takes 32-bit sizes; a larger matrix is an error, not a silent truncation.
inline int BlasInt(index_t v, const char* what) {
  CHECK_LE(v, static_cast<index_t>(INT_MAX)) << "dot: " << what << " = " << v
                                             << " exceeds the BLAS size limit " << INT_MAX;
  return static_cast<int>(v);
}

}  // namespace detail

namespace detail {

// BLAS can only compute dst = alpha * product + beta * dst.
template <typename SV>
constexpr bool kBlasSaver = std::is_same<SV, sv::saveto>::value ||
                            std::is_same<SV, sv::plusto>::value ||
                            std::is_same<SV, sv::minusto>::value;

template <typename SV>
constexpr void CheckBlasSaver() {
  static_assert(kBlasSaver<SV>, "mshadow: dot() supports only =, += and -= (BLAS beta 0 or 1)");
}

template <typename Device, typename DType>
constexpr void CheckBlasType() {
  static_assert(BlasSupports<Device, DType>::value,
                "mshadow: dot() supports float and double (and, on the GPU, half_t and bf16_t)");
}

// Rows and columns of a 2-D operand as it enters the product.
inline Shape<2> Operand(Shape<2> s, bool transposed) {
  return transposed ? Shape2(s[1], s[0]) : s;
}

// dst(n) SV= scale * x(k) op(rhs)(k,n), x read every incx elements, as one gemv: rhs
// row-major (r0, r1) is column-major (r1, r0) = rhs^T, so dst = op(rhs)^T x, and op(rhs)^T
// is that column-major matrix when rtrans is false.
template <typename SV, typename Device, typename DType>
inline void Gemv(Stream<Device>* stream, DType* dst, const DType* x, index_t incx,
                 const Tensor<Device, 2, DType>& rhs, bool rtrans, DType scale) {
  BLASEngine<Device, DType>::gemv(stream, rtrans, BlasInt(rhs.size(1), "rhs columns"),
                                  BlasInt(rhs.size(0), "rhs rows"), scale * DType(SV::kAlphaBeta),
                                  rhs.dptr_, BlasInt(rhs.stride_, "rhs stride"), x,
                                  BlasInt(incx, "lhs stride"), DType(SV::kBetaVal), dst, 1);
}

// Checks dst(m,n) = op(lhs)(m,k) op(rhs)(k,n); returns whether there is a product to compute
// (an empty inner dimension makes it zero, written here: BLAS rejects k = 0 strides).
template <typename SV, typename Device, typename DType>
inline bool CheckGemm(Tensor<Device, 2, DType> dst, const Tensor<Device, 2, DType>& lhs,
                      bool ltrans, const Tensor<Device, 2, DType>& rhs, bool rtrans,
                      const char* what) {
  const Shape<2> a = Operand(lhs.shape_, ltrans), b = Operand(rhs.shape_, rtrans);
  CHECK(dst.size(0) == a[0] && dst.size(1) == b[1] && a[1] == b[0])
      << what << ": shapes do not multiply: dst " << dst.shape_ << " = lhs " << lhs.shape_
      << (ltrans ? ".T" : "") << " x rhs " << rhs.shape_ << (rtrans ? ".T" : "");
  if (dst.size(0) == 0 || dst.size(1) == 0) return false;
  if (a[1] == 0) {
    if (SV::kBetaVal == 0.0f) dst = DType(0);
    return false;
  }
  return true;
}

// dst(m,n) SV= scale * op(lhs)(m,k) op(rhs)(k,n), all row-major with strides. `dst` is a
// handle: writing through the copy writes the caller's memory. One row (m = 1) is a gemv:
// BLAS's gemm pays for packing its operands, which a single row does not repay.
template <typename SV, typename Device, typename DType>
inline void Gemm(Tensor<Device, 2, DType> dst, const Tensor<Device, 2, DType>& lhs, bool ltrans,
                 const Tensor<Device, 2, DType>& rhs, bool rtrans, DType scale) {
  if (!CheckGemm<SV>(dst, lhs, ltrans, rhs, rtrans, "dot")) return;
  const Shape<2> a = Operand(lhs.shape_, ltrans), b = Operand(rhs.shape_, rtrans);
  if (a[0] == 1) {  // lhs's only row (its only column, transposed)
    Gemv<SV>(dst.stream_, dst.dptr_, lhs.dptr_, ltrans ? lhs.stride_ : 1, rhs, rtrans, scale);
    return;
  }
  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands, keep the flags.
  BLASEngine<Device, DType>::gemm(dst.stream_, rtrans, ltrans, BlasInt(b[1], "n"),
                                  BlasInt(a[0], "m"), BlasInt(a[1], "k"),
                                  scale * DType(SV::kAlphaBeta), rhs.dptr_,
                                  BlasInt(rhs.stride_, "rhs stride"), lhs.dptr_,
                                  BlasInt(lhs.stride_, "lhs stride"), DType(SV::kBetaVal),
                                  dst.dptr_, BlasInt(dst.stride_, "dst stride"));
}

}  // namespace detail

// Matrix x matrix (gemm).
template <typename SV, typename Device, bool ltrans, bool rtrans, typename DType>
struct DotEngine<SV, Device, 2, 2, 2, ltrans, rtrans, DType> {
  static void Eval(Tensor<Device, 2, DType>* p_dst, const Tensor<Device, 2, DType>& lhs,
                   const Tensor<Device, 2, DType>& rhs, DType scale) {
    detail::CheckBlasSaver<SV>();
    detail::CheckBlasType<Device, DType>();
    detail::Gemm<SV>(*p_dst, lhs, ltrans, rhs, rtrans, scale);
  }
};

// Vector x matrix (gemv): dst(n) SV= scale * lhs(k) op(rhs)(k,n).
template <typename SV, typename Device, bool rtrans, typename DType>
struct DotEngine<SV, Device, 1, 1, 2, false, rtrans, DType> {
  static void Eval(Tensor<Device, 1, DType>* p_dst, const Tensor<Device, 1, DType>& lhs,
                   const Tensor<Device, 2, DType>& rhs, DType scale) {
    detail::CheckBlasSaver<SV>();
    detail::CheckBlasType<Device, DType>();
    const Shape<2> b = detail::Operand(rhs.shape_, rtrans);
    CHECK(p_dst->size(0) == b[1] && lhs.size(0) == b[0])
        << "dot: shapes do not multiply: dst " << p_dst->shape_ << " = lhs " << lhs.shape_
        << " x rhs " << rhs.shape_ << (rtrans ? ".T" : "");
    if (b[1] == 0) return;
    detail::Gemv<SV>(p_dst->stream_, p_dst->dptr_, lhs.dptr_, 1, rhs, rtrans, scale);
  }
};

// Outer product (ger): dst(m,n) SV= scale * lhs(m)^T rhs(n), written dot(lhs.T(), rhs).
template <typename SV, typename Device, typename DType>
struct DotEngine<SV, Device, 2, 1, 1, true, false, DType> {
  static void Eval(Tensor<Device, 2, DType>* p_dst, const Tensor<Device, 1, DType>& lhs,
                   const Tensor<Device, 1, DType>& rhs, DType scale) {
    detail::CheckBlasSaver<SV>();
    detail::CheckBlasType<Device, DType>();
    CHECK(p_dst->size(0) == lhs.size(0) && p_dst->size(1) == rhs.size(0))
        << "dot: outer product shapes do not match: dst " << p_dst->shape_ << " = lhs "
        << lhs.shape_ << ".T x rhs " << rhs.shape_;
    if (SV::kBetaVal == 0.0f) *p_dst = DType(0);  // ger accumulates
    if (p_dst->size(0) == 0 || p_dst->size(1) == 0) return;
    // Column-major dst^T(n,m) += rhs lhs^T.
    BLASEngine<Device, DType>::ger(p_dst->stream_, detail::BlasInt(rhs.size(0), "n"),
                                   detail::BlasInt(lhs.size(0), "m"),
                                   scale * DType(SV::kAlphaBeta), rhs.dptr_, 1, lhs.dptr_, 1,
                                   p_dst->dptr_, detail::BlasInt(p_dst->stride_, "dst stride"));
  }
};

// Batched matrix product (batch_dot): dst[i] SV= scale * op(lhs[i]) op(rhs[i]), one batched
// gemm (a gemm per entry on the CPU, one strided-batched call on the GPU).
template <typename SV, typename Device, bool ltrans, bool rtrans, typename DType>
struct DotEngine<SV, Device, 3, 3, 3, ltrans, rtrans, DType> {
  static void Eval(Tensor<Device, 3, DType>* p_dst, const Tensor<Device, 3, DType>& lhs,
                   const Tensor<Device, 3, DType>& rhs, DType scale) {
    detail::CheckBlasSaver<SV>();
    detail::CheckBlasType<Device, DType>();
    const index_t batch = p_dst->size(0);
    CHECK(batch == lhs.size(0) && lhs.size(0) == rhs.size(0))
        << "batch_dot: batch sizes differ: dst " << p_dst->shape_ << ", lhs " << lhs.shape_
        << ", rhs " << rhs.shape_;
    if (batch == 0) return;
    // Every entry has the same shapes: the first one's check holds for all.
    if (!detail::CheckGemm<SV>((*p_dst)[0], lhs[0], ltrans, rhs[0], rtrans, "batch_dot")) {
      if (SV::kBetaVal == 0.0f) *p_dst = DType(0);  // an empty inner dimension: zeros
      return;
    }
    using detail::BlasInt;
    const Shape<2> a = detail::Operand(lhs[0].shape_, ltrans);
    const Shape<2> b = detail::Operand(rhs[0].shape_, rtrans);
    // Column-major, as in Gemm: C^T = B^T A^T for every entry.
    BLASEngine<Device, DType>::batched_gemm(
        p_dst->stream_, rtrans, ltrans, BlasInt(b[1], "n"), BlasInt(a[0], "m"),
        BlasInt(a[1], "k"), scale * DType(SV::kAlphaBeta),
        rhs.dptr_, BlasInt(rhs.stride_, "rhs stride"), rhs.template MemSize<1>(),
        lhs.dptr_, BlasInt(lhs.stride_, "lhs stride"), lhs.template MemSize<1>(),
        DType(SV::kBetaVal),
        p_dst->dptr_, BlasInt(p_dst->stride_, "dst stride"), p_dst->template MemSize<1>(),
        BlasInt(batch, "batch"));
  }
};

// dst[0] = lhs . rhs for two vectors.
template <typename Device, typename DType>
inline void VectorDot(Tensor<Device, 1, DType> dst, const Tensor<Device, 1, DType>& lhs,
                      const Tensor<Device, 1, DType>& rhs) {
  detail::CheckBlasType<Device, DType>();
  CHECK_EQ(lhs.size(0), rhs.size(0)) << "VectorDot: operand lengths differ";
  CHECK_EQ(dst.size(0), 1) << "VectorDot: the destination must hold one element";
  BLASEngine<Device, DType>::dot(dst.stream_, detail::BlasInt(lhs.size(0), "n"), lhs.dptr_, 1,
                                 rhs.dptr_, 1, dst.dptr_);
}

}  // namespace mshadow

#endif  // MSHADOW_DOT_ENGINE_H_
