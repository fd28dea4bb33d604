// dot(transpose_a, transpose_b) and batch_dot(transpose_a, transpose_b): matrix products by
// BLAS, with backward operators.
//
// dot reads its operands as matrices: lhs of shape (a0, ..., ak) as (a0*...*a(k-1), ak), or,
// transposed, as (a0, a1*...*ak) used transposed; rhs of shape (b0, ..., bm) as
// (b0, b1*...*bm), or, transposed, as (b0*...*b(m-1), bm) used transposed. The output shape
// is lhs's kept axes followed by rhs's; (1,) for two vectors.
#include "ops/kernel_util.h"

namespace ops {
namespace {

using mshadow::Shape2;
using mshadow::expr::dot;

struct DotParam : public dmlc::Parameter<DotParam> {
  bool transpose_a;
  bool transpose_b;
  DMLC_DECLARE_PARAMETER(DotParam) {
    DMLC_DECLARE_FIELD(transpose_a).set_default(false).describe("Use lhs transposed.");
    DMLC_DECLARE_FIELD(transpose_b).set_default(false).describe("Use rhs transposed.");
  }
};

// The matrix an operand is stored as (before any transpose).
mshadow::Shape<2> LhsMatrix(const TShape& s, bool transposed) {
  const int n = static_cast<int>(s.ndim());
  return transposed ? Shape2(s[0], s.ProdShape(1, n)) : Shape2(s.ProdShape(0, n - 1), s[n - 1]);
}
mshadow::Shape<2> RhsMatrix(const TShape& s, bool transposed) {
  const int n = static_cast<int>(s.ndim());
  return transposed ? Shape2(s.ProdShape(0, n - 1), s[n - 1]) : Shape2(s[0], s.ProdShape(1, n));
}

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

void DotCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const DotParam& param = GetParam<DotParam>(attrs);
  auto* s = ctx.get_stream<cpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto a = in[0].get_with_shape<cpu, 2, DType>(LhsMatrix(in[0].shape_, param.transpose_a), s);
    auto b = in[1].get_with_shape<cpu, 2, DType>(RhsMatrix(in[1].shape_, param.transpose_b), s);
    const index_t m = param.transpose_a ? a.size(1) : a.size(0);
    const index_t n = param.transpose_b ? b.size(0) : b.size(1);
    auto c = out[0].get_with_shape<cpu, 2, DType>(Shape2(m, n), s);
    if (!param.transpose_a && !param.transpose_b) Assign(c, req[0], dot(a, b));
    if (!param.transpose_a && param.transpose_b) Assign(c, req[0], dot(a, b.T()));
    if (param.transpose_a && !param.transpose_b) Assign(c, req[0], dot(a.T(), b));
    if (param.transpose_a && param.transpose_b) Assign(c, req[0], dot(a.T(), b.T()));
  });
}

// Inputs: out_grad, lhs, rhs. With C = op(A) op(B):
//   no transposes: dA = dC B^T, dB = A^T dC;   transpose_a: dA = B dC^T, dB = A dC;
//   transpose_b: dA = dC B, dB = dC^T A;       both: dA = B^T dC^T, dB = dC^T A^T.
void DotBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                        const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                        const std::vector<TBlob>& out) {
  const DotParam& param = GetParam<DotParam>(attrs);
  const bool ta = param.transpose_a, tb = param.transpose_b;
  auto* s = ctx.get_stream<cpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const auto a_shape = LhsMatrix(in[1].shape_, ta);
    const auto b_shape = RhsMatrix(in[2].shape_, tb);
    auto a = in[1].get_with_shape<cpu, 2, DType>(a_shape, s);
    auto b = in[2].get_with_shape<cpu, 2, DType>(b_shape, s);
    auto dc = in[0].get_with_shape<cpu, 2, DType>(
        Shape2(ta ? a_shape[1] : a_shape[0], tb ? b_shape[0] : b_shape[1]), s);
    auto da = out[0].get_with_shape<cpu, 2, DType>(a_shape, s);
    auto db = out[1].get_with_shape<cpu, 2, DType>(b_shape, s);
    if (!ta && !tb) {
      Assign(da, req[0], dot(dc, b.T()));
      Assign(db, req[1], dot(a.T(), dc));
    } else if (ta && !tb) {
      Assign(da, req[0], dot(b, dc.T()));
      Assign(db, req[1], dot(a, dc));
    } else if (!ta && tb) {
      Assign(da, req[0], dot(dc, b));
      Assign(db, req[1], dot(dc.T(), a));
    } else {
      Assign(da, req[0], dot(b.T(), dc.T()));
      Assign(db, req[1], dot(dc.T(), a.T()));
    }
  });
}

// ---- batch_dot: (batch, m, k) x (batch, k, n) -> (batch, m, n), transposes on the last two
// axes.

