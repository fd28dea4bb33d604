// ops/transpose-inl.h: what the CPU (transpose.cc) and GPU (transpose.cu) kernels of
// transpose share: the parameter and the permutation it names; and swapaxes, which runs the
// device's transpose with the permutation that swaps two axes.
#ifndef OPS_TRANSPOSE_INL_H_
#define OPS_TRANSPOSE_INL_H_

#include <sstream>
#include <utility>
#include <vector>

#include "ops/invoke.h"
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

struct SwapAxesParam : public dmlc::Parameter<SwapAxesParam> {
  int dim1;
  int dim2;
  DMLC_DECLARE_PARAMETER(SwapAxesParam) {
    DMLC_DECLARE_FIELD(dim1).set_default(0).describe("The first axis.");
    DMLC_DECLARE_FIELD(dim2).set_default(0).describe("The second axis.");
  }
};

// The transpose axes that swap dim1 and dim2 of a rank-`ndim` input; a bad axis is a
// dmlc::Error.
inline TShape SwapPermutation(const SwapAxesParam& param, int ndim) {
  std::vector<index_t> axes(ndim);
  for (int d = 0; d < ndim; ++d) axes[d] = d;
  std::swap(axes[NormalizeAxis(param.dim1, ndim, "dim1")], axes[NormalizeAxis(param.dim2, ndim, "dim2")]);
  return TShape(axes.begin(), axes.end());
}

// swapaxes and its gradient (the same swap of the output gradient): the device's transpose.
template <typename xpu>
void SwapAxesCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Op* transpose = Op::Get("transpose");
  std::ostringstream axes;
  axes << SwapPermutation(GetParam<SwapAxesParam>(attrs), in[0].ndim());
  (*transpose->compute<xpu>())(ParseAttrs(transpose, {{"axes", axes.str()}}), ctx, in, req, out);
}

// Adds FCompute<xpu> to swapaxes and _backward_swapaxes.
template <typename xpu>
void SetSwapAxesCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("swapaxes").set_attr<FCompute>(attr_name, FCompute(SwapAxesCompute<xpu>));
  RegisterOp("_backward_swapaxes").set_attr<FCompute>(attr_name, FCompute(SwapAxesCompute<xpu>));
}

}  // namespace transpose
}  // namespace ops

#endif  // OPS_TRANSPOSE_INL_H_
