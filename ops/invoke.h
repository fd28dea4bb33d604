// ops/invoke.h: how a host calls an operator: parse its keyword arguments once, infer shapes
// (ops/infer.h), then invoke its compute function as often as needed.
//
//   const ops::Op* op = ops::Op::Get("FullyConnected");
//   ops::NodeAttrs attrs = ops::ParseAttrs(op, {{"num_hidden", "128"}});
//   std::vector<TShape> in_shapes = {data_shape, TShape(), TShape()}, out_shapes;
//   ops::InferShapes(attrs, &in_shapes, &out_shapes);       // fills weight and bias shapes
//   ... allocate ...
//   ops::Invoke<mshadow::cpu>(attrs, ctx, inputs, {ops::kWriteTo}, outputs);
//
// Invoke checks the call against the operator before anything reads a blob: the number of
// inputs, outputs and requests, each request's value, each blob's device, type, shape (against
// shape and type inference from the inputs), contiguity and data pointer, and the resources.
// A mismatch is a dmlc::Error naming the operator, the argument and both shapes:
//
//   FullyConnected: shape of input 'weight' is (64,100) but (64,128) is required (...)
//
// InvokeUnchecked is the fast path for a host that has already inferred these exact shapes
// and types (a graph executor calling the same node repeatedly): it checks only the counts.
// The C ABI, Python and opctl use Invoke.
#ifndef OPS_INVOKE_H_
#define OPS_INVOKE_H_

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "ops/op.h"
#include "ops/op_types.h"

namespace ops {

[[noreturn]] void ThrowDuplicateKey(const Op& op, const std::string& key, const std::string& first,
                                    const std::string& second);

// The attributes of `op` from keyword arguments (any container of string pairs); a bad
// parameter, or a key given twice, is a dmlc::ParamError naming the operator.
template <typename Container>
NodeAttrs ParseAttrs(const Op* op, const Container& kwargs) {
  NodeAttrs attrs;
  attrs.op = op;
  for (const auto& [key, value] : kwargs) {
    const auto [at, inserted] = attrs.dict.emplace(key, value);
    if (!inserted) ThrowDuplicateKey(*op, key, at->second, value);
  }
  op->ParseAttrs(&attrs);
  return attrs;
}
inline NodeAttrs ParseAttrs(const Op* op,
                            std::initializer_list<std::pair<std::string, std::string>> kwargs) {
  return ParseAttrs<decltype(kwargs)>(op, kwargs);
}

// The resources `attrs`' operator requests (FResourceRequest): what an OpContext's
// `requested` holds. Temporary space comes from `space`, random numbers from `random` (the
// process-wide DefaultRandomSource() when null; ops/random_source.h).
std::vector<Resource> RequestedResources(const NodeAttrs& attrs, TempSpace* space,
                                         RandomSource* random = nullptr);

// The name of the compute attribute for a device: "FCompute<cpu>" or "FCompute<gpu>".
template <typename Device>
const char* ComputeAttrName() {
  return Device::kDevCPU ? "FCompute<cpu>" : "FCompute<gpu>";
}

// Every check Invoke makes (see above); a dmlc::Error for the first that fails.
void CheckInvocation(const NodeAttrs& attrs, const OpContext& ctx,
                     const std::vector<TBlob>& inputs, const std::vector<OpReqType>& req,
                     const std::vector<TBlob>& outputs, int dev_mask, const char* device_name);

// Only the counts, which the call itself would index past.
void CheckCounts(const NodeAttrs& attrs, const std::vector<TBlob>& inputs,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& outputs);

namespace detail {

// Runs the operator's FCompute<Device>; errors it raises name the operator.
template <typename Device>
void RunCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& inputs,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& outputs) {
  const FCompute* compute = attrs.op->template compute<Device>();
  if (compute == nullptr) {
    throw dmlc::Error(attrs.op->name + " has no " + ComputeAttrName<Device>() + " implementation");
  }
  try {
    (*compute)(attrs, ctx, inputs, req, outputs);
  } catch (const dmlc::Error& e) {
    throw dmlc::Error(attrs.op->name + ": " + e.what());  // which operator failed
  }
}

}  // namespace detail

// Checks only the counts (CheckCounts), then runs the operator.
template <typename Device>
void InvokeUnchecked(const NodeAttrs& attrs, const OpContext& ctx,
                     const std::vector<TBlob>& inputs, const std::vector<OpReqType>& req,
                     const std::vector<TBlob>& outputs) {
  CheckCounts(attrs, inputs, req, outputs);
  detail::RunCompute<Device>(attrs, ctx, inputs, req, outputs);
}

// Checks the whole call (CheckInvocation), then runs it.
template <typename Device>
void Invoke(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& inputs,
            const std::vector<OpReqType>& req, const std::vector<TBlob>& outputs) {
  CheckInvocation(attrs, ctx, inputs, req, outputs, Device::kDevMask,
                  Device::kDevCPU ? "cpu" : "gpu");
  detail::RunCompute<Device>(attrs, ctx, inputs, req, outputs);
}

}  // namespace ops

#endif  // OPS_INVOKE_H_
