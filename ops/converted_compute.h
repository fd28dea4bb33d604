// ops/converted_compute.h: runs a kernel written for one element type on tensors of other
// floating types, converting through temporary space. What lets softmax take float16 or
// bfloat16 data or give an output of another type (its dtype) with kernels for float32 and
// float64 alone.
//
//   // compute: an FCompute for blobs that all have type `type` (its first two inputs and
//   // first output are converted; a length input or its gradient passes as it is).
//   ComputeConverted<xpu>(type, 2, 1, compute, attrs, ctx, in, req, out);
//
// The operator must request temporary space (ctx.requested[0]), and `compute` must not use it.
#ifndef OPS_CONVERTED_COMPUTE_H_
#define OPS_CONVERTED_COMPUTE_H_

#include <cstddef>
#include <vector>

#include "ops/cast-inl.h"
#include "ops/kernel_launch.h"

namespace ops {

// dst = src converted (floating element types from the blobs), with request `req`.
template <typename xpu>
void ConvertBlob(mshadow::Stream<xpu>* s, const TBlob& src, const TBlob& dst, OpReqType req) {
  MSHADOW_REAL_TYPE_SWITCH_EX(src.type_flag_, SrcType, {
    MSHADOW_REAL_TYPE_SWITCH_EX(dst.type_flag_, DstType, {
      OPS_REQ_SWITCH(req, Req, {
        Kernel<op_with_req<cast::convert_to<DstType>, Req>, xpu>::Launch(
            s, dst.Size(), dst.dptr<DstType>(), src.dptr<SrcType>());
      });
    });
  });
}

// Runs `compute` with the first `num_inputs` inputs and the first `num_outputs` outputs as
// blobs of `type`: inputs of another type are converted into temporary space; outputs of
// another type are computed there (kWriteTo) and converted into place with their request.
// When every one of them already has `type`, `compute` runs on the blobs themselves.
template <typename xpu>
void ComputeConverted(int type, size_t num_inputs, size_t num_outputs, const FCompute& compute,
                      const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  std::vector<TBlob> inputs = in, outputs = out;
  std::vector<OpReqType> requests = req;
  // Each converted blob's place in the temporary space, 64-byte aligned.
  constexpr size_t kAlign = 64;
  const size_t element = static_cast<size_t>(mshadow::TypeFlagSize(type));
  size_t bytes = 0;
  bool converting = false;
  std::vector<size_t> in_at(num_inputs, SIZE_MAX), out_at(num_outputs, SIZE_MAX);
  auto place = [&](const TBlob& blob, size_t* at) {
    if (blob.type_flag_ == type) return;
    converting = true;
    *at = bytes;
    bytes += (static_cast<size_t>(blob.Size()) * element + kAlign - 1) / kAlign * kAlign;
  };
  for (size_t i = 0; i < num_inputs; ++i) place(in[i], &in_at[i]);
  for (size_t i = 0; i < num_outputs; ++i) {
    if (req[i] != kNullOp) place(out[i], &out_at[i]);
  }
  if (!converting) {
    compute(attrs, ctx, in, req, out);
    return;
  }
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  char* space = reinterpret_cast<char*>(
      ctx.requested[0]
          .get_space_typed<xpu, 1, double>(mshadow::Shape1(bytes / sizeof(double) + 1), s)
          .dptr_);
  auto temporary = [&](const TBlob& blob, size_t at) {
    return TBlob(space + at, blob.shape_, xpu::kDevMask, type);
  };
  for (size_t i = 0; i < num_inputs; ++i) {
    if (in_at[i] == SIZE_MAX) continue;
    inputs[i] = temporary(in[i], in_at[i]);
    ConvertBlob(s, in[i], inputs[i], kWriteTo);
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    if (out_at[i] == SIZE_MAX) continue;
    outputs[i] = temporary(out[i], out_at[i]);
    requests[i] = kWriteTo;
  }
  compute(attrs, ctx, inputs, requests, outputs);
  for (size_t i = 0; i < num_outputs; ++i) {
    if (out_at[i] != SIZE_MAX) ConvertBlob(s, outputs[i], out[i], req[i]);
  }
}

}  // namespace ops

#endif  // OPS_CONVERTED_COMPUTE_H_
