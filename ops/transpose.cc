// transpose(axes): permutes the axes (reverses them when axes is empty); and its backward
// operator, the inverse permutation.
#include <sstream>

#include "mshadow/tensor_blob.h"
#include "ops/kernel_util.h"
#include "ops/strided_loop.h"

namespace ops {
namespace {

struct TransposeParam : public dmlc::Parameter<TransposeParam> {
  TShape axes;
  DMLC_DECLARE_PARAMETER(TransposeParam) {
    DMLC_DECLARE_FIELD(axes).set_default(TShape()).describe(
        "Output axis i is input axis axes[i]; () reverses the axes.");
  }
};

// The permutation for a rank-`ndim` input; anything but a permutation is a dmlc::Error.
std::vector<int> Permutation(const TShape& axes, int ndim) {
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

bool TransposeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const auto perm = Permutation(GetParam<TransposeParam>(attrs).axes, static_cast<int>(data.ndim()));
  TShape result(data.ndim());
  for (index_t i = 0; i < data.ndim(); ++i) result[i] = data[perm[i]];
  AssignOutputShape(out, 0, result);
  return true;
}

// Walks the transposed shape; `permuted[i]` is the stride of input axis perm[i]. The forward
// operator reads the input there, the backward operator writes the input gradient there.
template <bool kBackward>
void TransposeCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TBlob& original = kBackward ? out[0] : in[0];
  const TBlob& transposed = kBackward ? in[0] : out[0];
  const int ndim = original.ndim();
  const auto perm = Permutation(GetParam<TransposeParam>(attrs).axes, ndim);
  const std::vector<index_t> strides = RowMajorStrides(original.shape_);
  std::vector<index_t> permuted(ndim);
  for (int i = 0; i < ndim; ++i) permuted[i] = strides[perm[i]];
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* src = in[0].dptr<DType>();
    DType* dst = out[0].dptr<DType>();
    ForEachStrided<1>(transposed.shape_, {permuted.data()},
                      [&](index_t i, const std::array<index_t, 1>& at) {
                        if (kBackward) {
                          AssignValue(dst + at[0], req[0], src[i]);
                        } else {
                          AssignValue(dst + i, req[0], src[at[0]]);
                        }
                      });
  });
}

}  // namespace

DMLC_REGISTER_PARAMETER(TransposeParam);

OPS_REGISTER_OP(transpose)
    .describe("Permutes the axes of the input: output axis i is input axis axes[i].")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(TransposeParam::__FIELDS__())
    .set_attr_parser(ParamParser<TransposeParam>)
    .set_attr<FInferShape>("FInferShape", TransposeShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FCompute>("FCompute<cpu>", TransposeCompute<false>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_transpose", false, false});

OPS_REGISTER_OP(_backward_transpose)
    .describe("Gradient of transpose.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<TransposeParam>)
    .set_attr<FCompute>("FCompute<cpu>", TransposeCompute<true>);

}  // namespace ops
