// ops/kernel_util.h: what operators' kernels use: honouring OpReqType (Assign), flat views of
// blobs, strides. It includes the registration helpers (registration_util.h) and the
// inference helpers (infer_util.h) too, since an operator's source uses all three.
#ifndef OPS_KERNEL_UTIL_H_
#define OPS_KERNEL_UTIL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dmlc/logging.h"
#include "mshadow/tensor.h"
#include "ops/infer.h"
#include "ops/infer_util.h"
#include "ops/op.h"
#include "ops/op_types.h"
#include "ops/registration_util.h"

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

// Row-major strides of `shape`, in elements.
std::vector<index_t> RowMajorStrides(const TShape& shape);

// The same contiguous elements as `blob` in another shape of the same size (no copy).
TBlob ReshapedBlob(const TBlob& blob, const TShape& shape);

}  // namespace ops

#endif  // OPS_KERNEL_UTIL_H_
