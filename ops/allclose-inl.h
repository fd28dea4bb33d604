// ops/allclose-inl.h: _contrib_allclose(a, b), NumPy's allclose with MXNet 1.9.1's name and
// parameters: a uint8 flag of shape (1,), 1 if every pair of elements is close,
// |a - b| <= atol + rtol * |b|, else 0. NaNs are close to NaNs alone, and only with
// equal_nan; an infinity is close to an infinity of its sign alone (MXNet 1.9.1 calls inf
// close to -inf and to any finite value, NumPy does not). The 0-d output MXNet gives is a
// 1-element array here: a shape of rank 0 means "unknown" to shape inference, as in MXNet's
// legacy shapes. Written for every device: the CPU counts the pairs that are not close by
// blocks on the library's threads (allclose.cc), the GPU clears a flag set first.
// allclose.cc registers it with FCompute<cpu>; allclose.cu adds FCompute<gpu>.
#ifndef OPS_ALLCLOSE_INL_H_
#define OPS_ALLCLOSE_INL_H_

#include <cstdint>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace allclose {

struct AllCloseParam : public dmlc::Parameter<AllCloseParam> {
  float rtol;
  float atol;
  bool equal_nan;
  DMLC_DECLARE_PARAMETER(AllCloseParam) {
    DMLC_DECLARE_FIELD(rtol).set_default(1e-5f).describe("The relative tolerance (>= 0).");
    DMLC_DECLARE_FIELD(atol).set_default(1e-8f).describe("The absolute tolerance (>= 0).");
    DMLC_DECLARE_FIELD(equal_nan).set_default(true).describe("Whether a NaN is close to a NaN.");
  }
};

// What the comparison computes in: float for float32 and the 16-bit floats (as MXNet's
// float32 kernel), double for float64 and the integers (no overflow of a - b).
template <typename DType>
using CloseType =
    std::conditional_t<std::is_same_v<DType, float> || std::is_same_v<DType, mshadow::half::half_t>,
                       float, double>;

// Without a branch, so that the CPU's loop runs in SIMD lanes: equal values (infinities of
// one sign too), or a finite difference within the tolerance (an infinite one, with one side
// infinite, never is, whatever rtol * |b| comes to; a NaN fails both), or two NaNs.
template <typename DType>
MSHADOW_XINLINE bool Close(DType x, DType y, float rtol, float atol, bool equal_nan) {
  using C = CloseType<DType>;
  const C a = static_cast<C>(x), b = static_cast<C>(y);
  const C difference = a > b ? a - b : b - a, magnitude = b < 0 ? -b : b;
  const bool within = (difference - difference == C(0)) &
                      (difference <= C(atol) + C(rtol) * magnitude);
  return (a == b) | within | (equal_nan & (a != a) & (b != b));
}

// GPU items: pair i clears the flag where it is not close (every writer writes the same 0).
struct clear_if_not_close {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, uint8_t* flag, const DType* a, const DType* b,
                                  float rtol, float atol, bool equal_nan) {
    if (!Close(a[i], b[i], rtol, atol, equal_nan)) *flag = 0;
  }
};

struct set_flag {
  MSHADOW_XINLINE static void Map(index_t, uint8_t* flag) { *flag = 1; }
};

// Whether every pair of a and b is close, on the CPU (allclose.cc).
bool AllCloseCpu(const TBlob& a, const TBlob& b, const AllCloseParam& p);

template <typename xpu>
void AllCloseCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  RefuseAddTo(attrs, req[0], "a flag");
  const AllCloseParam& p = GetParam<AllCloseParam>(attrs);
  uint8_t* flag = out[0].dptr<uint8_t>();
  if constexpr (std::is_same_v<xpu, cpu>) {
    *flag = AllCloseCpu(in[0], in[1], p) ? 1 : 0;
  } else {
    mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
    Kernel<set_flag, xpu>::Launch(s, 1, flag);
    MSHADOW_TYPE_SWITCH(in[0].type_flag_, DType, {
      Kernel<clear_if_not_close, xpu>::Launch(s, in[0].Size(), flag, in[0].dptr<DType>(),
                                              in[1].dptr<DType>(), p.rtol, p.atol, p.equal_nan);
    });
  }
}

template <typename xpu>
void SetAllCloseCompute() {
  RegisterOp("_contrib_allclose")
      .set_attr<FCompute>(ComputeAttrName<xpu>(), FCompute(AllCloseCompute<xpu>));
}

}  // namespace allclose
}  // namespace ops

#endif  // OPS_ALLCLOSE_INL_H_
