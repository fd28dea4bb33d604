// ops/diag-inl.h: diag, NumPy's diagonal and diag as MXNet 1.9.1 has them, written once for
// every device. Data of two or more axes gives its k-th diagonal over axis1 and axis2 as a new
// last axis (the other axes in order before it); a 1-d input gives the square matrix with it
// as the k-th diagonal. Both directions are one pair of kernels over a five-axis view of the
// larger array, (A, P, B, Q, C) with the diagonal's axes P and Q: `take` reads the diagonal
// out, `put` writes it back onto the larger array (zeroed first for a write), so each is the
// other's gradient. diag.cc registers it with FCompute<cpu>;
// diag.cu adds FCompute<gpu>.
#ifndef OPS_DIAG_INL_H_
#define OPS_DIAG_INL_H_

#include <algorithm>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace diag {

struct DiagParam : public dmlc::Parameter<DiagParam> {
  int k;
  int axis1;
  int axis2;
  DMLC_DECLARE_PARAMETER(DiagParam) {
    DMLC_DECLARE_FIELD(k).set_default(0).describe(
        "The diagonal: 0 the main one, k > 0 above it, k < 0 below it.");
    DMLC_DECLARE_FIELD(axis1).set_default(0).describe(
        "The diagonal's first axis (data of 2 or more axes; negative counts from the end).");
    DMLC_DECLARE_FIELD(axis2).set_default(1).describe(
        "The diagonal's second axis: element i of the diagonal is at axis1 position i and "
        "axis2 position i + k.");
  }
};

// The larger array (the data, or a 1-d input's matrix) as (A, P, B, Q, C), P and Q the
// diagonal's axes in the order they come, and the diagonal: element d of line (a, b, c) is at
// (a, d + p_offset, b, d + q_offset, c); the diagonal array is (A, B, C, length).
struct DiagView {
  index_t A = 1, P = 1, B = 1, Q = 1, C = 1;
  index_t length = 0, p_offset = 0, q_offset = 0;

  // Where element i of the diagonal array, (a, b, c, d), lies in the full array.
  MSHADOW_XINLINE index_t FullOffsetOf(index_t i) const {
    const index_t d = i % length, line = i / length;
    const index_t c = line % C, b = line / C % B, a = line / (C * B);
    return (((a * P + d + p_offset) * B + b) * Q + d + q_offset) * C + c;
  }
  // How far apart consecutive elements of a line are in the full array.
  MSHADOW_XINLINE index_t Step() const { return (B * Q + 1) * C; }
};

// The view for data `shape` (what diag reads), or for a 1-d input's matrix; a diagonal that
// does not exist, a repeated axis or a bad rank is a dmlc::Error naming them.
DiagView ViewOf(const DiagParam& param, const TShape& data);

// Output d of every line: the full array's element there (diag of 2+ axes; a 1-d input's
// gradient).
template <int kReq>
struct take_diagonal {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* diagonal, const DType* full, DiagView v) {
    AssignReq<kReq>(diagonal + i, full[v.FullOffsetOf(i)]);
  }
};

// Output d of every line written to its place on the full array's diagonal (a 1-d input's
// matrix; the gradient of diag of 2+ axes), as kReq says: after the rest is zeroed for a
// write, the full array's other elements are the zeros the gradient has there, and an
// addition leaves them as they are.
template <int kReq>
struct put_diagonal {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* full, const DType* diagonal, DiagView v) {
    AssignReq<kReq>(full + v.FullOffsetOf(i), diagonal[i]);
  }
};

// fn(i, offset) for element i of the diagonal array and its offset in the full array, on the
// CPU's threads: each walks its range a line's run at a time, stepping the offset instead of
// working it out from i (five divisions an element had made the forward 0.68x MXNet).
template <typename Fn>
void ForEachDiagonalElementOnCpu(const DiagView& v, index_t work_per_element, Fn&& fn) {
  ParallelRows(v.A * v.B * v.C * v.length, work_per_element, [&](index_t begin, index_t end) {
    const index_t step = v.Step();
    for (index_t i = begin; i < end;) {
      const index_t run_end = std::min(end, i + v.length - i % v.length);
      for (index_t at = v.FullOffsetOf(i); i < run_end; ++i, at += step) fn(i, at);
    }
  });
}

// diag (kBackward false) or its gradient: `take` where the output is the diagonal (diag's
// forward of 2+ axes, the gradient of a 1-d input's), zeros and `put` where it is the full
// array (not a kernel over the whole array: five divisions an element; docs/benchmarks.md,
// forty-third session).
template <typename xpu, bool kBackward>
void DiagCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& data = kBackward ? out[0].shape_ : in[0].shape_;
  const TBlob& from = in[0];  // the data, or the output gradient
  const DiagView v = ViewOf(GetParam<DiagParam>(attrs), data);
  const bool output_is_diagonal = (data.ndim() == 1) == kBackward;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], kReq, {
      // An item's element is a line of its own on a large array (a cache and TLB miss each):
      // weighed as such, a (4096, 4096) diagonal goes to the threads.
      constexpr index_t kItemWork = 64;
      DType* to = out[0].dptr<DType>();
      const DType* source = from.dptr<DType>();
      if (!output_is_diagonal) WriteZeroGradient<xpu, DType>(out[0], req[0], s);
      if constexpr (std::is_same_v<xpu, cpu>) {
        if (output_is_diagonal) {
          ForEachDiagonalElementOnCpu(
              v, kItemWork, [&](index_t i, index_t at) { AssignReq<kReq>(to + i, source[at]); });
        } else {
          ForEachDiagonalElementOnCpu(
              v, kItemWork, [&](index_t i, index_t at) { AssignReq<kReq>(to + at, source[i]); });
        }
      } else if (output_is_diagonal) {
        Kernel<take_diagonal<kReq>, xpu>::LaunchItems(s, out[0].Size(), kItemWork, to, source, v);
      } else {
        Kernel<put_diagonal<kReq>, xpu>::LaunchItems(s, from.Size(), kItemWork, to, source, v);
      }
    });
  });
}

// Adds FCompute<xpu> to diag and _backward_diag.
template <typename xpu>
void SetDiagCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("diag").set_attr<FCompute>(attr_name, FCompute(DiagCompute<xpu, false>));
  RegisterOp("_backward_diag").set_attr<FCompute>(attr_name, FCompute(DiagCompute<xpu, true>));
}

}  // namespace diag
}  // namespace ops

#endif  // OPS_DIAG_INL_H_
