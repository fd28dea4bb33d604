// L2Normalization(eps, mode): each line of the data divided by its L2 norm, and the backward
// operator. Kernels, for every device: l2_normalization-inl.h; FCompute<gpu>:
// l2_normalization.cu.
#include <sstream>

#include "ops/l2_normalization-inl.h"

namespace ops {
namespace l2_normalization {
namespace {

bool L2NormalizationShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                          std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const int mode = GetParam<L2NormalizationParam>(attrs).mode;
  if (mode != kInstance && data.ndim() < 3) {
    std::ostringstream os;
    os << "L2Normalization: data " << data << " must have at least 3 axes (N, C, spatial...) in "
       << (mode == kChannel ? "channel" : "spatial") << " mode";
    throw dmlc::Error(os.str());
  }
  AssignOutputShape(out, 0, data);
  return true;
}

const bool kRegistered = [] {
  SetL2NormalizationCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(L2NormalizationParam);

OPS_REGISTER_OP(L2Normalization)
    .describe(
        "Divides each line of the data by its L2 norm sqrt(sum(x * x) + eps); the mode picks "
        "the lines: each sample (instance), across the channels (channel), or each channel's "
        "spatial axes (spatial).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input data (N, ...); (N, C, spatial...) in "
                  "channel and spatial modes.")
    .add_arguments(L2NormalizationParam::__FIELDS__())
    .set_attr_parser(ParamParser<L2NormalizationParam>)
    .set_attr<FInferShape>("FInferShape", L2NormalizationShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_L2Normalization", true, true});

OPS_REGISTER_OP(_backward_L2Normalization)
    .describe("Gradient of L2Normalization.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<L2NormalizationParam>);

}  // namespace l2_normalization
}  // namespace ops
