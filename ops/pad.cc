// Pad / pad (pad-inl.h): the CPU registration; FCompute<gpu>: pad.cu.
#include "ops/pad-inl.h"

namespace ops {
namespace pad {

DMLC_REGISTER_PARAMETER(PadParam);

namespace {

bool PadShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const PadGeometry g = Geometry(GetParam<PadParam>(attrs), data);
  AssignOutputShape(out, 0, TShape(g.out, g.out + g.ndim));
  return true;
}

const bool kRegistered = [] {
  SetPadCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(Pad)
    .describe("Pads every axis by pad_width (before and after): with a constant, the nearest "
              "edge element, or the input reflected about its edge (alias pad).")
    .add_alias("pad")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array, of rank 1 to 5.")
    .add_arguments(PadParam::__FIELDS__())
    .set_attr_parser(ParamParser<PadParam>)
    .set_attr<FInferShape>("FInferShape", PadShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_Pad", false, false});

OPS_REGISTER_OP(_backward_Pad)
    .describe("Gradient of Pad: each input element gets the output gradient of every position "
              "that read it.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<PadParam>);

}  // namespace pad
}  // namespace ops
