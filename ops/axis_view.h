// ops/axis_view.h: an array seen around one of its axes as (outer, n, inner), the way the
// operators that work along an axis (softmax, take, Embedding, pick, argmax/argmin) index it:
// element (o, j, i) lies at (o * n + j) * inner + i.
#ifndef OPS_AXIS_VIEW_H_
#define OPS_AXIS_VIEW_H_

#include "ops/infer_util.h"
#include "ops/op_types.h"

namespace ops {

struct AxisView {
  index_t outer, n, inner;
};

// `shape` around `axis` (negative counts from the end; an axis the shape lacks is a
// dmlc::Error naming it).
inline AxisView ViewAround(const TShape& shape, int axis) {
  const int a = NormalizeAxis(axis, shape.ndim());
  return {shape.ProdShape(0, a), shape[a], shape.ProdShape(a + 1, shape.ndim())};
}

// The whole array as one axis: (1, size, 1).
inline AxisView FlatView(const TShape& shape) { return {1, static_cast<index_t>(shape.Size()), 1}; }

}  // namespace ops

#endif  // OPS_AXIS_VIEW_H_
