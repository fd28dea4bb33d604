// ops/transpose-inl.h: what the CPU (transpose.cc) and GPU (transpose.cu) kernels of
// transpose share: the parameter and the permutation it names; and the operators that run the
// device's transpose with a permutation of their own: swapaxes (two axes swapped),
// depth_to_space and space_to_depth (a 6-d view of the data permuted).
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

struct BlockSizeParam : public dmlc::Parameter<BlockSizeParam> {
  int block_size;
  DMLC_DECLARE_PARAMETER(BlockSizeParam) {
    DMLC_DECLARE_FIELD(block_size)
        .set_lower_bound(1)
        .describe("The side of the square blocks moved between depth and space.");
  }
};

// A 4-d operand of depth_to_space or space_to_depth as the 6-d view the transpose `axes`
// turns into the other's.
struct BlockView {
  TShape view;
  TShape axes;

  // The transposed view: the output's elements in order.
  TShape Permuted() const {
    TShape out = view;
    for (int d = 0; d < view.ndim(); ++d) out[d] = view[axes[d]];
    return out;
  }
};

// depth_to_space (kToSpace) of data (n, c, h, w) with blocks of b x b: channel (i * b + j) *
// c' + k goes to channel k, row y * b + i, column x * b + j of the (n, c', h * b, w * b)
// output (c' = c / b^2; MXNet's order): the view (n, b, b, c', h, w) transposed (0, 3, 4, 1,
// 5, 2). space_to_depth is its inverse: (n, c, h / b, b, w / b, b) transposed (0, 3, 5, 1,
// 2, 4). An operand these blocks do not divide is a dmlc::Error naming it.
inline BlockView BlockViewOf(const TShape& data, index_t b, bool to_space) {
  const char* op = to_space ? "depth_to_space" : "space_to_depth";
  std::ostringstream os;
  if (data.ndim() != 4) {
    os << op << " takes 4-d data (batch, channels, height, width), got " << data;
    throw dmlc::Error(os.str());
  }
  const index_t n = data[0], c = data[1], h = data[2], w = data[3];
  if (to_space && c % (b * b) != 0) {
    os << op << ": " << c << " channels of " << data
       << " are not a multiple of block_size^2 = " << b * b;
    throw dmlc::Error(os.str());
  }
  if (!to_space && (h % b != 0 || w % b != 0)) {
    os << op << ": height and width of " << data << " must be multiples of block_size " << b;
    throw dmlc::Error(os.str());
  }
  if (to_space) return {TShape{n, b, b, c / (b * b), h, w}, TShape{0, 3, 4, 1, 5, 2}};
  return {TShape{n, c, h / b, b, w / b, b}, TShape{0, 3, 5, 1, 2, 4}};
}

// The output shape of depth_to_space (kToSpace) or space_to_depth.
inline TShape BlockOutputShape(const TShape& data, index_t b, bool to_space) {
  const TShape out = BlockViewOf(data, b, to_space).Permuted();
  if (to_space) return TShape{out[0], out[1], out[2] * out[3], out[4] * out[5]};
  return TShape{out[0], out[1] * out[2] * out[3], out[4], out[5]};
}

// depth_to_space (kToSpace) or space_to_depth: the device's transpose of the data's block
// view. Each is the other's gradient.
template <typename xpu, bool kToSpace>
void BlockCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const BlockView v =
      BlockViewOf(in[0].shape_, GetParam<BlockSizeParam>(attrs).block_size, kToSpace);
  const Op* transpose = Op::Get("transpose");
  std::ostringstream axes;
  axes << v.axes;
  (*transpose->compute<xpu>())(
      ParseAttrs(transpose, {{"axes", axes.str()}}), ctx,
      {TBlob(in[0].dptr_, v.view, in[0].dev_mask_, in[0].type_flag_)}, req,
      {TBlob(out[0].dptr_, v.Permuted(), out[0].dev_mask_, out[0].type_flag_)});
}

// Adds FCompute<xpu> to depth_to_space, space_to_depth and their backward operators.
template <typename xpu>
void SetBlockCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("depth_to_space").set_attr<FCompute>(attr_name, FCompute(BlockCompute<xpu, true>));
  RegisterOp("_backward_depth_to_space")
      .set_attr<FCompute>(attr_name, FCompute(BlockCompute<xpu, false>));
  RegisterOp("space_to_depth").set_attr<FCompute>(attr_name, FCompute(BlockCompute<xpu, false>));
  RegisterOp("_backward_space_to_depth")
      .set_attr<FCompute>(attr_name, FCompute(BlockCompute<xpu, true>));
}

}  // namespace transpose
}  // namespace ops

#endif  // OPS_TRANSPOSE_INL_H_
