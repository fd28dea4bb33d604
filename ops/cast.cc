// Cast(dtype): converts the elements to another type; its backward operator converts the
// gradient back to the input's type. Kernels, for every device: cast-inl.h; FCompute<gpu>:
// cast.cu.
#include "ops/cast-inl.h"

namespace ops {
namespace cast {
namespace {

bool CastType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignOutputType(out, 0, GetParam<CastParam>(attrs).dtype);
  return (*in)[0] != -1;
}

const bool kRegistered = [] {
  SetCastCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(CastParam);

OPS_REGISTER_OP(Cast)
    .add_alias("cast")
    .describe(
        "Converts the elements to dtype. Floating point to integer truncates toward "
        "zero, saturates at the integer type's limits and maps NaN to 0; to bool is "
        "'not zero'; to bfloat16 drops the low 16 bits of the float32 value, as MXNet "
        "1.9.1's CPU build.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(CastParam::__FIELDS__())
    .set_attr_parser(ParamParser<CastParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
    .set_attr<FInferType>("FInferType", CastType)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_Cast", false, false});

OPS_REGISTER_OP(_backward_Cast)
    .describe("Gradient of Cast: the output gradient converted to the input's type.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true);

}  // namespace cast
}  // namespace ops
