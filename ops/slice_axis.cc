// slice_axis(axis, begin, end): the elements begin..end-1 along one axis (negative indices
// count from the end, end None for the extent); its backward operator scatters the gradient
// back, zero elsewhere. Kernels, for every device: slice_axis-inl.h; FCompute<gpu>:
// slice_axis.cu.
#include "ops/slice_axis-inl.h"

namespace ops {
namespace slice_axis {
namespace {

bool SliceAxisShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const SliceRange r = RangeFor(GetParam<SliceAxisParam>(attrs), data);
  TShape result = data;
  result[r.axis] = r.end - r.begin;
  AssignOutputShape(out, 0, result);
  return true;
}

const bool kRegistered = [] {
  SetSliceAxisCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(SliceAxisParam);

OPS_REGISTER_OP(slice_axis)
    .describe("The elements [begin, end) along one axis.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(SliceAxisParam::__FIELDS__())
    .set_attr_parser(ParamParser<SliceAxisParam>)
    .set_attr<FInferShape>("FInferShape", SliceAxisShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_slice_axis", false, false});

OPS_REGISTER_OP(_backward_slice_axis)
    .describe("Gradient of slice_axis.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<SliceAxisParam>);

}  // namespace slice_axis
}  // namespace ops
