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
#include "mshadow/parallel.h"
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
// anyway), strip by strip on the library's threads: no transposed copy first. Columns past
// the last whole strip are transposed into one more strip, zero-padded, whose product goes
// through a scratch block of `rows` x one strip into dst's last columns. With few rows (a
// row block of the product, whose tiles read each strip only a few times) each strip is
// multiplied as soon as it is transposed, while it is cached: a whole transposed b_t larger
// than the caches would go out to memory and come back.
template <typename xpu, typename DType>
void ProductWithTransposedRight(Tensor<xpu, 2, DType> dst, OpReqType req,
                                const Tensor<xpu, 2, DType>& a, const Tensor<xpu, 2, DType>& b_t) {
  if (req == kNullOp) return;
  const index_t rows = a.size(0), depth = a.size(1), cols = b_t.size(0);
  CHECK(rows == dst.size(0) && depth == b_t.size(1) && cols == dst.size(1))
      << "ProductWithTransposedRight: " << a.shape_ << " times the transpose of " << b_t.shape_
      << " into " << dst.shape_;
  if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
    using register_gemm::RightOperand;
    constexpr index_t kStrip = register_gemm::kStripWidth<DType>;
    const index_t whole = cols / kStrip, rest = cols % kStrip, strips = whole + (rest > 0);
    if (rows == 0 || strips == 0) return;
    const register_gemm::LeftOperand<DType> left{a.dptr_, a.stride_, false};
    const register_gemm::Start<DType> start{req == kAddTo, nullptr};
    // Strip j of b_t transposed into `strip` (kStrip x depth), zero-padded past cols.
    const auto transpose_strip = [&](index_t j, DType* strip) {
      const index_t width = j < whole ? kStrip : rest;
      if (width < kStrip) std::fill(strip, strip + kStrip * depth, DType(0));
      transpose::Transpose2D<false>(b_t.dptr_ + j * kStrip * b_t.stride_, b_t.stride_, strip,
                                    kStrip, width, depth);
    };
    // The product of the last, partial strip, through `scratch` (rows x kStrip).
    const auto multiply_partial_strip = [&](const DType* strip, DType* scratch,
                                            index_t threads_for_it) {
      const RightOperand<DType> b = RightOperand<DType>::Packed(strip, depth);
      if (threads_for_it > 1) {
        register_gemm::TiledGemm(rows, depth, kStrip, left, b, scratch, kStrip, false);
      } else {
        register_gemm::MultiplyBlock<false>(rows, depth, kStrip, left, b, scratch, kStrip,
                                            register_gemm::Start<DType>{});
      }
      for (index_t i = 0; i < rows; ++i) {
        DType* to = dst.dptr_ + i * dst.stride_ + whole * kStrip;
        const DType* from = scratch + i * kStrip;
        for (index_t j = 0; j < rest; ++j) to[j] = req == kAddTo ? to[j] + from[j] : from[j];
      }
    };
    const size_t strip_size = static_cast<size_t>(kStrip * depth);
    const size_t scratch_size = rest > 0 ? static_cast<size_t>(rows * kStrip) : 0;
    const int threads = static_cast<int>(std::max<index_t>(
        1, std::min<index_t>({mshadow::GetNumThreads(), strips,
                              depth * cols / mshadow::expr::kMinElementsPerThread})));
    if (rows <= register_gemm::kBlockRows) {
      mshadow::ParallelFor(strips, threads, [&](index_t j) {
        DType* strip = static_cast<DType*>(
            mshadow::ThreadScratch((strip_size + scratch_size) * sizeof(DType)));
        transpose_strip(j, strip);
        if (j == whole) return multiply_partial_strip(strip, strip + strip_size, 1);
        register_gemm::MultiplyBlock<false>(rows, depth, kStrip, left,
                                            RightOperand<DType>::Packed(strip, depth),
                                            dst.dptr_ + j * kStrip, dst.stride_, start);
      });
      return;
    }
    const std::unique_ptr<void, void (*)(void*)> memory(
        mshadow::AllocHost((strips * strip_size + scratch_size) * sizeof(DType), 64,
                           "a matrix product's packed right operand"),
        mshadow::FreeHost);
    DType* packed = static_cast<DType*>(memory.get());
    mshadow::ParallelFor(strips, threads,
                         [&](index_t j) { transpose_strip(j, packed + j * strip_size); });
    if (whole > 0) {
      register_gemm::TiledGemm(rows, depth, whole * kStrip, left,
                               RightOperand<DType>::Packed(packed, depth), dst.dptr_, dst.stride_,
                               start);
    }
    if (rest > 0) {
      multiply_partial_strip(packed + whole * strip_size, packed + strips * strip_size, threads);
    }
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
