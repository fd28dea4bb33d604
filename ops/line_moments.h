// ops/line_moments.h: the mean and 1 / sqrt(var + eps) of a line of elements, the step the
// normalization layers (LayerNorm, GroupNorm, InstanceNorm) share: on any device for a line
// with a stride, and vectorized on the CPU for a contiguous one. Two passes (the variance of
// x - mean), as exact as a float accumulation allows without a compensated sum.
#ifndef OPS_LINE_MOMENTS_H_
#define OPS_LINE_MOMENTS_H_

#include <cmath>

#include "mshadow/base.h"
#include "ops/vector_loop.h"

namespace ops {

// (outer, n, inner) around the axis.
struct LineView {
  index_t outer, n, inner;
  MSHADOW_XINLINE index_t Lines() const { return outer * inner; }
  // The first element of line l and the distance between its elements.
  MSHADOW_XINLINE index_t Start(index_t l) const { return l / inner * n * inner + l % inner; }
};

// Line l's mean and 1 / sqrt(var + eps), two passes (the variance of x - mean).
template <typename DType>
MSHADOW_XINLINE void LineMoments(const LineView& v, const DType* x, index_t l, DType eps,
                                 DType* mean, DType* rstd) {
  const index_t start = v.Start(l);
  DType sum = 0;
  for (index_t j = 0; j < v.n; ++j) sum += x[start + j * v.inner];
  const DType m = sum / DType(v.n);
  DType sq = 0;
  for (index_t j = 0; j < v.n; ++j) {
    const DType d = x[start + j * v.inner] - m;
    sq += d * d;
  }
  *mean = m;
  *rstd = DType(1) / sqrt(sq / DType(v.n) + eps);
}

// The same for a contiguous line (inner = 1) on the CPU, vectorized.
template <typename DType>
void RowMoments(const DType* row, index_t n, DType eps, DType* mean, DType* rstd) {
  const DType m = vec::Sum<DType>(n,
                                  [&](index_t j, auto tag) {
                                    return vec::PacketOf<decltype(tag)>::LoadUnAligned(row + j);
                                  }) /
                  DType(n);
  const DType sq = vec::Sum<DType>(n, [&](index_t j, auto tag) {
    using P = vec::PacketOf<decltype(tag)>;
    const P d = P::LoadUnAligned(row + j) - P::Fill(m);
    return d * d;
  });
  *mean = m;
  *rstd = DType(1) / std::sqrt(sq / DType(n) + eps);
}

}  // namespace ops

#endif  // OPS_LINE_MOMENTS_H_
