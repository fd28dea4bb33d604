// ops/arg_reduce-inl.h: argmax and argmin along an axis (or over the flattened data), written
// once for every device. The position of the first extreme, as MXNet 1.9.1 (a NaN first in
// line stays the answer: nothing compares above it), in the data's type. Their gradient is
// zero, as MXNet's.
// arg_reduce.cc registers the CPU, arg_reduce.cu adds FCompute<gpu>.
#ifndef OPS_ARG_REDUCE_INL_H_
#define OPS_ARG_REDUCE_INL_H_

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/axis_view.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace arg_reduce {

struct ArgReduceParam : public dmlc::Parameter<ArgReduceParam> {
  dmlc::optional<int> axis;
  bool keepdims;
  DMLC_DECLARE_PARAMETER(ArgReduceParam) {
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<int>()).describe(
        "The axis to search along; None searches the flattened data.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe("Keep the axis, with extent 1.");
  }
};

// The data viewed around the axis; as one axis without one.
inline AxisView ViewOf(const ArgReduceParam& param, const TShape& data) {
  return param.axis.has_value() ? ViewAround(data, param.axis.value()) : FlatView(data);
}

// Better(a, b): whether a beats b (false where either is NaN); on packets, IfBetter(a, b, t,
// f): t in the lanes where a beats b, f in the others.
struct greater {
  template <typename DType>
  MSHADOW_XINLINE static bool Better(DType a, DType b) { return a > b; }
  template <typename P>
  MSHADOW_CINLINE static P IfBetter(P a, P b, P if_true, P if_false) {
    return SelectLess(b, a, if_true, if_false);
  }
};
struct less {
  template <typename DType>
  MSHADOW_XINLINE static bool Better(DType a, DType b) { return a < b; }
  template <typename P>
  MSHADOW_CINLINE static P IfBetter(P a, P b, P if_true, P if_false) {
    return SelectLess(a, b, if_true, if_false);
  }
};

// Output position p = (outer, inner): the first k whose value no later one beats.
template <typename Compare, int kReq>
struct arg_reduce_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t p, DType* out, const DType* data, AxisView v) {
    const DType* line = data + (p / v.inner) * v.n * v.inner + p % v.inner;
    index_t best_at = 0;
    DType best = line[0];
    for (index_t k = 1; k < v.n; ++k) {
      const DType value = line[k * v.inner];
      if (Compare::Better(value, best)) {
        best = value;
        best_at = k;
      }
    }
    AssignReq<kReq>(out + p, static_cast<DType>(best_at));
  }
};

// CPU item (o, b): the outputs of block b of kBlock inner positions of outer index o, the
// line's rows read in order as contiguous runs, in SIMD lanes (one position's line walked
// alone steps inner elements at a time: a page a step for a wide inner, 8 ns an element).
// The same answers as arg_reduce_kernel: the first k whose value no later one beats.
template <typename Compare, int kReq>
struct arg_reduce_block {
  static constexpr index_t kBlock = 256;
  template <typename DType>
  static void Map(index_t item, DType* out, const DType* data, AxisView v) {
    const index_t blocks = (v.inner + kBlock - 1) / kBlock;
    const index_t o = item / blocks, begin = (item % blocks) * kBlock;
    const index_t width = std::min(kBlock, v.inner - begin);
    const DType* rows = data + o * v.n * v.inner + begin;
    DType best[kBlock], best_at[kBlock];  // positions as DType, the output's type
    for (index_t j = 0; j < width; ++j) {
      best[j] = rows[j];
      best_at[j] = DType(0);
    }
    for (index_t k = 1; k < v.n; ++k) {
      const DType* row = rows + k * v.inner;
      const DType at = static_cast<DType>(k);
      OPS_SIMD_LOOP
      for (index_t j = 0; j < width; ++j) {
        const bool better = Compare::Better(row[j], best[j]);
        best[j] = better ? row[j] : best[j];
        best_at[j] = better ? at : best_at[j];
      }
    }
    DType* to = out + o * v.inner + begin;
    for (index_t j = 0; j < width; ++j) AssignReq<kReq>(to + j, best_at[j]);
  }
};

// CPU item l: the output of contiguous line l (inner 1: the last axis, or the flattened
// data), its elements in the lanes of kPackets packets, lane j taking elements j, j + kLanes,
// ...: each lane keeps the first of its elements that no later one of them beats, starting
// from the line's first element (so that a NaN there stays the answer in every lane, as in
// the scan), and the answer is the lanes' best, the first position among equals: the same
// answers as arg_reduce_kernel's scan, which compares each element after the one before it (1
// ns an element). Positions are counted in DType lanes, exact for lines of up to
// kMaxLineLength elements (ArgReduceCompute gives longer ones to the scan).
template <typename Compare, int kReq>
struct arg_reduce_line {
  static constexpr int kPackets = 2;
  template <typename DType>
  static constexpr index_t kMaxLineLength = index_t{1} << std::numeric_limits<DType>::digits;

