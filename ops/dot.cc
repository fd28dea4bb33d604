// dot(transpose_a, transpose_b) and batch_dot(transpose_a, transpose_b): matrix products by
// BLAS, with backward operators. Kernels, for every device: dot-inl.h; FCompute<gpu>: dot.cu.
//
// dot reads its operands as matrices: lhs of shape (a0, ..., ak) as (a0*...*a(k-1), ak), or,
// transposed, as (a0, a1*...*ak) used transposed; rhs of shape (b0, ..., bm) as
// (b0, b1*...*bm), or, transposed, as (b0*...*b(m-1), bm) used transposed. The output shape
// is lhs's kept axes followed by rhs's; (1,) for two vectors.
#include <algorithm>

#include "ops/dot-inl.h"

namespace ops {
namespace matmul {
namespace {

bool DotShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const DotParam& param = GetParam<DotParam>(attrs);
  const TShape& lhs = (*in)[0];
  const TShape& rhs = (*in)[1];
  if (!ShapeIsKnown(lhs) || !ShapeIsKnown(rhs)) return false;
  const index_t lk = param.transpose_a ? lhs[0] : lhs[lhs.ndim() - 1];
  const index_t rk = param.transpose_b ? rhs[rhs.ndim() - 1] : rhs[0];
  if (lk != rk) {
    std::ostringstream os;
    os << "the reduced extents differ: lhs " << lhs << (param.transpose_a ? " (transposed)" : "")
       << " has " << lk << ", rhs " << rhs << (param.transpose_b ? " (transposed)" : "")
       << " has " << rk;
    throw dmlc::Error(os.str());
  }
  std::vector<index_t> dims;
  for (index_t d = 0; d + 1 < lhs.ndim(); ++d) dims.push_back(lhs[param.transpose_a ? d + 1 : d]);
  for (index_t d = 0; d + 1 < rhs.ndim(); ++d) dims.push_back(rhs[param.transpose_b ? d : d + 1]);
  if (dims.empty()) dims.push_back(1);
  AssignOutputShape(out, 0, TShape(dims.begin(), dims.end()));
  return true;
}

// ---- batch_dot: (batch..., m, k) x (batch..., k, n) -> (batch..., m, n), transposes on the
// last two axes; the batch axes (one or more, as MXNet 1.9.1) must match.

bool BatchDotShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const DotParam& param = GetParam<DotParam>(attrs);
  const TShape& lhs = (*in)[0];
  const TShape& rhs = (*in)[1];
  if (!ShapeIsKnown(lhs) || !ShapeIsKnown(rhs)) return false;
  std::ostringstream os;
  const index_t n = lhs.ndim();
  if (n < 3 || rhs.ndim() != n) {
    os << "both operands must have the same rank, at least 3 (batch..., rows, columns), got "
       << lhs << " and " << rhs;
  } else if (!std::equal(lhs.begin(), lhs.begin() + (n - 2), rhs.begin())) {
    os << "batch axes differ: " << lhs << " and " << rhs;
  } else if ((param.transpose_a ? lhs[n - 2] : lhs[n - 1]) !=
             (param.transpose_b ? rhs[n - 1] : rhs[n - 2])) {
    os << "the reduced extents differ: " << lhs << (param.transpose_a ? " (transposed)" : "")
       << " and " << rhs << (param.transpose_b ? " (transposed)" : "");
  }
  if (!os.str().empty()) throw dmlc::Error(os.str());
  TShape result = lhs;
  result[n - 2] = param.transpose_a ? lhs[n - 1] : lhs[n - 2];
  result[n - 1] = param.transpose_b ? rhs[n - 2] : rhs[n - 1];
  AssignOutputShape(out, 0, result);
  return true;
}

const bool kRegistered = [] {
  SetDotCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(DotParam);

OPS_REGISTER_OP(dot)
    .describe("Matrix product of two arrays (see ops/dot.cc for how N-d operands are read).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("lhs", "NDArray-or-Symbol", "Left operand.")
    .add_argument("rhs", "NDArray-or-Symbol", "Right operand.")
    .add_arguments(DotParam::__FIELDS__())
    .set_attr_parser(ParamParser<DotParam>)
    .set_attr<FInferShape>("FInferShape", DotShape)
    .set_attr<FInferType>("FInferType", ElemwiseFloatType<2, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_dot", true, false});

OPS_REGISTER_OP(_backward_dot)
    .describe("Gradient of dot.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<DotParam>);

OPS_REGISTER_OP(batch_dot)
    .describe("Batched matrix product: out[i...] = op(lhs[i...]) op(rhs[i...]) for operands "
              "(batch..., rows, columns) of one rank (3 or more) and the same batch axes.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("lhs", "NDArray-or-Symbol", "Left operand, (batch..., m, k).")
    .add_argument("rhs", "NDArray-or-Symbol", "Right operand, (batch..., k, n).")
    .add_arguments(DotParam::__FIELDS__())
    .set_attr_parser(ParamParser<DotParam>)
    .set_attr<FInferShape>("FInferShape", BatchDotShape)
    .set_attr<FInferType>("FInferType", ElemwiseFloatType<2, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_batch_dot", true, false});

OPS_REGISTER_OP(_backward_batch_dot)
    .describe("Gradient of batch_dot.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<DotParam>);

}  // namespace matmul
}  // namespace ops
