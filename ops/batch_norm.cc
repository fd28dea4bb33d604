// BatchNorm(eps, momentum, fix_gamma, use_global_stats, output_mean_var, axis): MXNet's batch
// normalization with moving statistics as auxiliary inputs; and its backward operator, which
// updates them; _contrib_SyncBatchNorm, the same on one device; _contrib_BatchNormWithReLU,
// relu of it. Kernels, for every device: batch_norm-inl.h; FCompute<gpu>: batch_norm.cu.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ops/batch_norm-inl.h"

namespace ops {
namespace batch_norm {

DMLC_REGISTER_PARAMETER(BatchNormParam);
DMLC_REGISTER_PARAMETER(SyncBatchNormParam);

namespace {

bool BatchNormShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const TShape channel{ChannelView(data, GetParam<BatchNormParam>(attrs).axis)[1]};
  for (int i = 1; i < 5; ++i) AssignInputShape(in, i, channel);
  AssignOutputShape(out, 0, data);
  for (size_t i = 1; i < out->size(); ++i) AssignOutputShape(out, static_cast<int>(i), channel);
  return true;
}

bool BatchNormType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  return NumOutputs(attrs) == 1 ? ElemwiseRealType<5, 1>(attrs, in, out)
                                : ElemwiseRealType<5, 3>(attrs, in, out);
}

// What BatchNorm, _contrib_SyncBatchNorm and _contrib_BatchNormWithReLU share: inputs,
// outputs, inference, temp space, the moving statistics written, and the backward operator
// `backward`, registered here too, which reads the forward outputs after its inputs where
// `reads_outputs`.
void DefineBatchNorm(const std::string& name, const std::string& backward,
                     const std::string& description, std::vector<dmlc::ParamFieldInfo> fields,
                     const std::function<void(NodeAttrs*)>& parser, bool reads_outputs) {
  RegisterOp(name)
      .describe(description)
      .set_num_inputs(5)
      .set_num_outputs(NumOutputs)
      .add_argument("data", "NDArray-or-Symbol", "Input data.")
      .add_argument("gamma", "NDArray-or-Symbol", "Scale, one per channel.")
      .add_argument("beta", "NDArray-or-Symbol", "Shift, one per channel.")
      .add_argument("moving_mean", "NDArray-or-Symbol", "Moving mean (auxiliary state).")
      .add_argument("moving_var", "NDArray-or-Symbol", "Moving variance (auxiliary state).")
      .add_arguments(std::move(fields))
      .set_attr_parser(parser)
      .set_attr<FInferShape>("FInferShape", BatchNormShape)
      .set_attr<FInferType>("FInferType", BatchNormType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
      // As MXNet's: the moving statistics are written (by the backward operator).
      .set_attr<std::vector<int>>("FMutateInputs", std::vector<int>{3, 4})
      .set_attr<FGradient>("FGradient", FGradient{backward, true, reads_outputs});
  RegisterOp(backward)
      .describe("Gradient of " + name + "; in training also updates moving_mean and moving_var.")
      .set_num_inputs([reads_outputs](const NodeAttrs& attrs) {
        return NumOutputs(attrs) * (reads_outputs ? 2 : 1) + 5;
      })
      .set_num_outputs(5)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(parser)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);
}

const bool kDefined = [] {
  DefineBatchNorm("BatchNorm", "_backward_BatchNorm",
                  "Batch normalization: per channel (axis), (x - mean) / sqrt(var + eps) * gamma "
                  "+ beta, with the batch's statistics in training and the moving ones "
                  "otherwise. moving_mean and moving_var are updated by the backward operator, "
                  "as in MXNet.",
                  BatchNormParam::__FIELDS__(), ParamParser<BatchNormParam>, false);
  DefineBatchNorm("_contrib_SyncBatchNorm", "_backward__contrib_SyncBatchNorm",
                  "BatchNorm over axis 1 with the batch's statistics gathered over ndev devices "
                  "in MXNet; here on one device (ndev=1 to train; inference with any ndev).",
                  SyncBatchNormParam::__FIELDS__(), SyncBatchNormParser, false);
  DefineBatchNorm("_contrib_BatchNormWithReLU", "_backward_contrib_BatchNormWithReLU",
                  "relu(BatchNorm(data)), BatchNorm's parameters and outputs, the first through "
                  "relu (MXNet fuses the two in oneDNN).",
                  BatchNormParam::__FIELDS__(), ParamParser<BatchNormParam>, true);
  SetBatchNormCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace batch_norm
}  // namespace ops
