// reverse / flip (flip-inl.h): the CPU registration; FCompute<gpu>: flip.cu.
#include "ops/flip-inl.h"

namespace ops {
namespace flip {

DMLC_REGISTER_PARAMETER(FlipParam);

namespace {

bool FlipShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  FlippedAxes(GetParam<FlipParam>(attrs), data.ndim());  // checks the axes
  AssignOutputShape(out, 0, data);
  return true;
}

const bool kRegistered = [] {
  SetFlipCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(reverse)
    .describe("Reverses the order of the elements along the given axes (alias flip).")
    .add_alias("flip")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(FlipParam::__FIELDS__())
    .set_attr_parser(ParamParser<FlipParam>)
    .set_attr<FInferShape>("FInferShape", FlipShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_reverse", false, false});

OPS_REGISTER_OP(_backward_reverse)
    .describe("Gradient of reverse: the output gradient reversed along the same axes.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<FlipParam>);

}  // namespace flip
}  // namespace ops
