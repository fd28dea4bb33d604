// ops/matrix_product.h: dst (as req says) = op(a) * b for 2-D tensors on any device, for
// operator kernels written once over xpu: on the CPU the register-tiled product
// (ops/register_gemm.h), which runs the operators' shapes faster than OpenBLAS
// (docs/benchmarks.md); on the GPU cuBLAS through mshadow's dot.
//
//   Product(gates, kAddTo, x, /*a_transposed=*/false, w_t);  // gates += x * w_t
//   Product(dw, req, dg, /*a_transposed=*/true, x);           // dw (req)= dg^T * x
//   ProductWithTransposedRight(y, req, x, w);                 // y (req)= x * w^T
//
// b is read by rows (not transposed), or given as its transpose to ProductWithTransposedRight.
#ifndef OPS_MATRIX_PRODUCT_H_
#define OPS_MATRIX_PRODUCT_H_

#include <algorithm>
#include <memory>
#include <type_traits>

#include "mshadow/host_memory.h"
#include "mshadow/tensor.h"
#include "ops/kernel_util.h"
#include "ops/register_gemm.h"
#include "ops/transpose_block.h"

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

// dst (as req says) = a * b_t^T, b_t (cols x depth) stored by rows (a layer's weight, a row per
// output). On the CPU b_t is transposed straight into the strips the register-tiled product
// reads (register_gemm::PackRightOperand's layout, which the product would copy b into
// anyway), strip by strip on the library's threads: no transposed copy first. There cols must
// be whole strips (register_gemm::PacksColumns); the GPU takes any.
template <typename xpu, typename DType>
void ProductWithTransposedRight(Tensor<xpu, 2, DType> dst, OpReqType req,
                                const Tensor<xpu, 2, DType>& a, const Tensor<xpu, 2, DType>& b_t) {
  if (req == kNullOp) return;
  const index_t rows = a.size(0), depth = a.size(1), cols = b_t.size(0);
  CHECK(rows == dst.size(0) && depth == b_t.size(1) && cols == dst.size(1))
      << "ProductWithTransposedRight: " << a.shape_ << " times the transpose of " << b_t.shape_
      << " into " << dst.shape_;
  if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
    constexpr index_t kStrip = register_gemm::kStripWidth<DType>;
    CHECK(register_gemm::PacksColumns<DType>(cols))
        << "ProductWithTransposedRight: " << cols << " columns are not whole strips of " << kStrip;
    const std::unique_ptr<void, void (*)(void*)> memory(
        mshadow::AllocHost(static_cast<size_t>(depth * cols) * sizeof(DType), 64,
                           "a matrix product's packed right operand"),
        mshadow::FreeHost);
    DType* packed = static_cast<DType*>(memory.get());
    const index_t strips = cols / kStrip;
    const int threads = static_cast<int>(std::min<index_t>(
        {mshadow::GetNumThreads(), strips, depth * cols / mshadow::expr::kMinElementsPerThread}));
    mshadow::ParallelFor(strips, std::max(threads, 1), [&](index_t j) {
      transpose::Transpose2D<false>(b_t.dptr_ + j * kStrip * b_t.stride_, b_t.stride_,
                                    packed + j * kStrip * depth, kStrip, kStrip, depth);
    });
    register_gemm::TiledGemm(rows, depth, cols,
                             register_gemm::LeftOperand<DType>{a.dptr_, a.stride_, false},
                             register_gemm::RightOperand<DType>::Packed(packed, depth), dst.dptr_,
                             dst.stride_, req == kAddTo);
  } else {
    Assign(dst, req, mshadow::expr::dot(a, b_t.T()));
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