bool BatchDotShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const DotParam& param = GetParam<DotParam>(attrs);
  const TShape& lhs = (*in)[0];
  const TShape& rhs = (*in)[1];
  if (!ShapeIsKnown(lhs) || !ShapeIsKnown(rhs)) return false;
  std::ostringstream os;
  if (lhs.ndim() != 3 || rhs.ndim() != 3) {
    os << "both operands must be 3-d (batch, rows, columns), got " << lhs << " and " << rhs;
  } else if (lhs[0] != rhs[0]) {
    os << "batch sizes differ: " << lhs << " and " << rhs;
  } else if ((param.transpose_a ? lhs[1] : lhs[2]) != (param.transpose_b ? rhs[2] : rhs[1])) {
    os << "the reduced extents differ: " << lhs << (param.transpose_a ? " (transposed)" : "")
       << " and " << rhs << (param.transpose_b ? " (transposed)" : "");
  }
  if (!os.str().empty()) throw dmlc::Error(os.str());
  AssignOutputShape(out, 0,
                    TShape{lhs[0], param.transpose_a ? lhs[2] : lhs[1],
                           param.transpose_b ? rhs[1] : rhs[2]});
  return true;
}

// dst[i] (= or +=) op(a[i]) op(b[i]).
template <bool kTransA, bool kTransB, typename DType>
void BatchProduct(Tensor<cpu, 3, DType> dst, OpReqType req, Tensor<cpu, 3, DType> a,
                  Tensor<cpu, 3, DType> b) {
  if (req == kNullOp) return;
  for (index_t i = 0; i < dst.size(0); ++i) {
    auto ai = a[i];
    auto bi = b[i];
    if constexpr (!kTransA && !kTransB) Assign(dst[i], req, dot(ai, bi));
    if constexpr (!kTransA && kTransB) Assign(dst[i], req, dot(ai, bi.T()));
    if constexpr (kTransA && !kTransB) Assign(dst[i], req, dot(ai.T(), bi));
    if constexpr (kTransA && kTransB) Assign(dst[i], req, dot(ai.T(), bi.T()));
  }
}

void BatchDotCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const DotParam& param = GetParam<DotParam>(attrs);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto a = in[0].get<cpu, 3, DType>();
    auto b = in[1].get<cpu, 3, DType>();
    auto c = out[0].get<cpu, 3, DType>();
    if (!param.transpose_a && !param.transpose_b) BatchProduct<false, false>(c, req[0], a, b);
    if (!param.transpose_a && param.transpose_b) BatchProduct<false, true>(c, req[0], a, b);
    if (param.transpose_a && !param.transpose_b) BatchProduct<true, false>(c, req[0], a, b);
    if (param.transpose_a && param.transpose_b) BatchProduct<true, true>(c, req[0], a, b);
  });
}

// The same formulas as dot's backward, per batch item.
void BatchDotBackwardCompute(const NodeAttrs& attrs, const OpContext&,
                             const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                             const std::vector<TBlob>& out) {
  const DotParam& param = GetParam<DotParam>(attrs);
  const bool ta = param.transpose_a, tb = param.transpose_b;
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    auto dc = in[0].get<cpu, 3, DType>();
    auto a = in[1].get<cpu, 3, DType>();
    auto b = in[2].get<cpu, 3, DType>();
    auto da = out[0].get<cpu, 3, DType>();
    auto db = out[1].get<cpu, 3, DType>();
    if (!ta && !tb) {
      BatchProduct<false, true>(da, req[0], dc, b);
      BatchProduct<true, false>(db, req[1], a, dc);
    } else if (ta && !tb) {
      BatchProduct<false, true>(da, req[0], b, dc);
      BatchProduct<false, false>(db, req[1], a, dc);
    } else if (!ta && tb) {
      BatchProduct<false, false>(da, req[0], dc, b);
      BatchProduct<true, false>(db, req[1], dc, a);
    } else {
      BatchProduct<true, true>(da, req[0], b, dc);
      BatchProduct<true, true>(db, req[1], dc, a);
    }
  });
}

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
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
    .set_attr<FCompute>("FCompute<cpu>", DotCompute)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_dot", true, false});

OPS_REGISTER_OP(_backward_dot)
    .describe("Gradient of dot.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<DotParam>)
    .set_attr<FCompute>("FCompute<cpu>", DotBackwardCompute);

OPS_REGISTER_OP(batch_dot)
    .describe("Batched matrix product: out[i] = op(lhs[i]) op(rhs[i]) for 3-d operands "
              "(batch, rows, columns).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("lhs", "NDArray-or-Symbol", "Left operand, (batch, m, k).")
    .add_argument("rhs", "NDArray-or-Symbol", "Right operand, (batch, k, n).")
    .add_arguments(DotParam::__FIELDS__())
    .set_attr_parser(ParamParser<DotParam>)
    .set_attr<FInferShape>("FInferShape", BatchDotShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
    .set_attr<FCompute>("FCompute<cpu>", BatchDotCompute)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_batch_dot", true, false});

OPS_REGISTER_OP(_backward_batch_dot)
    .describe("Gradient of batch_dot.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<DotParam>)
    .set_attr<FCompute>("FCompute<cpu>", BatchDotBackwardCompute);

}  // namespace ops
