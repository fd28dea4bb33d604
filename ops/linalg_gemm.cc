// _linalg_gemm (linalg_gemm) and _linalg_gemm2 (linalg_gemm2): batched matrix products with
// transposes, scales and a row axis, and their backward operators. Kernels, for every device:
// linalg_gemm-inl.h; FCompute<gpu>: linalg_gemm.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/linalg_gemm-inl.h"

namespace ops {
namespace linalg {
namespace {

// The (rows, columns) of an operand's matrices and the rest of its shape (the batch).
struct MatrixShape {
  index_t rows, columns;
  TShape batch;
};

MatrixShape MatrixOf(const TShape& s, int row_axis) {
  std::vector<index_t> batch;
  for (int d = 0; d + 1 < static_cast<int>(s.ndim()); ++d) {
    if (d != row_axis) batch.push_back(s[d]);
  }
  return {s[row_axis], s[s.ndim() - 1], TShape(batch.begin(), batch.end())};
}

// A (B, C) shapes with their matrices' rows and columns replaced.
TShape WithMatrix(const TShape& like, int row_axis, index_t rows, index_t columns) {
  TShape s = like;
  s[row_axis] = rows;
  s[s.ndim() - 1] = columns;
  return s;
}

// A and B (and C for gemm, given as the output's shape) agree: the same rank >= 2, the same
// batch, op(A)'s columns op(B)'s rows; returns op(A) op(B)'s shape.
template <typename Param>
bool GemmShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const Param& p = GetParam<Param>(attrs);
  const TShape &a = (*in)[0], &b = (*in)[1];
  if (!ShapeIsKnown(a) || !ShapeIsKnown(b)) return false;
  const char* name = std::is_same_v<Param, LinalgGemmParam> ? "linalg_gemm" : "linalg_gemm2";
  std::ostringstream os;
  if (a.ndim() < 2 || b.ndim() != a.ndim()) {
    os << name << ": A " << a << " and B " << b << " must have the same rank, at least 2";
    throw dmlc::Error(os.str());
  }
  const int row_axis = RowAxis(p.axis, a.ndim());
  const MatrixShape ma = MatrixOf(a, row_axis), mb = MatrixOf(b, row_axis);
  const index_t m = p.transpose_a ? ma.columns : ma.rows, ka = p.transpose_a ? ma.rows : ma.columns;
  const index_t kb = p.transpose_b ? mb.columns : mb.rows, n = p.transpose_b ? mb.rows : mb.columns;
  if (ma.batch != mb.batch || ka != kb) {
    os << name << ": A " << a << (p.transpose_a ? " (transposed)" : "") << " and B " << b
       << (p.transpose_b ? " (transposed)" : "") << " do not multiply along axis " << p.axis << ": "
       << (ma.batch != mb.batch ? "their batch axes differ" : "the reduced extents differ");
    throw dmlc::Error(os.str());
  }
  const TShape result = WithMatrix(a, row_axis, m, n);
  AssignOutputShape(out, 0, result);
  if constexpr (std::is_same_v<Param, LinalgGemmParam>) AssignInputShape(in, 2, result);
  return true;
}

std::vector<std::pair<int, int>> InplaceC(const NodeAttrs&) { return {{2, 0}}; }

const bool kRegistered = [] {
  SetLinalgGemmCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(LinalgGemmParam);
DMLC_REGISTER_PARAMETER(LinalgGemm2Param);

OPS_REGISTER_OP(_linalg_gemm)
    .add_alias("linalg_gemm")
    .describe(
        "out = alpha * op(A) op(B) + beta * C for every matrix of the batch: columns on "
        "the last axis, rows on `axis` (default -2), op a transpose where its flag says.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("A", "NDArray-or-Symbol", "Left operand, rank >= 2.")
    .add_argument("B", "NDArray-or-Symbol", "Right operand, the same rank and batch.")
    .add_argument("C", "NDArray-or-Symbol", "Added operand, the product's shape.")
    .add_arguments(LinalgGemmParam::__FIELDS__())
    .set_attr_parser(ParamParser<LinalgGemmParam>)
    .set_attr<FInferShape>("FInferShape", GemmShape<LinalgGemmParam>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<3, 1>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceC)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_linalg_gemm", true, false});

OPS_REGISTER_OP(_backward_linalg_gemm)
    .describe("Gradient of _linalg_gemm: A's, B's and C's (beta times the output gradient).")
    .set_num_inputs(4)
    .set_num_outputs(3)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<LinalgGemmParam>);

OPS_REGISTER_OP(_linalg_gemm2)
    .add_alias("linalg_gemm2")
    .describe(
        "out = alpha * op(A) op(B) for every matrix of the batch: columns on the last "
        "axis, rows on `axis` (default -2), op a transpose where its flag says.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("A", "NDArray-or-Symbol", "Left operand, rank >= 2.")
    .add_argument("B", "NDArray-or-Symbol", "Right operand, the same rank and batch.")
    .add_arguments(LinalgGemm2Param::__FIELDS__())
    .set_attr_parser(ParamParser<LinalgGemm2Param>)
    .set_attr<FInferShape>("FInferShape", GemmShape<LinalgGemm2Param>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_linalg_gemm2", true, false});

OPS_REGISTER_OP(_backward_linalg_gemm2)
    .describe("Gradient of _linalg_gemm2: A's and B's.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<LinalgGemm2Param>);

}  // namespace linalg
}  // namespace ops
