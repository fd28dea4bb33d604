// GroupNorm(num_groups, eps, output_mean_var) and InstanceNorm(eps): MXNet's normalization of
// channel groups per sample; and their backward operators. Kernels, for every device:
// group_norm-inl.h; FCompute<gpu>: group_norm.cu.
#include <sstream>

#include "ops/group_norm-inl.h"

namespace ops {
namespace group_norm {
namespace {

[[noreturn]] void Fail(const std::string& message) { throw dmlc::Error(message); }

// gamma and beta: (P,); out: the data's shape; mean and std: (N, P).
void AssignShapes(std::vector<TShape>* in, std::vector<TShape>* out, index_t per_sample) {
  const TShape& data = (*in)[0];
  AssignInputShape(in, 1, TShape{per_sample});
  AssignInputShape(in, 2, TShape{per_sample});
  AssignOutputShape(out, 0, data);
  for (size_t i = 1; i < out->size(); ++i) {
    AssignOutputShape(out, static_cast<int>(i), TShape{data[0], per_sample});
  }
}

bool GroupNormShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const GroupNormParam& param = GetParam<GroupNormParam>(attrs);
  std::ostringstream os;
  if (data.ndim() < 3) {
    os << "GroupNorm: data " << data << " must have at least 3 axes (N, C, spatial...)";
    Fail(os.str());
  }
  if (data[1] % param.num_groups != 0) {
    os << "GroupNorm: num_groups " << param.num_groups << " must divide the " << data[1]
       << " channels of data " << data;
    Fail(os.str());
  }
  AssignShapes(in, out, param.num_groups);
  return true;
}

bool InstanceNormShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  if (data.ndim() < 2) {
    std::ostringstream os;
    os << "InstanceNorm: data " << data << " must have at least 2 axes (N, C, spatial...)";
    Fail(os.str());
  }
  AssignShapes(in, out, data[1]);
  return true;
}

bool GroupNormType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  return NumOutputs<GroupNormParam>(attrs) == 1 ? ElemwiseRealType<3, 1>(attrs, in, out)
                                                : ElemwiseRealType<3, 3>(attrs, in, out);
}

const bool kRegistered = [] {
  SetGroupNormCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(GroupNormParam);
DMLC_REGISTER_PARAMETER(InstanceNormParam);

OPS_REGISTER_OP(GroupNorm)
    .describe(
        "Group normalization: the channels of each sample split into num_groups groups, "
        "each becomes (x - mean) / sqrt(var + eps) * gamma[group] + beta[group].")
    .set_num_inputs(3)
    .set_num_outputs(NumOutputs<GroupNormParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data (N, C, spatial...).")
    .add_argument("gamma", "NDArray-or-Symbol", "Scale, one per group.")
    .add_argument("beta", "NDArray-or-Symbol", "Shift, one per group.")
    .add_arguments(GroupNormParam::__FIELDS__())
    .set_attr_parser(ParamParser<GroupNormParam>)
    .set_attr<FInferShape>("FInferShape", GroupNormShape)
    .set_attr<FInferType>("FInferType", GroupNormType)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_GroupNorm", true, false});

OPS_REGISTER_OP(_backward_GroupNorm)
    .describe("Gradient of GroupNorm.")
    .set_num_inputs([](const NodeAttrs& attrs) { return NumOutputs<GroupNormParam>(attrs) + 3; })
    .set_num_outputs(3)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<GroupNormParam>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

OPS_REGISTER_OP(InstanceNorm)
    .describe(
        "Instance normalization: each channel of each sample becomes (x - mean) / "
        "sqrt(var + eps) * gamma[channel] + beta[channel].")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input data (N, C, spatial...).")
    .add_argument("gamma", "NDArray-or-Symbol", "Scale, one per channel.")
    .add_argument("beta", "NDArray-or-Symbol", "Shift, one per channel.")
    .add_arguments(InstanceNormParam::__FIELDS__())
    .set_attr_parser(ParamParser<InstanceNormParam>)
    .set_attr<FInferShape>("FInferShape", InstanceNormShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<3, 1>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_InstanceNorm", true, false});

OPS_REGISTER_OP(_backward_InstanceNorm)
    .describe("Gradient of InstanceNorm.")
    .set_num_inputs(4)
    .set_num_outputs(3)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<InstanceNormParam>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

}  // namespace group_norm
}  // namespace ops
