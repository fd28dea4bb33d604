#include "ops/invoke.h"

namespace ops {

void CheckInvocation(const NodeAttrs& attrs, const OpContext& ctx,
                     const std::vector<TBlob>& inputs, const std::vector<OpReqType>& req,
                     const std::vector<TBlob>& outputs, int dev_mask, const char* device_name) {
  const Op& op = *attrs.op;
  CHECK_EQ(inputs.size(), op.num_inputs(attrs)) << op.name << ": wrong number of inputs";
  CHECK_EQ(outputs.size(), op.num_outputs(attrs)) << op.name << ": wrong number of outputs";
  CHECK_EQ(req.size(), outputs.size()) << op.name << ": one OpReqType per output is needed";
  for (size_t i = 0; i < inputs.size(); ++i) {
    CHECK(inputs[i].dev_mask_ == dev_mask)
        << op.name << ": input " << i << " is on " << mshadow::DevMaskName(inputs[i].dev_mask_)
        << ", the operator runs on " << device_name;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    CHECK(outputs[i].dev_mask_ == dev_mask)
        << op.name << ": output " << i << " is on "
        << mshadow::DevMaskName(outputs[i].dev_mask_) << ", the operator runs on "
        << device_name;
    CHECK(req[i] >= kNullOp && req[i] <= kAddTo)
        << op.name << ": invalid OpReqType " << static_cast<int>(req[i]) << " for output " << i;
  }
  if (const auto* request = op.resource_request()) {
    CHECK_EQ(ctx.requested.size(), (*request)(attrs).size())
        << op.name << " requests resources (FResourceRequest); the host must provide them in "
                      "OpContext::requested";
  }
}

}  // namespace ops
