// ops/matrix_product.h: dst (as req says) = op(a) * b for 2-D tensors on any device, for
// operator kernels written once over xpu: on the CPU the register-tiled product
// (ops/register_gemm.h), which runs the operators' shapes faster than OpenBLAS
// (docs/benchmarks.md); on the GPU cuBLAS through mshadow's dot.
//
//   Product(gates, kAddTo, x, /*a_transposed=*/false, w_t);  // gates += x * w_t
//   Product(dw, req, dg, /*a_transposed=*/true, x);           // dw (req)= dg^T * x
//
// b is read by rows (not transposed): where the product needs b^T, transpose it first
// (ops/transpose_block.h).
#ifndef OPS_MATRIX_PRODUCT_H_
#define OPS_MATRIX_PRODUCT_H_

#include <type_traits>

#include "mshadow/tensor.h"
#include "ops/kernel_util.h"
#include "ops/register_gemm.h"

namespace ops {

template <typename xpu, typename DType>
void Product(Tensor<xpu, 2, DType> dst, OpReqType req, const Tensor<xpu, 2, DType>& a,
             bool a_transposed, const Tensor<xpu, 2, DType>& b) {
  if (req == kNullOp) return;
  const index_t rows = a_transposed ? a.size(1) : a.size(0);
  const index_t depth = a_transposed ? a.size(0) : a.size(1);
  CHECK(rows == dst.size(0) && depth == b.size(0) && b.size(1) == dst.size(1))
      << "Product: (" << rows << "x" << depth << ") times " << b.shape_ << " into " << dst.shape_;
  if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
    register_gemm::TiledGemm(rows, depth, dst.size(1),
                             register_gemm::LeftOperand<DType>{a.dptr_, a.stride_, a_transposed},
                             static_cast<const DType*>(b.dptr_), b.stride_, dst.dptr_, dst.stride_,
                             req == kAddTo);
  } else if (a_transposed) {
    Assign(dst, req, mshadow::expr::dot(a.T(), b));
  } else {
    Assign(dst, req, mshadow::expr::dot(a, b));
  }
}

// The same on the CPU with b (depth x cols) packed by register_gemm::PackRightOperand: for an
// operand several products read (a recurrent weight, once a step).
template <typename DType>
void ProductPacked(Tensor<mshadow::cpu, 2, DType> dst, OpReqType req,
                   const Tensor<mshadow::cpu, 2, DType>& a, bool a_transposed,
                   const DType* b_packed) {
  if (req == kNullOp) return;
  const index_t rows = a_transposed ? a.size(1) : a.size(0);
  const index_t depth = a_transposed ? a.size(0) : a.size(1);
  CHECK_EQ(rows, dst.size(0)) << "ProductPacked: rows of a and dst";
  register_gemm::TiledGemm(rows, depth, dst.size(1),
                           register_gemm::LeftOperand<DType>{a.dptr_, a.stride_, a_transposed},
                           register_gemm::RightOperand<DType>::Packed(b_packed, depth), dst.dptr_,
                           dst.stride_, req == kAddTo);
}

}  // namespace ops

#endif  // OPS_MATRIX_PRODUCT_H_
