// ops/triangle_product.h: one triangle of a product of matrices, for every device: the
// gradients of the triangular operators (trmm, trsm) and gelqf's, which keep a triangle of a
// product, compute little beyond it.
#ifndef OPS_TRIANGLE_PRODUCT_H_
#define OPS_TRIANGLE_PRODUCT_H_

#include "mshadow/tensor.h"
#include "ops/dot-inl.h"
#include "ops/linalg_batch.h"

namespace ops {
namespace linalg {

// The (rows r0..r1, columns c0..c1) block of a matrix, in place.
template <typename xpu, typename DType>
Tensor<xpu, 2, DType> Block(const Tensor<xpu, 2, DType>& m, index_t r0, index_t r1, index_t c0,
                            index_t c1) {
  return Tensor<xpu, 2, DType>(m.dptr_ + r0 * m.stride_ + c0, mshadow::Shape2(r1 - r0, c1 - c0),
                               m.stride_, m.stream_);
}

// The side of TriangleOfProduct's diagonal blocks; matrices below two of them take the full
// product.
constexpr index_t kTriangleBlock = 128;

// The square block [r0, r1) x [r0, r1) of dst's triangle = scale op(a) op(b): the half below (or
// above) the diagonal is one rectangular product, the two diagonal halves recurse, down to
// blocks of kTriangleBlock computed whole. Large rectangles keep the products efficient on
// every thread count.
template <typename xpu, typename DType>
void TriangleBlockOfProduct(const Tensor<xpu, 2, DType>& dst, const Tensor<xpu, 2, DType>& a,
                            bool trans_a, const Tensor<xpu, 2, DType>& b, bool trans_b, DType scale,
                            bool lower, index_t r0, index_t r1) {
  const index_t k = trans_a ? a.size(0) : a.size(1);
  // op(a)'s rows [i0, i1) times op(b)'s columns [j0, j1).
  const auto product = [&](index_t i0, index_t i1, index_t j0, index_t j1) {
    matmul::Product(Block(dst, i0, i1, j0, j1), kWriteTo,
                    trans_a ? Block(a, 0, k, i0, i1) : Block(a, i0, i1, 0, k), trans_a,
                    trans_b ? Block(b, j0, j1, 0, k) : Block(b, 0, k, j0, j1), trans_b, scale);
  };
  if (r1 - r0 <= kTriangleBlock) {
    product(r0, r1, r0, r1);
    return;
  }
  const index_t middle = r0 + (r1 - r0) / 2;
  lower ? product(middle, r1, r0, middle) : product(r0, middle, middle, r1);
  TriangleBlockOfProduct(dst, a, trans_a, b, trans_b, scale, lower, r0, middle);
  TriangleBlockOfProduct(dst, a, trans_a, b, trans_b, scale, lower, middle, r1);
}

// dst's lower (or upper) triangle with the diagonal = scale op(a) op(b), the other triangle
// zero, for a batch of n x n results: the triangular operators' gradients, which need one
// triangle of a product. Large matrices compute little beyond the triangle (about 0.56 of a
// full product's work at n = 1024).
template <typename xpu, typename DType>
void TriangleOfProduct(mshadow::Stream<xpu>* s, const Tensor<xpu, 3, DType>& dst,
                       const Tensor<xpu, 3, DType>& a, bool trans_a, const Tensor<xpu, 3, DType>& b,
                       bool trans_b, DType scale, bool lower) {
  const index_t n = dst.size(1);
  if (n < 2 * kTriangleBlock) {
    matmul::Product(dst, kWriteTo, a, trans_a, b, trans_b, scale);
  } else {
    for (index_t i = 0; i < dst.size(0); ++i) {
      TriangleBlockOfProduct(dst[i], a[i], trans_a, b[i], trans_b, scale, lower, 0, n);
    }
  }
  ForEachMatrixElement<keep_triangle>(s, dst, lower);
}

}  // namespace linalg
}  // namespace ops

#endif  // OPS_TRIANGLE_PRODUCT_H_
