// _linalg_extractdiag, _linalg_makediag, _linalg_extracttrian, _linalg_maketrian and
// _linalg_sumlogdiag: diagonals and triangles of batches of square matrices, packed into
// vectors and back. Layouts and shapes are here; the computation, for every device:
// linalg_triangle-inl.h; FCompute<gpu>: linalg_triangle.cu.
#include <cstdlib>
#include <string>
#include <vector>

#include "ops/infer.h"
#include "ops/infer_util.h"
#include "ops/linalg_triangle-inl.h"

namespace ops {
namespace linalg {

DMLC_REGISTER_PARAMETER(LinalgDiagParam);
DMLC_REGISTER_PARAMETER(LinalgTrianParam);

namespace {

// n - |offset|, the diagonal's length or the triangle's rows; a dmlc::Error where the offset
// leaves nothing.
index_t SideOf(index_t n, int offset) {
  const index_t side = n - std::abs(static_cast<index_t>(offset));
  if (side <= 0) {
    throw dmlc::Error("offset " + std::to_string(offset) + " leaves nothing of " +
                      std::to_string(n) + " x " + std::to_string(n) + " matrices; valid: [" +
                      std::to_string(1 - n) + ", " + std::to_string(n - 1) + "]");
  }
  return side;
}

}  // namespace

PackedLayout LayoutOf(const LinalgDiagParam& param, index_t n) {
  PackedLayout l;
  l.kind = PackedLayout::kDiagonal;
  l.n = n;
  l.side = l.packed = SideOf(n, param.offset);
  l.row_shift = param.offset < 0 ? -param.offset : 0;
  l.column_shift = param.offset > 0 ? param.offset : 0;
  return l;
}

PackedLayout LayoutOf(const LinalgTrianParam& param, index_t n) {
  PackedLayout l;
  const bool lower = param.offset < 0 || (param.offset == 0 && param.lower);
  l.kind = lower ? PackedLayout::kLower : PackedLayout::kUpper;
  l.n = n;
  l.side = SideOf(n, param.offset);
  l.packed = l.side * (l.side + 1) / 2;
  return l;
}

namespace {

// The side of square matrices `shape` (its last two axes); a dmlc::Error for fewer axes or
// matrices that are not square.
index_t SquareSide(const TShape& shape) {
  const int ndim = static_cast<int>(shape.ndim());
  if (ndim < 2 || shape[ndim - 2] != shape[ndim - 1]) {
    throw dmlc::Error("A must be square matrices (the last two axes), got " + ShapeText(shape));
  }
  return shape[ndim - 1];
}

// Extraction: (..., n, n) -> (..., packed).
template <typename Param>
bool PackShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!ShapeIsKnown(a)) return false;
  const PackedLayout l = LayoutOf(GetParam<Param>(attrs), SquareSide(a));
  std::vector<index_t> dims(a.begin(), a.end() - 2);
  dims.push_back(l.packed);
  AssignOutputShape(out, 0, TShape(dims.begin(), dims.end()));
  return true;
}

// The side of the matrices whose diagonal or triangle (`param`) packs into `packed` elements.
index_t UnpackedSide(const LinalgDiagParam& param, index_t packed) {
  return packed + std::abs(static_cast<index_t>(param.offset));
}
index_t UnpackedSide(const LinalgTrianParam& param, index_t packed) {
  index_t side = 0;
  while (side * (side + 1) / 2 < packed) ++side;
  if (side * (side + 1) / 2 != packed) {
    throw dmlc::Error("the last axis, " + std::to_string(packed) +
                      ", is not the size of a triangle (1, 3, 6, 10, ...: s (s + 1) / 2)");
  }
  return side + std::abs(static_cast<index_t>(param.offset));
}

// Making: (..., packed) -> (..., n, n).
template <typename Param>
bool UnpackShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!ShapeIsKnown(a)) return false;
  if (a.ndim() < 1 || a[a.ndim() - 1] == 0) {
    throw dmlc::Error("A must be vectors of one or more elements (the last axis), got " +
                      ShapeText(a));
  }
  const index_t n = UnpackedSide(GetParam<Param>(attrs), a[a.ndim() - 1]);
  std::vector<index_t> dims(a.begin(), a.end() - 1);
  dims.push_back(n);
  dims.push_back(n);
  AssignOutputShape(out, 0, TShape(dims.begin(), dims.end()));
  return true;
}

