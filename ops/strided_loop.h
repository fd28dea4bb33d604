// ops/strided_loop.h: loops over an N-d shape that read or write several strided arrays at
// once: the loop behind broadcasting (inputs read with stride 0 along broadcast axes) and the
// gradients' sums (the output written with stride 0 along reduced axes). Neighbouring axes
// that every array steps through as one are merged (MergeAxes), and rows of the merged loop
// are walked from any row on (RowWalker), so that threads can take runs of rows
// (ops/row_pieces.h).
//
//   // out = a + b for NumPy-broadcast a and b, a row at a time:
//   const auto axes = MergeAxes<3>(out_shape, {RowMajorStrides(out_shape),
//                                              BroadcastStrides(a_shape, out_shape),
//                                              BroadcastStrides(b_shape, out_shape)});
//   RowWalker<3> walk(axes, 0);
//   for (index_t r = 0; r < axes.Rows(); ++r, walk.Next()) { ... walk.offsets() ... }
#ifndef OPS_STRIDED_LOOP_H_
#define OPS_STRIDED_LOOP_H_

#include <algorithm>
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

// The axes of a loop over K strided arrays, merged where every array steps through two
// neighbours as through one axis (stride[d] == stride[d + 1] * extent[d + 1], which holds for
// two broadcast axes too), axes of extent 1 dropped: (32,64,56,56) + (1,64,1,1) loops over
// (32, 64, 3136), the channel operand with strides (0, 1, 0). The innermost axis is the rows'
// length; the others enumerate rows.
template <size_t K>
struct MergedAxes {
  std::vector<index_t> extent;
  std::array<std::vector<index_t>, K> stride;

  int ndim() const { return static_cast<int>(extent.size()); }
  // Elements in a row, and rows (1 and 1 for a single element).
  index_t Inner() const { return extent.empty() ? 1 : extent.back(); }
  index_t Rows() const {
    index_t rows = 1;
    for (int d = 0; d + 1 < ndim(); ++d) rows *= extent[d];
    return rows;
  }
  // Array k's step along a row (0 when it is broadcast along it).
  index_t InnerStride(size_t k) const { return extent.empty() ? 0 : stride[k].back(); }
  // Whether array k has a step on every axis (it is broadcast along none).
  bool Steps(size_t k) const {
    for (index_t s : stride[k]) {
      if (s == 0) return false;
    }
    return true;
  }
};

template <size_t K>
MergedAxes<K> MergeAxes(const TShape& shape, const std::array<std::vector<index_t>, K>& strides) {
  MergedAxes<K> axes;
  for (index_t d = 0; d < shape.ndim(); ++d) {
    if (shape[d] == 1) continue;
    bool merges = !axes.extent.empty();
    for (size_t k = 0; k < K && merges; ++k) {
      merges = axes.stride[k].back() == strides[k][d] * shape[d];
    }
    if (merges) {
      axes.extent.back() *= shape[d];
      for (size_t k = 0; k < K; ++k) axes.stride[k].back() = strides[k][d];
      continue;
    }
    axes.extent.push_back(shape[d]);
    for (size_t k = 0; k < K; ++k) axes.stride[k].push_back(strides[k][d]);
  }
  return axes;
}

// The K arrays' offsets at the start of each row of a MergedAxes, from any row on: a seek
// divides once per axis, each step to the next row adds.
template <size_t K>
class RowWalker {
 public:
  RowWalker(const MergedAxes<K>& axes, index_t row)
      : axes_(axes), counter_(std::max(axes.ndim() - 1, 0)) {
    offsets_.fill(0);
    for (int d = axes.ndim() - 2; d >= 0; --d) {
      counter_[d] = row % axes.extent[d];
      row /= axes.extent[d];
      for (size_t k = 0; k < K; ++k) offsets_[k] += counter_[d] * axes.stride[k][d];
    }
  }
  const std::array<index_t, K>& offsets() const { return offsets_; }
  void Next() {
    for (int d = axes_.ndim() - 2; d >= 0; --d) {
      for (size_t k = 0; k < K; ++k) offsets_[k] += axes_.stride[k][d];
      if (++counter_[d] < axes_.extent[d]) return;
      for (size_t k = 0; k < K; ++k) offsets_[k] -= axes_.stride[k][d] * axes_.extent[d];
      counter_[d] = 0;
    }
  }

 private:
  const MergedAxes<K>& axes_;
  std::vector<index_t> counter_;
  std::array<index_t, K> offsets_;
};

}  // namespace ops

#endif  // OPS_STRIDED_LOOP_H_
