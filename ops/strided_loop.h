// ops/strided_loop.h: visiting every element of an N-d shape while tracking its offset in
// several strided arrays at once: the loop behind broadcasting (inputs read with stride 0
// along broadcast axes), reductions (the output written with stride 0 along reduced axes)
// and transposes (an input read with permuted strides).
//
//   // out[i] = a[offsets[0]] + b[offsets[1]] for NumPy-broadcast a and b:
//   const auto sa = BroadcastStrides(a_shape, out_shape), sb = BroadcastStrides(b_shape, out_shape);
//   ForEachStrided<2>(out_shape, {sa.data(), sb.data()},
//                     [&](index_t i, const std::array<index_t, 2>& offsets) { ... });
#ifndef OPS_STRIDED_LOOP_H_
#define OPS_STRIDED_LOOP_H_

#include <array>
#include <cstddef>
#include <vector>

#include "mshadow/tshape.h"

namespace ops {

using mshadow::index_t;
using mshadow::TShape;

// Strides (in elements) for reading a row-major array of `shape` at the indices of
// `out_shape`: NumPy alignment from the right, stride 0 where `shape` has extent 1 or no
// axis at all. `shape` must be broadcastable to `out_shape`.
std::vector<index_t> BroadcastStrides(const TShape& shape, const TShape& out_shape);

// Calls fn(i, offsets) for every element of `shape` in row-major order: i counts from 0, and
// offsets[k] = sum over axes d of index[d] * strides[k][d]. The offsets advance
// incrementally: one addition per element and array.
template <size_t K, typename Fn>
void ForEachStrided(const TShape& shape, const std::array<const index_t*, K>& strides, Fn&& fn) {
  const int ndim = static_cast<int>(shape.ndim());
  if (shape.Size() == 0) return;
  std::array<index_t, K> row{};  // the offsets where the current innermost row starts
  if (ndim == 0) {
    fn(index_t{0}, row);
    return;
  }
  std::vector<index_t> counter(ndim, 0);
  const index_t inner = shape[ndim - 1];
  std::array<index_t, K> inner_stride;
  for (size_t k = 0; k < K; ++k) inner_stride[k] = strides[k][ndim - 1];
  index_t i = 0;
  while (true) {
    std::array<index_t, K> offsets = row;
    for (index_t j = 0; j < inner; ++j, ++i) {
      fn(i, offsets);
      for (size_t k = 0; k < K; ++k) offsets[k] += inner_stride[k];
    }
    int d = ndim - 2;  // carry into the outer axes
    for (; d >= 0; --d) {
      for (size_t k = 0; k < K; ++k) row[k] += strides[k][d];
      if (++counter[d] < shape[d]) break;
      for (size_t k = 0; k < K; ++k) row[k] -= strides[k][d] * shape[d];
      counter[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace ops

#endif  // OPS_STRIDED_LOOP_H_
