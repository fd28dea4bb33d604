// ops/registration_util.h: helpers for registering operators: in-place and resource
// declarations, and a type tag for operator lists.
#ifndef OPS_REGISTRATION_UTIL_H_
#define OPS_REGISTRATION_UTIL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ops/op.h"
#include "ops/op_types.h"

namespace ops {

// A type passed as a value, for lists of operators that a generic lambda visits:
// fn(TypeTag<arith::add>(), "elemwise_add", ...), then `typename decltype(tag)::type`.
template <typename T>
struct TypeTag {
  using type = T;
};

// FInplaceOption of operators whose first output may overwrite their first input.
std::vector<std::pair<int, int>> InplaceFirstInput(const NodeAttrs& attrs);

// FResourceRequest of operators that need one temporary buffer.
std::vector<ResourceRequest> RequestTempSpace(const NodeAttrs& attrs);

// Gives `forward` the zero gradient MXNet 1.9.1 gives operators whose outputs are positions
// or codes (argmax, argsort, one_hot: its MakeZeroGradNodes): the backward operator
// `backward`, which parses the forward's parameters with `parser`, takes the output
// gradients and the inputs (for the gradients' shapes and types) and writes zeros. Its
// family registers ZeroGradientCompute<xpu> (kernel_util.h) for each device.
void SetZeroGradient(Op& forward, const std::string& backward,
                     std::function<void(NodeAttrs*)> parser);

}  // namespace ops

#endif  // OPS_REGISTRATION_UTIL_H_
