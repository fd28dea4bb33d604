// ops/cumsum-inl.h: cumsum (MXNet's _np_cumsum), the running sums of an array along an axis
// (of the flattened array when no axis is given), written once for every device. Its gradient
// is the running sums of the output gradient taken from the end of the axis. The array is
// seen as (outer, n, inner) around the axis; an item sums `kRunWidth` adjacent lines of one
// outer slice together: 256 on the CPU, so that each step along the axis reads a kilobyte of
// contiguous input and adds it as vectors (a cache line a step, across a wide axis, leaves the
// prefetchers behind), one on the GPU, where adjacent threads take adjacent lines; the GPU
// scans long lines along the last axis with blocks of threads instead (cumsum.cu). cumsum.cc
// registers the CPU, cumsum.cu adds FCompute<gpu>.
#ifndef OPS_CUMSUM_INL_H_
#define OPS_CUMSUM_INL_H_

#include <algorithm>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/axis_view.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace cumsum {

struct CumsumParam : public dmlc::Parameter<CumsumParam> {
  dmlc::optional<int> axis;
  int dtype;
  DMLC_DECLARE_PARAMETER(CumsumParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>())
        .describe(
            "The axis to sum along (negative counts from the end); None: the flattened array.");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("None", -1)
        .add_enum("float32", mshadow::kFloat32)
        .add_enum("float64", mshadow::kFloat64)
        .set_default(-1)
        .describe("The output's type, in which the sums accumulate; None: the input's.");
  }
};

// The input seen around the summed axis.
inline AxisView SummedView(const CumsumParam& param, const TShape& shape) {
  return param.axis.has_value() ? ViewAround(shape, param.axis.value()) : FlatView(shape);
}

// Item `item` sums lines [first, first + kRunWidth) (fewer at the end of a slice) of outer
// slice `item / runs_per_slice` along the axis, from its start or (kFromEnd) its end, in
// OType, and writes each step's sums to out as kReq says. The sums are read from `in` into
// registers before any is written, so out may be in (kWriteInplace).
template <int kReq, bool kFromEnd, int kRunWidth>
struct running_sums {
  template <typename OType, typename IType>
  MSHADOW_XINLINE static void Map(index_t item, OType* out, const IType* in, AxisView view,
                                  index_t runs_per_slice) {
    const index_t first = (item % runs_per_slice) * kRunWidth;
    const index_t offset = item / runs_per_slice * view.n * view.inner + first;
    // Widths the compiler knows where it can: a whole run, or one line (the last axis).
    const index_t width = std::min<index_t>(kRunWidth, view.inner - first);
    if (width == kRunWidth) {
      SumRun<kRunWidth>(out + offset, in + offset, view, kRunWidth);
    } else if (width == 1) {
      SumRun<1>(out + offset, in + offset, view, 1);
    } else {
      SumRun<kRunWidth>(out + offset, in + offset, view, static_cast<int>(width));
    }
  }

 private:
  // Sums `width` <= kMaxWidth adjacent lines.
  template <int kMaxWidth, typename OType, typename IType>
  MSHADOW_XINLINE static void SumRun(OType* out, const IType* in, AxisView view, int width) {
    OType sums[kMaxWidth] = {};
    for (index_t step = 0; step < view.n; ++step) {
      const index_t at = (kFromEnd ? view.n - 1 - step : step) * view.inner;
      for (int w = 0; w < width; ++w) sums[w] += static_cast<OType>(in[at + w]);
      for (int w = 0; w < width; ++w) AssignReq<kReq>(out + at + w, sums[w]);
    }
  }
};

// On the GPU, lines along the last axis (inner 1) of at least this many elements are scanned
// by blocks of threads (ScanLinesGpu) rather than a thread each.
constexpr index_t kMinBlockScannedLine = 256;

// The GPU's block scans of lines along the last axis (cumsum.cu): deterministic, each chunk of
// a line scanned by a block after the chunks before it are summed.
template <bool kFromEnd>
void ScanLinesGpu(const OpContext& ctx, const AxisView& view, const TBlob& in, OpReqType req,
                  const TBlob& out);

// out = running sums of `in` along the view's middle axis (kFromEnd: from its end).
template <bool kFromEnd, typename xpu>
void RunningSums(const OpContext& ctx, const AxisView& view, const TBlob& in, OpReqType req,
                 const TBlob& out) {
  if (req == kNullOp || out.Size() == 0) return;
  if constexpr (std::is_same_v<xpu, gpu>) {
    if (view.inner == 1 && view.n >= kMinBlockScannedLine) {
      ScanLinesGpu<kFromEnd>(ctx, view, in, req, out);
      return;
    }
  }
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  constexpr int kRunWidth = std::is_same_v<xpu, cpu> ? 256 : 1;
  const index_t runs_per_slice = (view.inner + kRunWidth - 1) / kRunWidth;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out.type_flag_, OType, {
    MSHADOW_SGL_DBL_TYPE_SWITCH(in.type_flag_, IType, {
      OPS_REQ_SWITCH(req, Req, {
        Kernel<running_sums<Req, kFromEnd, kRunWidth>, xpu>::LaunchItems(
            s, view.outer * runs_per_slice, view.n * kRunWidth, out.dptr<OType>(), in.dptr<IType>(),
            view, runs_per_slice);
      });
    });
  });
}

template <typename xpu>
void CumsumCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const AxisView view = SummedView(GetParam<CumsumParam>(attrs), in[0].shape_);
  RunningSums<false, xpu>(ctx, view, in[0], req[0], out[0]);
}

// Inputs: out_grad. Output: the data's gradient, element j the sum of out_grad from j to the
// end of its line.
template <typename xpu>
void CumsumBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  const AxisView view = SummedView(GetParam<CumsumParam>(attrs), out[0].shape_);
  RunningSums<true, xpu>(ctx, view, in[0], req[0], out[0]);
}

// Adds FCompute<xpu> to _np_cumsum and its backward operator.
template <typename xpu>
void SetCumsumCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_np_cumsum").set_attr<FCompute>(attr_name, FCompute(CumsumCompute<xpu>));
  RegisterOp("_backward_np_cumsum")
      .set_attr<FCompute>(attr_name, FCompute(CumsumBackwardCompute<xpu>));
}

}  // namespace cumsum
}  // namespace ops

#endif  // OPS_CUMSUM_INL_H_
