// ops/infer.h: shape and type inference: the helpers FInferShape/FInferType functions use,
// and the drivers hosts call, which turn conflicts into messages naming the operator, the
// input and both shapes:
//
//   FullyConnected: shape of input 'weight' is (64,100) but (64,128) is required
//
// A shape of rank 0 and a type of -1 mean "not known yet".
#ifndef OPS_INFER_H_
#define OPS_INFER_H_

#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "dmlc/logging.h"
#include "ops/op.h"
#include "ops/op_types.h"

namespace ops {

// Thrown by the Assign* helpers; the drivers below add the operator and input names.
struct InferConflict : public dmlc::Error {
  InferConflict(bool is_input, int index, std::string given, std::string required)
      : dmlc::Error("inference conflict"),
        is_input(is_input),
        index(index),
        given(std::move(given)),
        required(std::move(required)) {}
  bool is_input;
  int index;
  std::string given;
  std::string required;
};

// Sets shape `index` to `shape` when unknown; otherwise it must equal `shape`.
void AssignInputShape(std::vector<TShape>* shapes, int index, const TShape& shape);
void AssignOutputShape(std::vector<TShape>* shapes, int index, const TShape& shape);
// The same for types.
void AssignInputType(std::vector<int>* types, int index, int type_flag);
void AssignOutputType(std::vector<int>* types, int index, int type_flag);

inline bool ShapeIsKnown(const TShape& shape) { return shape.ndim() != 0; }

// "input 'weight'" or "output 0", as messages name an argument.
std::string ArgumentName(const NodeAttrs& attrs, bool is_input, size_t index);

// That the operator takes `given` inputs; otherwise a dmlc::Error naming them:
// "elemwise_add takes 2 inputs (lhs, rhs), given 1".
void CheckInputCount(const NodeAttrs& attrs, size_t given);

// The number of elements of `shape`. A negative extent, or a count beyond index_t, is a
// dmlc::Error that begins with where(): "sum: input 'data' has shape (2,-3) with negative
// axis 1; extents must be >= 0". where() runs only for the message (a FunctionRef: checking
// allocates nothing).
index_t CheckedSize(const TShape& shape, absl::FunctionRef<std::string()> where);

// "(2,3)" and "float32" ("unknown" for -1), as messages print them.
std::string ShapeText(const TShape& shape);
std::string TypeText(int type_flag);

// Every input and output has one shape; the first one known (inputs first) gives it to
// the others, and any other that differs is the conflict reported.
template <int kNumInputs, int kNumOutputs>
bool ElemwiseShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape known;
  for (const TShape& s : *in) {
    if (!ShapeIsKnown(known) && ShapeIsKnown(s)) known = s;
  }
  for (const TShape& s : *out) {
    if (!ShapeIsKnown(known) && ShapeIsKnown(s)) known = s;
  }
  if (!ShapeIsKnown(known)) return false;
  for (int i = 0; i < kNumInputs; ++i) AssignInputShape(in, i, known);
  for (int i = 0; i < kNumOutputs; ++i) AssignOutputShape(out, i, known);
  return true;
}

// Every input and output has one type.
template <int kNumInputs, int kNumOutputs>
bool ElemwiseType(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
  int known = -1;
  for (int t : *in) {
    if (known == -1 && t != -1) known = t;
  }
  for (int t : *out) {
    if (known == -1 && t != -1) known = t;
  }
  if (known == -1) return false;
  for (int i = 0; i < kNumInputs; ++i) AssignInputType(in, i, known);
  for (int i = 0; i < kNumOutputs; ++i) AssignOutputType(out, i, known);
  return true;
}

// Runs the operator's FInferShape: `in` has one shape per input (rank 0 where unknown);
// `out` is resized to the outputs. Afterwards every shape is known, or a dmlc::Error says
// which is not, or which conflict was found. A negative extent, given or inferred, is a
// dmlc::Error too.
void InferShapes(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out);
// The same with FInferType; unknown types are -1.
void InferTypes(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out);

}  // namespace ops

#endif  // OPS_INFER_H_
