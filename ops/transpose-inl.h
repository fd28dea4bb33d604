// ops/transpose-inl.h: what the CPU (transpose.cc) and GPU (transpose.cu) kernels of
// transpose share: the parameter and the permutation it names.
#ifndef OPS_TRANSPOSE_INL_H_
#define OPS_TRANSPOSE_INL_H_

#include <sstream>
#include <vector>

#include "ops/kernel_util.h"

namespace ops {
namespace transpose {

struct TransposeParam : public dmlc::Parameter<TransposeParam> {
  TShape axes;
  DMLC_DECLARE_PARAMETER(TransposeParam) {
    DMLC_DECLARE_FIELD(axes).set_default(TShape()).describe(
        "Output axis i is input axis axes[i]; () reverses the axes.");
  }
};

// The permutation for a rank-`ndim` input; anything but a permutation is a dmlc::Error.
inline std::vector<int> Permutation(const TShape& axes, int ndim) {
  std::vector<int> perm(ndim);
  if (axes.ndim() == 0) {
    for (int i = 0; i < ndim; ++i) perm[i] = ndim - 1 - i;
    return perm;
  }
  std::vector<bool> seen(ndim, false);
  bool valid = axes.ndim() == ndim;
  for (int i = 0; valid && i < ndim; ++i) {
    valid = axes[i] >= 0 && axes[i] < ndim && !seen[axes[i]];
    if (valid) {
      perm[i] = static_cast<int>(axes[i]);
      seen[axes[i]] = true;
    }
  }
  if (!valid) {
    std::ostringstream os;
    os << "axes " << axes << " is not a permutation of the " << ndim << " axes of the input";
    throw dmlc::Error(os.str());
  }
  return perm;
}

// The permutation the forward operator (kBackward false) or its gradient applies.
inline std::vector<int> PermutationFor(const NodeAttrs& attrs, int ndim, bool backward) {
  std::vector<int> perm = Permutation(GetParam<TransposeParam>(attrs).axes, ndim);
  if (!backward) return perm;
  std::vector<int> inverse(ndim);
  for (int i = 0; i < ndim; ++i) inverse[perm[i]] = i;
  return inverse;
}

}  // namespace transpose
}  // namespace ops

#endif  // OPS_TRANSPOSE_INL_H_
