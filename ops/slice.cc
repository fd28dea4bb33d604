// slice / crop (slice-inl.h): the CPU registration; FCompute<gpu>: slice.cu.
#include "ops/slice-inl.h"

namespace ops {
namespace slice {

DMLC_REGISTER_PARAMETER(SliceParam);

namespace {

bool SliceShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  AssignOutputShape(out, 0, ViewOf(GetParam<SliceParam>(attrs), data).shape);
  return true;
}

const bool kRegistered = [] {
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

}  // namespace slice
}  // namespace ops
