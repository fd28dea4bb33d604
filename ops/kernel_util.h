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
#include "mshadow/extension/reduceto1d.h"
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

// A dmlc::Error for kAddTo from an operator whose output cannot be added to: `what` it
// writes ("a flag": a sum of flags means nothing, where MXNet 1.9.1 writes over it silently).
inline void RefuseAddTo(const NodeAttrs& attrs, OpReqType req, const std::string& what) {
  if (req == kAddTo) {
    throw dmlc::Error(attrs.op->name + " writes " + what + ", it cannot add to it (kAddTo)");
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

// Writes an input's gradient that is zero whatever the output gradient (the comparisons',
// the indices'): zeros for kWriteTo and kWriteInplace, nothing for kAddTo (adding zero) or
// kNullOp.
template <typename xpu, typename DType>
void WriteZeroGradient(const TBlob& grad, OpReqType req, mshadow::Stream<xpu>* s) {
  if (req == kWriteTo || req == kWriteInplace) Flat<xpu, DType>(grad, s) = DType(0);
}

// FCompute of a zero gradient (SetZeroGradient, registration_util.h): every output, an
// input's gradient of any type (bfloat16 and bool included), written as WriteZeroGradient
// writes it.
template <typename xpu>
void ZeroGradientCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>&,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL(out[i].type_flag_, DType, {
      WriteZeroGradient<xpu, DType>(out[i], req[i], ctx.get_stream<xpu>());
    });
  }
}

// `bytes` of the operator's temporary space (its first requested resource), untyped: the
// workspace a library call (cuDNN) asks for; null for none.
template <typename Device>
void* TempBytes(const OpContext& ctx, size_t bytes, mshadow::Stream<Device>* stream) {
  if (bytes == 0) return nullptr;
  const index_t words = static_cast<index_t>((bytes + sizeof(float) - 1) / sizeof(float));
  return ctx.requested[0].get_space_typed<Device, 1, float>(Shape1(words), stream).dptr_;
}

// `size` elements of the operator's temporary space (its first requested resource) on the
// CPU: a kernel's scratch.
template <typename DType>
DType* CpuWorkspace(const OpContext& ctx, index_t size, mshadow::Stream<cpu>* stream) {
  return ctx.requested[0].get_space_typed<cpu, 1, DType>(Shape1(size), stream).dptr_;
}

// out[c] = the sum of `in` (batch, channels, spatial...) over all but the channel axis, written
// as `req` says: a convolution's or deconvolution's bias gradient.
template <typename Device>
void BiasGradient(mshadow::Stream<Device>* stream, const TBlob& in, OpReqType req,
                  const TBlob& out) {
  const TShape& s = in.shape_;
  MSHADOW_SGL_DBL_TYPE_SWITCH(in.type_flag_, DType, {
    auto in3 = in.get_with_shape<Device, 3, DType>(
        mshadow::Shape3(s[0], s[1], s.ProdShape(2, s.ndim())), stream);
    Assign(out.get<Device, 1, DType>(stream), req, mshadow::expr::sumall_except_dim<1>(in3));
  });
}

// Row-major strides of `shape`, in elements.
std::vector<index_t> RowMajorStrides(const TShape& shape);

// The same contiguous elements as `blob` in another shape of the same size (no copy).
TBlob ReshapedBlob(const TBlob& blob, const TShape& shape);

}  // namespace ops

#endif  // OPS_KERNEL_UTIL_H_
