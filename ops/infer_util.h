// ops/infer_util.h: checks that operators' shape and type inference share: real (or float,
// 16-bit included) types only, axes in range.
#ifndef OPS_INFER_UTIL_H_
#define OPS_INFER_UTIL_H_

#include <cstdint>
#include <vector>

#include "ops/infer.h"
#include "ops/op_types.h"

namespace ops {

// float32 or float64; anything else is a dmlc::Error naming the type.
void CheckRealType(int type_flag);

// float32, float64, float16 or bfloat16 (operators whose kernels also take the 16-bit
// storage types, computing in float); anything else is a dmlc::Error naming the type.
void CheckFloatType(int type_flag);

// One real type for every input and output, however many (Concat, stack, split, add_n):
// the first known one; a different known type is a dmlc::Error.
bool SameRealType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out);

// ElemwiseType for operators computed in float32 and float64.
template <int kNumInputs, int kNumOutputs>
bool ElemwiseRealType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if (!ElemwiseType<kNumInputs, kNumOutputs>(attrs, in, out)) return false;
  CheckRealType(out->at(0));
  return true;
}

// ElemwiseType for operators computed in float32, float64, float16 and bfloat16.
template <int kNumInputs, int kNumOutputs>
bool ElemwiseFloatType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if (!ElemwiseType<kNumInputs, kNumOutputs>(attrs, in, out)) return false;
  CheckFloatType(out->at(0));
  return true;
}

// `axis` in [-ndim, ndim) as an index in [0, ndim); anything else is a dmlc::Error. Takes
// 64-bit axes (TShape tuples hold them) so that no value is truncated before it is checked.
int NormalizeAxis(int64_t axis, int64_t ndim, const char* what = "axis");

}  // namespace ops

#endif  // OPS_INFER_UTIL_H_
