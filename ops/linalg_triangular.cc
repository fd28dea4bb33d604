// _linalg_trmm, _linalg_trsm, _linalg_syrk, _linalg_potrf and _linalg_potri (and their
// linalg_* names): triangular products and solves, symmetric rank-k products and the Cholesky
// factorization of batches of matrices, and their backward operators. Shapes are here; the
// computation, for every device: linalg_triangular-inl.h; FCompute<gpu>: linalg_triangular.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/infer.h"
#include "ops/infer_util.h"
#include "ops/linalg_triangular-inl.h"

namespace ops {
namespace linalg {

DMLC_REGISTER_PARAMETER(LinalgTriangularParam);
DMLC_REGISTER_PARAMETER(LinalgSyrkParam);

namespace {

// A (..., k, k) triangular and B (..., m, n) with k = m (k = n with rightside): out is B's shape.
bool TriangularShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &a = (*in)[0], &b = (*in)[1];
  if (!ShapeIsKnown(a) || !ShapeIsKnown(b)) return false;
  CheckSquare(a, "A");
  CheckMatrices(b, "B");
  const auto& p = GetParam<LinalgTriangularParam>(attrs);
  const int ndim = static_cast<int>(b.ndim());
  const index_t shared = p.rightside ? b[ndim - 1] : b[ndim - 2];
  bool same_batch = a.ndim() == b.ndim();
  for (int d = 0; same_batch && d + 2 < ndim; ++d) same_batch = a[d] == b[d];
  if (!same_batch || a[ndim - 1] != shared) {
    std::ostringstream os;
    os << "A " << a << " and B " << b << " do not match: "
       << (same_batch ? std::string("A's side must equal B's ") +
                            (p.rightside ? "columns (rightside)" : "rows")
                      : std::string("their batch axes (all but the last two) differ"));
    throw dmlc::Error(os.str());
  }
  AssignOutputShape(out, 0, b);
  return true;
}

// A (..., m, k) -> (..., m, m), or (..., k, k) with transpose.
bool SyrkShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!ShapeIsKnown(a)) return false;
  CheckMatrices(a, "A");
  const int ndim = static_cast<int>(a.ndim());
  TShape result = a;
  const index_t side = GetParam<LinalgSyrkParam>(attrs).transpose ? a[ndim - 1] : a[ndim - 2];
  result[ndim - 2] = result[ndim - 1] = side;
  AssignOutputShape(out, 0, result);
  return true;
}

const bool kRegistered = [] {
  SetLinalgTriangularCompute<cpu>();
  return true;
}();

}  // namespace

namespace {

// _linalg_trmm or _linalg_trsm (both A, B and LinalgTriangularParam) and its backward operator,
// which takes dOut, A, B and, with `uses_output`, out.
void DefineTriangular(const std::string& name, const std::string& description, bool uses_output) {
  const std::string backward = "_backward" + name;
  Op& op = RegisterOp(name)
               .add_alias(name.substr(1))
               .describe(description)
               .set_num_inputs(2)
               .set_num_outputs(1)
               .add_argument("A", "NDArray-or-Symbol", "Triangular matrices (..., k, k).")
               .add_argument("B", "NDArray-or-Symbol",
                             "Matrices (..., m, n), k = m (k = n with rightside).")
               .set_attr<FInferShape>("FInferShape", TriangularShape)
               .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
               .set_attr<FGradient>("FGradient", FGradient{backward, true, uses_output});
  op.add_arguments(LinalgTriangularParam::__FIELDS__());
  op.set_attr_parser(ParamParser<LinalgTriangularParam>);
  RegisterOp(backward)
      .describe("Gradient of " + name + ": A's (in A's triangle) and B's.")
      .set_num_inputs(uses_output ? 4 : 3)
      .set_num_outputs(2)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParamParser<LinalgTriangularParam>);
}

const bool kTriangularRegistered = [] {
  DefineTriangular("_linalg_trmm",
                   "out = alpha * op(A) B, or alpha * B op(A) with rightside, for every matrix of "
                   "the batch (the last two axes): A triangular (lower, or upper with "
                   "lower=False; the other triangle is not read), op a transpose with "
                   "transpose=True.",
                   false);
  DefineTriangular("_linalg_trsm",
                   "out = alpha * op(A)^-1 B, or alpha * B op(A)^-1 with rightside: the solution "
                   "X of op(A) X = alpha B (X op(A) = alpha B), for every matrix of the batch; A "
                   "triangular as for linalg_trmm. A zero on A's diagonal gives infinities and "
                   "NaN, as BLAS (and MXNet).",
                   true);
  return true;
}();

}  // namespace

OPS_REGISTER_OP(_linalg_syrk)
    .add_alias("linalg_syrk")
    .describe(
        "out = alpha * A A^T, or alpha * A^T A with transpose, for every matrix of the batch: "
        "symmetric, both triangles written.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("A", "NDArray-or-Symbol", "Matrices (..., m, k).")
    .add_arguments(LinalgSyrkParam::__FIELDS__())
    .set_attr_parser(ParamParser<LinalgSyrkParam>)
    .set_attr<FInferShape>("FInferShape", SyrkShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_linalg_syrk", true, false});

OPS_REGISTER_OP(_backward_linalg_syrk)
    .describe("Gradient of _linalg_syrk.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<LinalgSyrkParam>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);  // dOut + dOut^T

OPS_REGISTER_OP(_linalg_potrf)
    .add_alias("linalg_potrf")
    .describe(
        "The Cholesky factor L of every symmetric positive definite matrix A of the batch: "
        "A = L L^T, L lower triangular with a positive diagonal and zeros above it. Only A's "
        "lower triangle is read; a matrix that is not positive definite is an error naming it.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("A", "NDArray-or-Symbol", "Symmetric positive definite matrices (..., n, n).")
    .set_attr<FInferShape>("FInferShape", SquareShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_linalg_potrf", false, true});

OPS_REGISTER_OP(_backward_linalg_potrf)
    .describe("Gradient of _linalg_potrf: the symmetric A's.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true);

OPS_REGISTER_OP(_linalg_potri)
    .add_alias("linalg_potri")
    .describe(
        "(L L^T)^-1 for every lower triangular L of the batch (the inverse of the matrix whose "
        "Cholesky factor L is, from linalg_potrf); L's upper triangle is not read. A zero on "
        "L's diagonal is an error naming the matrix.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("A", "NDArray-or-Symbol", "Lower triangular matrices (..., n, n).")
    .set_attr<FInferShape>("FInferShape", SquareShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_linalg_potri", true, true});

OPS_REGISTER_OP(_backward_linalg_potri)
    .describe("Gradient of _linalg_potri: L's, in its lower triangle.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);  // dOut + dOut^T

}  // namespace linalg
}  // namespace ops
