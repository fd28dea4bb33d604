// _linalg_syevd and _linalg_gelqf (and their linalg_* names): the symmetric eigendecomposition
// and the LQ factorization of batches of matrices, and their backward operators. Shapes are
// here; the computation, for every device: linalg_orthogonal-inl.h; FCompute<gpu>:
// linalg_orthogonal.cu.
#include <sstream>
#include <vector>

#include "ops/infer.h"
#include "ops/infer_util.h"
#include "ops/linalg_orthogonal-inl.h"

namespace ops {
namespace linalg {
namespace {

// Square A (..., n, n) -> U (..., n, n) and L (..., n).
bool SyevdShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!ShapeIsKnown(a)) return false;
  CheckSquare(a, "A");
  AssignOutputShape(out, 0, a);
  AssignOutputShape(out, 1, TShape(a.begin(), a.end() - 1));
  return true;
}

// A (..., m, n), m <= n -> Q (..., m, n) and L (..., m, m).
bool GelqfShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!ShapeIsKnown(a)) return false;
  CheckMatrices(a, "A");
  const int ndim = static_cast<int>(a.ndim());
  if (a[ndim - 2] > a[ndim - 1]) {
    std::ostringstream os;
    os << "A " << a << " has more rows (" << a[ndim - 2] << ") than columns (" << a[ndim - 1]
       << "); valid: matrices of at most as many rows as columns (factor the transpose "
       << "otherwise)";
    throw dmlc::Error(os.str());
  }
  TShape l = a;
  l[ndim - 1] = a[ndim - 2];
  AssignOutputShape(out, 0, a);
  AssignOutputShape(out, 1, l);
  return true;
}

const bool kRegistered = [] {
  SetLinalgOrthogonalCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(_linalg_syevd)
    .add_alias("linalg_syevd")
    .describe(
        "The eigendecomposition A = U^T diag(L) U of every symmetric matrix of the batch (only "
        "its lower triangle is read): U's rows the unit eigenvectors, each signed so that its "
        "element of largest magnitude is positive; L the eigenvalues, ascending.")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .add_argument("A", "NDArray-or-Symbol", "Symmetric matrices (..., n, n).")
    .set_attr<FInferShape>("FInferShape", SyevdShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 2>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_linalg_syevd", false, true});

OPS_REGISTER_OP(_backward_linalg_syevd)
    .describe("Gradient of _linalg_syevd: the symmetric A's.")
    .set_num_inputs(4)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

OPS_REGISTER_OP(_linalg_gelqf)
    .add_alias("linalg_gelqf")
    .describe(
        "The LQ factorization A = L Q of every m x n matrix of the batch, m <= n: Q's m rows "
        "orthonormal, L lower triangular (Householder's, as LAPACK: L's diagonal may be "
        "negative).")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .add_argument("A", "NDArray-or-Symbol", "Matrices (..., m, n), m <= n.")
    .set_attr<FInferShape>("FInferShape", GelqfShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 2>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)  // the reflectors' scales
    .set_attr<FGradient>("FGradient", FGradient{"_backward_linalg_gelqf", false, true});

OPS_REGISTER_OP(_backward_linalg_gelqf)
    .describe("Gradient of _linalg_gelqf.")
    .set_num_inputs(4)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

}  // namespace linalg
}  // namespace ops
