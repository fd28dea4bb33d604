// ops/ravel-inl.h: _ravel_multi_index (ravel_multi_index) and _unravel_index (unravel_index),
// NumPy's conversions between multi-indices and flat indices in a row-major `shape`, as MXNet
// 1.9.1 has them, written once for every device. ravel takes (ndim, N) indices, one column a
// multi-index, and gives N flat indices; unravel takes flat indices of any shape and gives
// (ndim, *their shape). Values are truncated to integers. Like MXNet's, neither checks ranges:
// an index outside `shape` gives what the arithmetic gives (unravel's first axis takes what is
// left over), and a value that is not a number counts as 0. Both have zero gradients.
// ravel.cc registers them with FCompute<cpu>; ravel.cu adds FCompute<gpu>.
#ifndef OPS_RAVEL_INL_H_
#define OPS_RAVEL_INL_H_

#include <cstdint>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace ravel {

struct RavelParam : public dmlc::Parameter<RavelParam> {
  TShape shape;
  DMLC_DECLARE_PARAMETER(RavelParam) {
    DMLC_DECLARE_FIELD(shape).describe(
        "The row-major shape the indices are in: 1 to kMaxAxes positive extents.");
  }
};

// The shape, passed to kernels by value.
struct RavelShape {
  static constexpr int kMaxAxes = 10;
  int ndim = 0;
  int64_t extent[kMaxAxes] = {};
};

// A value as an integer index: truncated, NaN as 0, magnitudes past 2^62 at 2^62.
template <typename DType>
MSHADOW_XINLINE int64_t IndexValue(DType v) {
  const double d = static_cast<double>(v), big = 4611686018427387904.0;
  if (!(d > -big && d < big)) return d != d ? 0 : (d > 0 ? int64_t{1} << 62 : -(int64_t{1} << 62));
  return static_cast<int64_t>(d);
}

// Flat index i of the N columns: sum over axes k of index k times the row-major stride (in
// wrapping unsigned arithmetic: an index far outside the shape cannot overflow).
template <int kReq>
struct ravel_index {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* indices, index_t n,
                                  RavelShape shape) {
    uint64_t flat = 0;
    for (int k = 0; k < shape.ndim; ++k) {
      flat = flat * static_cast<uint64_t>(shape.extent[k]) +
             static_cast<uint64_t>(IndexValue(indices[k * n + i]));
    }
    AssignReq<kReq>(out + i, static_cast<DType>(static_cast<int64_t>(flat)));
  }
};

// Flat index i's multi-index, written to out[k * n + i] for each axis k: the last axes by
// remainder, the first the quotient left (C's truncating division, as MXNet).
template <int kReq>
struct unravel_index {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* flat, index_t n,
                                  RavelShape shape) {
    int64_t rest = IndexValue(flat[i]);
    for (int k = shape.ndim - 1; k > 0; --k) {
      AssignReq<kReq>(out + k * n + i, static_cast<DType>(rest % shape.extent[k]));
      rest /= shape.extent[k];
    }
    AssignReq<kReq>(out + i, static_cast<DType>(rest));
  }
};

inline RavelShape RavelShapeOf(const TShape& shape) {
  RavelShape s;
  s.ndim = static_cast<int>(shape.ndim());
  for (int k = 0; k < s.ndim; ++k) s.extent[k] = shape[k];
  return s;
}

template <typename xpu, bool kUnravel>
void RavelCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const RavelShape shape = RavelShapeOf(GetParam<RavelParam>(attrs).shape);
  const index_t n = kUnravel ? in[0].Size() : out[0].Size();
  MSHADOW_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], kReq, {
      if constexpr (kUnravel) {
        Kernel<unravel_index<kReq>, xpu>::Launch(ctx.get_stream<xpu>(), n, out[0].dptr<DType>(),
                                                 in[0].dptr<DType>(), n, shape);
      } else {
        Kernel<ravel_index<kReq>, xpu>::Launch(ctx.get_stream<xpu>(), n, out[0].dptr<DType>(),
                                               in[0].dptr<DType>(), n, shape);
      }
    });
  });
}

// Adds FCompute<xpu> to both operators and their zero gradients.
template <typename xpu>
void SetRavelCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_ravel_multi_index")
      .set_attr<FCompute>(attr_name, FCompute(RavelCompute<xpu, false>));
  RegisterOp("_unravel_index").set_attr<FCompute>(attr_name, FCompute(RavelCompute<xpu, true>));
  for (const char* backward : {"_backward_ravel_multi_index", "_backward_unravel_index"}) {
    RegisterOp(backward).set_attr<FCompute>(attr_name, FCompute(ZeroGradientCompute<xpu>));
  }
}

}  // namespace ravel
}  // namespace ops

#endif  // OPS_RAVEL_INL_H_
