// _linalg_inverse, _linalg_det and _linalg_slogdet (and their linalg_* names): the inverse and
// determinant of batches of square matrices through their LU factorization, and their backward
// operators. Shapes are here; the computation, for every device: linalg_lu-inl.h;
// FCompute<gpu>: linalg_lu.cu.
#include <vector>

#include "ops/infer.h"
#include "ops/infer_util.h"
#include "ops/linalg_lu-inl.h"

namespace ops {
namespace linalg {
namespace {

// Square A (..., n, n) -> one value per matrix, shape (...), or (1,) for one matrix (as MXNet);
// `outputs` of them.
template <int outputs>
bool DeterminantShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!ShapeIsKnown(a)) return false;
  CheckSquare(a, "A");
  const TShape values = a.ndim() == 2 ? TShape{1} : TShape(a.begin(), a.end() - 2);
  for (int i = 0; i < outputs; ++i) AssignOutputShape(out, i, values);
  return true;
}

const bool kRegistered = [] {
  SetLinalgLuCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(_linalg_inverse)
    .add_alias("linalg_inverse")
    .describe(
        "The inverse of every square matrix of the batch (the last two axes), by LU "
        "factorization with partial pivoting; a singular matrix is an error naming it.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("A", "NDArray-or-Symbol", "Square matrices (..., n, n).")
    .set_attr<FInferShape>("FInferShape", SquareShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)  // the LU factors
    .set_attr<FGradient>("FGradient", FGradient{"_backward_linalg_inverse", false, true});

OPS_REGISTER_OP(_backward_linalg_inverse)
    .describe("Gradient of _linalg_inverse: -A^-T dOut A^-T.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

OPS_REGISTER_OP(_linalg_det)
    .add_alias("linalg_det")
    .describe(
        "The determinant of every square matrix of the batch: shape (...) for A (..., n, n), "
        "(1,) for one matrix; zero for a singular one.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("A", "NDArray-or-Symbol", "Square matrices (..., n, n).")
    .set_attr<FInferShape>("FInferShape", DeterminantShape<1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_linalg_det", true, true});

OPS_REGISTER_OP(_backward_linalg_det)
    .describe("Gradient of _linalg_det: dOut det(A) A^-T; an error for a singular A.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

OPS_REGISTER_OP(_linalg_slogdet)
    .add_alias("linalg_slogdet")
    .describe(
        "The sign and the natural logarithm of the absolute value of the determinant of every "
        "square matrix of the batch (two outputs, each shaped as linalg_det's): sign 0 and "
        "-inf for a singular matrix.")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .add_argument("A", "NDArray-or-Symbol", "Square matrices (..., n, n).")
    .set_attr<FInferShape>("FInferShape", DeterminantShape<2>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 2>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_linalg_slogdet", true, true});

OPS_REGISTER_OP(_backward_linalg_slogdet)
    .describe("Gradient of _linalg_slogdet: dLogAbsDet A^-T; an error for a singular A.")
    .set_num_inputs(5)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

}  // namespace linalg
}  // namespace ops
