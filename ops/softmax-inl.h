// ops/softmax-inl.h: what the CPU (softmax.cc) and GPU (softmax.cu) kernels of softmax and
// log_softmax share: the parameter and the (outer, n, inner) view around the axis.
#ifndef OPS_SOFTMAX_INL_H_
#define OPS_SOFTMAX_INL_H_

#include "ops/kernel_util.h"

namespace ops {
namespace softmax {

struct SoftmaxParam : public dmlc::Parameter<SoftmaxParam> {
  int axis;
  dmlc::optional<double> temperature;
  DMLC_DECLARE_PARAMETER(SoftmaxParam) {
    DMLC_DECLARE_FIELD(axis).set_default(-1).describe("The axis to normalize along.");
    DMLC_DECLARE_FIELD(temperature)
        .set_default(dmlc::optional<double>())
        .describe("Divides the input by this first; None means 1.");
  }
};

// The (outer, n, inner) view of `shape` around `axis`.
struct AxisView {
  index_t outer, n, inner;
};
inline AxisView ViewAround(const TShape& shape, int axis_param) {
  const int axis = NormalizeAxis(axis_param, static_cast<int>(shape.ndim()));
  const mshadow::Shape<3> s = shape.FlatTo3D(axis);
  return {s[0], s[1], s[2]};
}

}  // namespace softmax
}  // namespace ops

#endif  // OPS_SOFTMAX_INL_H_