  template <typename DType>
  static void Map(index_t l, DType* out, const DType* data, AxisView v) {
    using P = vec::Full<DType>;
    constexpr index_t kLanes = kPackets * P::kSize;
    const DType* line = data + l * v.n;
    alignas(64) DType best[kLanes], best_at[kLanes];
    for (index_t j = 0; j < kLanes; ++j) best_at[j] = static_cast<DType>(j);
    P best_p[kPackets], at_p[kPackets], position[kPackets];
    for (int p = 0; p < kPackets; ++p) {
      best_p[p] = P::Fill(line[0]);
      at_p[p] = P::Fill(DType(0));
      position[p] = P::LoadUnAligned(best_at + p * P::kSize);  // 0, 1, ... kLanes - 1
    }
    const P step = P::Fill(static_cast<DType>(kLanes));
    index_t k = 0;
    for (; k + kLanes <= v.n; k += kLanes) {
      for (int p = 0; p < kPackets; ++p) {
        const P x = P::LoadUnAligned(line + k + p * P::kSize);
        at_p[p] = Compare::IfBetter(x, best_p[p], position[p], at_p[p]);
        best_p[p] = Compare::IfBetter(x, best_p[p], x, best_p[p]);
        position[p] = position[p] + step;
      }
    }
    for (int p = 0; p < kPackets; ++p) {
      best_p[p].StoreUnAligned(best + p * P::kSize);
      at_p[p].StoreUnAligned(best_at + p * P::kSize);
    }
    for (index_t j = 0; k + j < v.n; ++j) {  // the last, partial run of lanes
      if (Compare::Better(line[k + j], best[j])) {
        best[j] = line[k + j];
        best_at[j] = static_cast<DType>(k + j);
      }
    }
    index_t lane = 0;
    for (index_t j = 1; j < kLanes; ++j) {
      if (Compare::Better(best[j], best[lane]) ||
          (best[j] == best[lane] && best_at[j] < best_at[lane])) {
        lane = j;
      }
    }
    AssignReq<kReq>(out + l, best_at[lane]);
  }
};

template <typename xpu, typename Compare>
void ArgReduceCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const AxisView v = ViewOf(GetParam<ArgReduceParam>(attrs), in[0].shape_);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      if constexpr (std::is_same_v<xpu, cpu>) {
        using Line = arg_reduce_line<Compare, Req>;
        if (v.inner == 1 && v.n <= Line::template kMaxLineLength<DType>) {
          Kernel<Line, cpu>::LaunchItems(nullptr, v.outer, v.n, out[0].dptr<DType>(),
                                         in[0].dptr<DType>(), v);
          return;
        }
        if (v.inner > 1) {
          using Block = arg_reduce_block<Compare, Req>;
          const index_t blocks = (v.inner + Block::kBlock - 1) / Block::kBlock;
          Kernel<Block, cpu>::LaunchItems(nullptr, v.outer * blocks, v.n * Block::kBlock,
                                          out[0].dptr<DType>(), in[0].dptr<DType>(), v);
          return;
        }
      }
      Kernel<arg_reduce_kernel<Compare, Req>, xpu>::Launch(
          ctx.get_stream<xpu>(), v.outer * v.inner, out[0].dptr<DType>(), in[0].dptr<DType>(), v);
    });
  });
}

// Adds FCompute<xpu> to argmax, argmin and argmax_channel (argmax along axis 1).
template <typename xpu>
void SetArgReduceCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("argmax").set_attr<FCompute>(attr_name, FCompute(ArgReduceCompute<xpu, greater>));
  RegisterOp("argmin").set_attr<FCompute>(attr_name, FCompute(ArgReduceCompute<xpu, less>));
  RegisterOp("argmax_channel")
      .set_attr<FCompute>(attr_name, FCompute(ArgReduceCompute<xpu, greater>));
  for (const char* backward : {"_backward_argmax", "_backward_argmin"}) {
    RegisterOp(backward).set_attr<FCompute>(attr_name, FCompute(ZeroGradientCompute<xpu>));
  }
}

}  // namespace arg_reduce
}  // namespace ops

#endif  // OPS_ARG_REDUCE_INL_H_
