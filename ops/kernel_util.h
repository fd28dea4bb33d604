// ops/kernel_util.h: small pieces every operator implementation uses: honouring OpReqType,
// flat views of blobs, axes, strides, and the registration of gradients and backward ops.
#ifndef OPS_KERNEL_UTIL_H_
#define OPS_KERNEL_UTIL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dmlc/logging.h"
#include "mshadow/tensor.h"
#include "ops/infer.h"
#include "ops/op.h"
#include "ops/op_types.h"

namespace ops {

using mshadow::cpu;
using mshadow::Shape1;
using mshadow::Tensor;

// Writes the expression into `out` as `req` says: nothing, overwrite, or accumulate.
template <typename Device, int dim, typename DType, typename E, int etype>
void Assign(Tensor<Device, dim, DType> out, OpReqType req,
            const mshadow::expr::Exp<E, DType, etype>& exp) {
  switch (req) {
    case kNullOp:
      break;
    case kWriteTo:
    case kWriteInplace:
      out = exp;
      break;
    case kAddTo:
      out += exp;
      break;
  }
}

// One element, as `req` says.
template <typename DType>
inline void AssignValue(DType* out, OpReqType req, DType value) {
  if (req == kAddTo) {
    *out += value;
  } else if (req != kNullOp) {
    *out = value;
  }
}

// Every element of a contiguous blob, as a 1-D tensor.
template <typename DType>
Tensor<cpu, 1, DType> Flat(const TBlob& blob) {
  return blob.get_with_shape<cpu, 1, DType>(Shape1(blob.Size()));
}

// Every element of a contiguous blob, as a 1-D tensor on Device issued on `stream`.
template <typename Device, typename DType>
Tensor<Device, 1, DType> Flat(const TBlob& blob, mshadow::Stream<Device>* stream) {
  return blob.get_with_shape<Device, 1, DType>(Shape1(blob.Size()), stream);
}

// Prepares an output for accumulation: zero for kWriteTo, kept for kAddTo. Returns false
// for kNullOp (nothing to compute).
template <typename DType>
bool PrepareAccumulation(const TBlob& out, OpReqType req) {
  if (req == kNullOp) return false;
  if (req != kAddTo) Flat<DType>(out) = DType(0);
  return true;
}

// FInplaceOption of operators whose first output may overwrite their first input.
std::vector<std::pair<int, int>> InplaceFirstInput(const NodeAttrs& attrs);

// FResourceRequest of operators that need one temporary buffer.
std::vector<ResourceRequest> RequestTempSpace(const NodeAttrs& attrs);

// float32 or float64; anything else is a dmlc::Error naming the type.
void CheckRealType(int type_flag);

// ElemwiseType for operators computed in float32 and float64.
template <int kNumInputs, int kNumOutputs>
bool ElemwiseRealType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if (!ElemwiseType<kNumInputs, kNumOutputs>(attrs, in, out)) return false;
  CheckRealType(out->at(0));
  return true;
}

// `axis` in [-ndim, ndim) as an index in [0, ndim); anything else is a dmlc::Error. Takes
// 64-bit axes (TShape tuples hold them) so that no value is truncated before it is checked.
int NormalizeAxis(int64_t axis, int64_t ndim, const char* what = "axis");

// Row-major strides of `shape`, in elements.
std::vector<index_t> RowMajorStrides(const TShape& shape);

// Declares that `op`'s gradients come from `backward_op` (see FGradient for its inputs).
Op& SetGradient(Op& op, const std::string& backward_op, bool uses_inputs, bool uses_outputs);

// Registers a backward operator (marked with the attribute TIsBackward) with its arity; the
// caller adds its parser, inference and compute function.
Op& RegisterBackwardOp(const std::string& name, uint32_t num_inputs, uint32_t num_outputs);

}  // namespace ops

#endif  // OPS_KERNEL_UTIL_H_
