// ops/reduce-inl.h: what the CPU (reduce.cc) and GPU (reduce.cu) kernels of the reductions
// sum, mean, max, min share: the parameters, which axes are reduced, the reducers, and the
// shape folded into runs of kept and reduced axes.
#ifndef OPS_REDUCE_INL_H_
#define OPS_REDUCE_INL_H_

#include <sstream>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/kernel_util.h"

namespace ops {
namespace reduce {

struct ReduceParam : public dmlc::Parameter<ReduceParam> {
  dmlc::optional<TShape> axis;
  bool keepdims;
  bool exclude;
  DMLC_DECLARE_PARAMETER(ReduceParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<TShape>())
        .describe("The axes to reduce, e.g. (0,2); negative values count from the end. None "
                  "reduces every axis.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Keep the reduced axes, with extent 1.");
    DMLC_DECLARE_FIELD(exclude).set_default(false).describe(
        "Reduce every axis except those in axis.");
  }
};

// Which axes of a rank-`ndim` input are reduced; bad or repeated axes are dmlc::Errors.
inline std::vector<bool> ReducedAxes(const ReduceParam& param, int ndim) {
  // None and () both reduce every axis, with or without exclude (as MXNet 1.9.1).
  const bool every_axis = !param.axis.has_value() || param.axis->ndim() == 0;
  std::vector<bool> reduced(ndim, every_axis);
  if (!every_axis) {
    for (const index_t axis : *param.axis) {
      const int a = NormalizeAxis(axis, ndim);
      if (reduced[a]) {
        std::ostringstream os;
        os << "axis " << axis << " appears twice in " << *param.axis;
        throw dmlc::Error(os.str());
      }
      reduced[a] = true;
    }
    if (param.exclude) reduced.flip();
  }
  return reduced;
}

// The output shape with kept dims (reduced axes of extent 1), used for the strides.
inline TShape KeptShape(const TShape& in, const std::vector<bool>& reduced) {
  TShape kept = in;
  for (index_t d = 0; d < in.ndim(); ++d) {
    if (reduced[d]) kept[d] = 1;
  }
  return kept;
}

enum class Reducer { kSum, kMean, kMax, kMin };

// The engine's reducer (mshadow::red) for each operator.
template <Reducer kReducer>
using EngineReducer = std::conditional_t<
    kReducer == Reducer::kMax, mshadow::red::maximum,
    std::conditional_t<kReducer == Reducer::kMin, mshadow::red::minimum, mshadow::red::sum>>;

// A shape's axes merged into alternating runs of kept and reduced axes, outermost first,
// unit axes dropped: sum over axis 1 of (8, 4096, 4096) is (kept 8, reduced 4096, kept
// 4096), and axes (0, 2) of (a, b, c, d) give (reduced a, kept b, reduced c, kept d).
struct AxisRuns {
  std::vector<index_t> dims;
  std::vector<bool> reduced;
  void Push(index_t dim, bool is_reduced) {
    if (dim == 1) return;
    if (!dims.empty() && reduced.back() == is_reduced) {
      dims.back() *= dim;
    } else {
      dims.push_back(dim);
      reduced.push_back(is_reduced);
    }
  }
};

inline AxisRuns RunsOf(const TShape& shape, const std::vector<bool>& reduced) {
  AxisRuns runs;
  for (index_t d = 0; d < shape.ndim(); ++d) runs.Push(shape[d], reduced[d]);
  return runs;
}

// Calls fn(std::integral_constant<Reducer, r>(), name, description) for each reduction.
template <typename Fn>
void ForEachReduce(Fn&& fn) {
  fn(std::integral_constant<Reducer, Reducer::kSum>(), "sum", "Sum over the given axes.");
  fn(std::integral_constant<Reducer, Reducer::kMean>(), "mean", "Mean over the given axes.");
  fn(std::integral_constant<Reducer, Reducer::kMax>(), "max",
     "Maximum over the given axes; NaN if any element is NaN.");
  fn(std::integral_constant<Reducer, Reducer::kMin>(), "min",
     "Minimum over the given axes; NaN if any element is NaN.");
}

}  // namespace reduce
}  // namespace ops

#endif  // OPS_REDUCE_INL_H_