// sumlogdiag: (..., n, n) -> (...), or (1,) for one matrix.
bool SumLogDiagShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!ShapeIsKnown(a)) return false;
  if (SquareSide(a) == 0) {
    throw dmlc::Error("matrices of side 0 have no diagonal, got " + ShapeText(a));
  }
  const TShape batch = a.ndim() == 2 ? TShape{1} : TShape(a.begin(), a.end() - 2);
  AssignOutputShape(out, 0, batch);
  return true;
}

template <typename Param>
Op& RegisterPacking(const char* name, const char* alias, const char* description,
                    const char* backward, FInferShape shape) {
  Op& op = RegisterOp(name);
  op.add_alias(alias)
      .describe(description)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("A", "NDArray-or-Symbol", "The input array.")
      .set_attr<FInferShape>("FInferShape", shape)
      .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
      .set_attr<FGradient>("FGradient", FGradient{backward, false, false});
  op.add_arguments(Param::__FIELDS__());
  op.set_attr_parser(ParamParser<Param>);
  Op& backward_op = RegisterOp(backward);
  backward_op.describe(std::string("Gradient of ") + name + ": the other direction.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .set_attr<bool>("TIsBackward", true);
  backward_op.set_attr_parser(ParamParser<Param>);
  return op;
}

const bool kRegistered = [] {
  RegisterPacking<LinalgDiagParam>(
      "_linalg_extractdiag", "linalg_extractdiag",
      "The diagonal `offset` of square matrices (the last two axes): (..., n, n) -> "
      "(..., n - |offset|).",
      "_backward_linalg_extractdiag", PackShape<LinalgDiagParam>);
  RegisterPacking<LinalgDiagParam>(
      "_linalg_makediag", "linalg_makediag",
      "Square matrices with the vectors (the last axis) on their diagonal `offset`, zeros "
      "elsewhere: (..., k) -> (..., k + |offset|, k + |offset|).",
      "_backward_linalg_makediag", UnpackShape<LinalgDiagParam>);
  RegisterPacking<LinalgTrianParam>(
      "_linalg_extracttrian", "linalg_extracttrian",
      "A triangle of square matrices packed into vectors, (..., n, n) -> (..., s (s + 1) / 2) "
      "with s = n - |offset|: a lower triangle row by row, an upper one column by column.",
      "_backward_linalg_extracttrian", PackShape<LinalgTrianParam>);
  RegisterPacking<LinalgTrianParam>(
      "_linalg_maketrian", "linalg_maketrian",
      "Square matrices with packed triangles (the last axis, as extracttrian packs them) in "
      "place, zeros elsewhere: (..., s (s + 1) / 2) -> (..., s + |offset|, s + |offset|).",
      "_backward_linalg_maketrian", UnpackShape<LinalgTrianParam>);
  RegisterOp("_linalg_sumlogdiag")
      .add_alias("linalg_sumlogdiag")
      .describe(
          "The sum of the natural logarithms of the diagonal of square matrices (the last "
          "two axes): (..., n, n) -> (...), (1,) for one matrix; NaN where an element of "
          "the diagonal is negative.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("A", "NDArray-or-Symbol", "The input array.")
      .set_attr<FInferShape>("FInferShape", SumLogDiagShape)
      .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
      .set_attr<FGradient>("FGradient", FGradient{"_backward_linalg_sumlogdiag", true, false});
  RegisterOp("_backward_linalg_sumlogdiag")
      .describe("Gradient of _linalg_sumlogdiag: the output gradient over the diagonal.")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .set_attr<bool>("TIsBackward", true);
  SetLinalgTriangleCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace linalg
}  // namespace ops
