#include "ops/invoke.h"

#include <cstring>
#include <utility>

#include "ops/infer.h"
#include "ops/random_source.h"

namespace ops {

void ThrowDuplicateKey(const Op& op, const std::string& key, const std::string& first,
                       const std::string& second) {
  throw dmlc::ParamError("Invalid parameter of operator " + op.name + ": '" + key +
                         "' is given twice ('" + first + "' and '" + second + "')");
}

namespace {

// What every blob must be, whatever the operator: on the device, of a known type, with a
// shape whose size fits in index_t, contiguous, and with data when it has elements.
void CheckBlob(const NodeAttrs& attrs, bool is_input, size_t index, const TBlob& blob,
               int dev_mask, const char* device_name) {
  const std::string& op = attrs.op->name;
  auto where = [&] { return op + ": " + ArgumentName(attrs, is_input, index); };
  if (blob.dev_mask_ != dev_mask) {
    throw dmlc::Error(where() + " is on " + mshadow::DevMaskName(blob.dev_mask_) +
                      ", the operator runs on " + device_name);
  }
  try {
    mshadow::TypeFlagSize(blob.type_flag_);
  } catch (const dmlc::Error& e) {
    throw dmlc::Error(where() + ": " + e.what());
  }
  const index_t size = CheckedSize(blob.shape_, where);
  // Rows of the lowest dimension must follow each other; a single row may have any stride.
  const index_t row = blob.shape_.ndim() > 0 ? blob.shape_[blob.shape_.ndim() - 1] : 1;
  if (row > 0 && size / row > 1 && blob.stride_ != row) {
    throw dmlc::Error(where() + " is not contiguous (rows of " +
                      std::to_string(blob.shape_[blob.shape_.ndim() - 1]) + " elements, " +
                      std::to_string(blob.stride_) +
                      " apart); operators take contiguous blobs");
  }
  if (size > 0 && blob.dptr_ == nullptr) {
    throw dmlc::Error(where() + " has shape " + ShapeText(blob.shape_) + " but no data (null pointer)");
  }
}

// Runs inference with every given shape (or type) as known, then requires that inference
// kept each of them: one it rejects is a conflict message from the driver, one it replaces
// is reported here.
template <typename T, typename Infer, typename Get, typename ToText>
void CheckAgainstInference(const NodeAttrs& attrs, const std::vector<TBlob>& inputs,
                           const std::vector<TBlob>& outputs, const char* what, Infer infer,
                           Get get, ToText to_text) {
  // The vectors of this thread's previous call, taken with their capacity (a call nested in
  // an inference function finds none and allocates): checking a call allocates nothing.
  thread_local std::vector<T> spare_in, spare_out;
  std::vector<T> in = std::move(spare_in), out = std::move(spare_out);
  in.resize(inputs.size());
  out.resize(outputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) in[i] = get(inputs[i]);
  for (size_t i = 0; i < outputs.size(); ++i) out[i] = get(outputs[i]);
  infer(attrs, &in, &out);
  auto require = [&](bool is_input, size_t i, const T& given, const T& inferred) {
    if (given == inferred) return;
    throw dmlc::Error(attrs.op->name + ": " + what + " of " + ArgumentName(attrs, is_input, i) +
                      " is " + to_text(given) + " but " + to_text(inferred) + " is required");
  };
  for (size_t i = 0; i < inputs.size(); ++i) require(true, i, get(inputs[i]), in[i]);
  for (size_t i = 0; i < outputs.size(); ++i) require(false, i, get(outputs[i]), out[i]);
  spare_in = std::move(in);
  spare_out = std::move(out);
}

}  // namespace

std::vector<Resource> RequestedResources(const NodeAttrs& attrs, TempSpace* space,
                                         RandomSource* random) {
  std::vector<Resource> resources;
  if (const FResourceRequest* requests = attrs.op->resource_request()) {
    for (const ResourceRequest& request : (*requests)(attrs)) {
      Resource resource;
      resource.type = request.type;
      resource.space = space;
      resource.random = random != nullptr ? random : DefaultRandomSource();
      resources.push_back(resource);
    }
  }
  return resources;
}

void CheckCounts(const NodeAttrs& attrs, const std::vector<TBlob>& inputs,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& outputs) {
  if (attrs.op == nullptr) {
    throw dmlc::Error("Invoke: the attributes have no operator (ops::ParseAttrs sets it)");
  }
  const Op& op = *attrs.op;
  CheckInputCount(attrs, inputs.size());
  if (outputs.size() != op.num_outputs(attrs)) {
    throw dmlc::Error(op.name + ": has " + std::to_string(op.num_outputs(attrs)) +
                      " outputs, given " + std::to_string(outputs.size()));
  }
  if (req.size() != outputs.size()) {
    throw dmlc::Error(op.name + ": one OpReqType per output is needed: given " +
                      std::to_string(req.size()) + " for " + std::to_string(outputs.size()) +
                      " outputs");
  }
}

void CheckInvocation(const NodeAttrs& attrs, const OpContext& ctx,
                     const std::vector<TBlob>& inputs, const std::vector<OpReqType>& req,
                     const std::vector<TBlob>& outputs, int dev_mask, const char* device_name) {
  CheckCounts(attrs, inputs, req, outputs);
  const Op& op = *attrs.op;
  for (size_t i = 0; i < req.size(); ++i) {
    // Copied out as its underlying integer: loading an enum that holds a value outside its
    // enumerators (a host's garbage) is undefined behaviour.
    static_assert(sizeof(OpReqType) == sizeof(int), "OpReqType values are read as ints");
    int value;
    std::memcpy(&value, &req[i], sizeof(value));
    if (value < kNullOp || value > kAddTo) {
      throw dmlc::Error(op.name + ": invalid OpReqType " + std::to_string(value) + " for output " +
                        std::to_string(i) + "; valid: 0 (null), 1 (write), 2 (in place), 3 (add)");
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) CheckBlob(attrs, true, i, inputs[i], dev_mask, device_name);
  for (size_t i = 0; i < outputs.size(); ++i) {
    CheckBlob(attrs, false, i, outputs[i], dev_mask, device_name);
  }
  CheckAgainstInference<int>(attrs, inputs, outputs, "type", InferTypes,
                             [](const TBlob& b) { return b.type_flag_; },
                             TypeText);
  CheckAgainstInference<TShape>(
      attrs, inputs, outputs, "shape", InferShapes,
      [](const TBlob& b) -> const TShape& { return b.shape_; }, ShapeText);
  if (const auto* request = op.resource_request()) {
    const size_t needed = (*request)(attrs).size();
    if (ctx.requested.size() != needed) {
      throw dmlc::Error(op.name + " requests " + std::to_string(needed) +
                        " resources (FResourceRequest) but the host provided " +
                        std::to_string(ctx.requested.size()) + " in OpContext::requested");
    }
  }
}

}  // namespace ops
