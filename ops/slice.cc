// slice / crop and slice_like (slice-inl.h): the CPU registration; FCompute<gpu>: slice.cu.
#include "ops/slice-inl.h"

namespace ops {
namespace slice {

DMLC_REGISTER_PARAMETER(SliceParam);
DMLC_REGISTER_PARAMETER(SliceLikeParam);
DMLC_REGISTER_PARAMETER(SliceAssignScalarParam);

namespace {

bool SliceShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  AssignOutputShape(out, 0, ViewOf(GetParam<SliceParam>(attrs), data).shape);
  return true;
}

bool SliceLikeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!ShapeIsKnown((*in)[0]) || !ShapeIsKnown((*in)[1])) return false;
  AssignOutputShape(out, 0, LikeViewOf(GetParam<SliceLikeParam>(attrs), (*in)[0], (*in)[1]).shape);
  return true;
}

// _slice_assign: out is lhs's shape; rhs the slice's.
bool SliceAssignShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& lhs = (*in)[0];
  if (!ShapeIsKnown(lhs)) return false;
  AssignInputShape(in, 1, ViewOf(GetParam<SliceParam>(attrs), lhs).shape);
  AssignOutputShape(out, 0, lhs);
  return true;
}

bool SliceAssignScalarShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                            std::vector<TShape>* out) {
  const TShape& lhs = (*in)[0];
  if (!ShapeIsKnown(lhs)) return false;
  ViewOf(SliceOf(GetParam<SliceAssignScalarParam>(attrs)), lhs);  // checks the slice
  AssignOutputShape(out, 0, lhs);
  return true;
}

std::vector<std::pair<int, int>> InplaceLhs(const NodeAttrs&) { return {{0, 0}}; }

const bool kRegistered = [] {
  RegisterOp("_slice_assign")
      .add_alias("_crop_assign")
      .describe(
          "lhs with its slice (begin, end, step as slice takes them) set to rhs, of the "
          "slice's shape; in place or written, not added. No gradient (as MXNet).")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("lhs", "NDArray-or-Symbol", "The array assigned into.")
      .add_argument("rhs", "NDArray-or-Symbol", "The slice's new values.")
      .add_arguments(SliceParam::__FIELDS__())
      .set_attr_parser(ParamParser<SliceParam>)
      .set_attr<FInferShape>("FInferShape", SliceAssignShape)
      .set_attr<FInferType>("FInferType", ElemwiseType<2, 1>)
      .set_attr<FInplaceOption>("FInplaceOption", InplaceLhs);
  RegisterOp("_slice_assign_scalar")
      .add_alias("_crop_assign_scalar")
      .describe(
          "lhs with its slice (begin, end, step as slice takes them) set to scalar; in "
          "place or written, not added. No gradient (as MXNet).")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("lhs", "NDArray-or-Symbol", "The array assigned into.")
      .add_arguments(SliceAssignScalarParam::__FIELDS__())
      .set_attr_parser(ParamParser<SliceAssignScalarParam>)
      .set_attr<FInferShape>("FInferShape", SliceAssignScalarShape)
      .set_attr<FInferType>("FInferType", ElemwiseType<1, 1>)
      .set_attr<FInplaceOption>("FInplaceOption", InplaceLhs);
  SetSliceCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(slice)
    .describe(
        "Slices the first axes from begin to end with a step, as Python slices: None "
        "for either end, negative indices from the end, negative steps (alias crop).")
    .add_alias("crop")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(SliceParam::__FIELDS__())
    .set_attr_parser(ParamParser<SliceParam>)
    .set_attr<FInferShape>("FInferShape", SliceShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_slice", false, false});

OPS_REGISTER_OP(_backward_slice)
    .describe("Gradient of slice: the output gradient in the sliced elements, zero elsewhere.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<SliceParam>);

OPS_REGISTER_OP(slice_like)
    .describe(
        "The leading part of data as large as shape_like along the given axes (all "
        "axes when none are given); shape_like gets a zero gradient.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The array to slice.")
    .add_argument("shape_like", "NDArray-or-Symbol", "The array whose extents it takes.")
    .add_arguments(SliceLikeParam::__FIELDS__())
    .set_attr_parser(ParamParser<SliceLikeParam>)
    .set_attr<FInferShape>("FInferShape", SliceLikeShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_slice_like", true, false});

OPS_REGISTER_OP(_backward_slice_like)
    .describe(
        "Gradient of slice_like: the output gradient in the sliced elements, zero "
        "elsewhere and for shape_like.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<SliceLikeParam>);

}  // namespace slice
}  // namespace ops
