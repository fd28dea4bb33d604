// LRN(alpha, beta, knorm, nsize): local response normalization across the channels, and its
// backward operator. Kernels, for every device: lrn-inl.h; FCompute<gpu>: lrn.cu.
#include <sstream>

#include "ops/lrn-inl.h"

namespace ops {
namespace lrn {
namespace {

bool LRNShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  if (data.ndim() < 2) {
    std::ostringstream os;
    os << "LRN: data " << data << " must have at least 2 axes (N, C, spatial...)";
    throw dmlc::Error(os.str());
  }
  AssignOutputShape(out, 0, data);
  return true;
}

const bool kRegistered = [] {
  SetLRNCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(LRNParam);

OPS_REGISTER_OP(LRN)
    .describe(
        "Local response normalization across channels: x[c] * (knorm + alpha / nsize * sum "
        "of x^2 over the nsize channels around c)^-beta.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input data (N, C, spatial...).")
    .add_arguments(LRNParam::__FIELDS__())
    .set_attr_parser(ParamParser<LRNParam>)
    .set_attr<FInferShape>("FInferShape", LRNShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_LRN", true, false});

OPS_REGISTER_OP(_backward_LRN)
    .describe("Gradient of LRN.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<LRNParam>);

}  // namespace lrn
}  // namespace ops
