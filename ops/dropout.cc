// Dropout(p, mode, axes): MXNet's dropout, its mask a hidden second output drawn from the
// random resource; and its backward operator. Kernels, for every device: dropout-inl.h;
// FCompute<gpu>: dropout.cu.
#include "ops/dropout-inl.h"
#include "ops/random_request.h"

namespace ops {
namespace dropout {
namespace {

bool DropoutShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  SharedAxesOf(GetParam<DropoutParam>(attrs).axes, data);  // checks the axes
  AssignOutputShape(out, 0, data);
  AssignOutputShape(out, 1, data);
  return true;
}

// out has the data's type; the mask is uint8.
bool DropoutType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  std::vector<int> first_out = {out->at(0)};
  if (!ElemwiseRealType<1, 1>(attrs, in, &first_out)) return false;
  AssignOutputType(out, 0, first_out[0]);
  AssignOutputType(out, 1, mshadow::kUint8);
  return true;
}

const bool kRegistered = [] {
  SetDropoutCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(DropoutParam);

OPS_REGISTER_OP(Dropout)
    .describe(
        "Dropout: in training (or mode=always) each element is kept with probability "
        "1 - p and scaled by 1 / (1 - p), or zeroed; otherwise the identity. The second "
        "output, hidden (set_num_visible_outputs), is the mask the gradient uses (uint8, 1 where "
        "kept).")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_arguments(DropoutParam::__FIELDS__())
    .set_attr_parser(ParamParser<DropoutParam>)
    .set_num_visible_outputs(1)
    .set_attr<FInferShape>("FInferShape", DropoutShape)
    .set_attr<FInferType>("FInferType", DropoutType)
    .set_attr<FResourceRequest>("FResourceRequest", RequestRandom)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_Dropout", false, true});

OPS_REGISTER_OP(_backward_Dropout)
    .describe("Gradient of Dropout: the output gradient times the mask.")
    .set_num_inputs(4)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<DropoutParam>);

}  // namespace dropout
}  // namespace ops
