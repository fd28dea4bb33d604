// ops/shape_array-inl.h: shape_array and size_array, the input's shape (or its element count)
// as a 1-d int64 array, written once for every device. The values go to the kernel by value,
// a chunk at a time: no host-to-device copy, no extent limit. shape_array.cc registers them
// with FCompute<cpu>; shape_array.cu adds FCompute<gpu>.
#ifndef OPS_SHAPE_ARRAY_INL_H_
#define OPS_SHAPE_ARRAY_INL_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace shape_array {

// Up to kSize values, passed to a kernel by value.
struct ValueChunk {
  static constexpr index_t kSize = 16;
  int64_t value[kSize] = {};
};

// out[i] = chunk.value[i], or added onto it (kAddTo), as kReq says.
template <int kReq>
struct write_chunk {
  MSHADOW_XINLINE static void Map(index_t i, int64_t* out, ValueChunk chunk) {
    AssignReq<kReq>(out + i, chunk.value[i]);
  }
};

// out (values.size() int64s) = values, as req says.
template <typename xpu>
void WriteValues(const OpContext& ctx, const std::vector<int64_t>& values, OpReqType req,
                 const TBlob& out) {
  int64_t* to = out.dptr<int64_t>();
  const index_t n = static_cast<index_t>(values.size());
  for (index_t begin = 0; begin < n; begin += ValueChunk::kSize) {
    const index_t count = std::min(ValueChunk::kSize, n - begin);
    ValueChunk chunk;
    std::copy(values.begin() + begin, values.begin() + begin + count, chunk.value);
    OPS_REQ_SWITCH(req, kReq, {
      Kernel<write_chunk<kReq>, xpu>::Launch(ctx.get_stream<xpu>(), count, to + begin, chunk);
    });
  }
}

template <typename xpu>
void ShapeArrayCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& shape = in[0].shape_;
  WriteValues<xpu>(ctx, std::vector<int64_t>(shape.begin(), shape.end()), req[0], out[0]);
}

template <typename xpu>
void SizeArrayCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  WriteValues<xpu>(ctx, {static_cast<int64_t>(in[0].shape_.Size())}, req[0], out[0]);
}

// Adds FCompute<xpu> to both operators and their (zero) gradients.
template <typename xpu>
void SetShapeArrayCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("shape_array").set_attr<FCompute>(attr_name, FCompute(ShapeArrayCompute<xpu>));
  RegisterOp("size_array").set_attr<FCompute>(attr_name, FCompute(SizeArrayCompute<xpu>));
  for (const char* backward : {"_backward_shape_array", "_backward_size_array"}) {
    RegisterOp(backward).set_attr<FCompute>(attr_name, FCompute(ZeroGradientCompute<xpu>));
  }
}

}  // namespace shape_array
}  // namespace ops

#endif  // OPS_SHAPE_ARRAY_INL_H_
