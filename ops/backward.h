// ops/backward.h: backward operators seen through their forward operator. A `_backward_*`
// operator takes the forward call's keyword arguments and reads what the forward operator's
// FGradient says (output gradients, then forward inputs, then forward outputs); its outputs
// are the gradients of the forward inputs. From that contract every backward operator gets
// shape and type inference from its forward operator's, so a host can check a backward call
// as it checks a forward one:
//
//   const ops::NodeAttrs backward = ops::BackwardAttrs(forward_attrs);
//   ops::Invoke<mshadow::cpu>(backward, ctx,
//                             ops::BackwardInputs(forward_attrs, out_grads, inputs, outputs),
//                             req, in_grads);   // shapes and types checked (ops/invoke.h)
#ifndef OPS_BACKWARD_H_
#define OPS_BACKWARD_H_

#include <string>
#include <vector>

#include "ops/op.h"
#include "ops/op_types.h"

namespace ops {

// The forward operator whose FGradient names `backward`, or nullptr when none does. When
// several do, a dmlc::Error: the backward operator then needs inference of its own.
const Op* ForwardOpOf(const Op& backward);

// Records that `forward` declares `gradient` (Op::set_attr does this for "FGradient").
void RecordGradient(const Op& forward, const FGradient& gradient);

// The forward operator's FGradient; a dmlc::Error naming the operator when it has none.
const FGradient& GradientOf(const Op& forward);

// The attributes of `forward`'s backward operator: the same keyword arguments, parsed by it.
NodeAttrs BackwardAttrs(const NodeAttrs& forward);

// The backward call's inputs in FGradient's order: output gradients, then the forward inputs
// and outputs when the gradient reads them.
std::vector<TBlob> BackwardInputs(const NodeAttrs& forward, const std::vector<TBlob>& out_grads,
                                  const std::vector<TBlob>& inputs,
                                  const std::vector<TBlob>& outputs);

// FInferShape and FInferType of a backward operator that has none of its own: its outputs
// have the forward inputs' shapes and types, and its inputs those FGradient lays out.
bool BackwardInferShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                        std::vector<TShape>* out);
bool BackwardInferType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out);

// The backward operator's input names for messages: "out_grad0", ..., then the forward
// input names, then "out0", ....
std::vector<std::string> BackwardInputNames(const NodeAttrs& attrs);

}  // namespace ops

#endif  // OPS_BACKWARD_H_
