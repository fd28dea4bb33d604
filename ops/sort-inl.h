// ops/sort-inl.h: topk, sort and argsort and the value gradient of topk and sort, written once
// for every device, with MXNet 1.9.1's semantics. Each line along the axis (or the flattened
// data without one) is ordered by value, ties by position (a stable sort, as MXNet's), NaN
// after every number; topk keeps the first k of the order (descending unless is_ascend), as
// values, indices (in `dtype`), a 0/1 mask shaped like the data, or values and indices.
// The gradient of the values goes back to the positions they came from, which the forward
// call writes beside the values (the visible indices of ret_typ=both, else a hidden int64
// output, as MXNet's); indices, masks and argsort's positions have none (zeros, as MXNet's).
// - CPU: one line per item in the engine's threads: a few of a long line selected in one
//   pass, otherwise sorted (partially for k < n).
// - GPU: one element per thread, its rank counted against its line (O(n) each): no sort
//   library, and every output written by exactly one thread; right for the lines of a few
//   thousand elements networks sort (a segmented radix sort would serve longer ones).
// sort.cc registers the CPU, sort.cu adds FCompute<gpu>.
#ifndef OPS_SORT_INL_H_
#define OPS_SORT_INL_H_

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/index_type.h"
#include "ops/infer_util.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace sort {

// What topk returns.
enum TopKReturn { kValue, kIndices, kMask, kBoth };

struct TopKParam : public dmlc::Parameter<TopKParam> {
  dmlc::optional<int> axis;
  int k;
  int ret_typ;
  bool is_ascend;
  int dtype;
  DMLC_DECLARE_PARAMETER(TopKParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>(-1))
        .describe("The axis to select along; None selects from the flattened data.");
    DMLC_DECLARE_FIELD(k).set_default(1).describe(
        "How many elements to keep; below 1, all of them (a sort of the whole axis).");
    DMLC_DECLARE_FIELD(ret_typ)
        .add_enum("value", kValue)
        .add_enum("indices", kIndices)
        .add_enum("mask", kMask)
        .add_enum("both", kBoth)
        .set_default(kIndices)
        .describe(
            "What to return: the values, their indices, a 0/1 mask shaped like the "
            "data, or values and indices.");
    DMLC_DECLARE_FIELD(is_ascend).set_default(false).describe(
        "Keep the smallest elements, in ascending order, instead of the largest.");
    IndexTypes(DMLC_DECLARE_FIELD(dtype)).describe("The type of the returned indices.");
  }
};

struct SortParam : public dmlc::Parameter<SortParam> {
  dmlc::optional<int> axis;
  bool is_ascend;
  DMLC_DECLARE_PARAMETER(SortParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>(-1))
        .describe("The axis to sort along; None sorts the flattened data.");
    DMLC_DECLARE_FIELD(is_ascend).set_default(true).describe("Ascending order, else descending.");
  }
};

struct ArgSortParam : public dmlc::Parameter<ArgSortParam> {
  dmlc::optional<int> axis;
  bool is_ascend;
  int dtype;
  DMLC_DECLARE_PARAMETER(ArgSortParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>(-1))
        .describe("The axis to sort along; None sorts the flattened data.");
    DMLC_DECLARE_FIELD(is_ascend).set_default(true).describe("Ascending order, else descending.");
    IndexTypes(DMLC_DECLARE_FIELD(dtype)).describe("The type of the returned indices.");
  }
};

// The three operators as one: sort is topk of every element's value, argsort of its index.
struct SortSpec {
  dmlc::optional<int> axis;
  int k;
  int ret;
  bool ascend;
  int dtype;
  bool HasValues() const { return ret == kValue || ret == kBoth; }
  bool HasIndices() const { return ret == kIndices || ret == kBoth; }
  // Values come with their positions for the gradient: visible (both) or hidden (value).
  int NumOutputs() const { return HasValues() ? 2 : 1; }
  int NumVisibleOutputs() const { return ret == kBoth ? 2 : 1; }
  // Where the positions go, and their type.
  int PositionOutput() const { return HasValues() ? 1 : 0; }
  int PositionType() const { return ret == kValue ? mshadow::kInt64 : dtype; }
};
inline SortSpec SpecOf(const TopKParam& p) {
  return {p.axis, p.k, p.ret_typ, p.is_ascend, p.dtype};
}
inline SortSpec SpecOf(const SortParam& p) { return {p.axis, 0, kValue, p.is_ascend, -1}; }
inline SortSpec SpecOf(const ArgSortParam& p) {
  return {p.axis, 0, kIndices, p.is_ascend, p.dtype};
}

template <typename Param>
SortSpec SpecOf(const NodeAttrs& attrs) {
  return SpecOf(GetParam<Param>(attrs));
}

// The data as (outer, n, inner) around the axis ((1, size, 1) without one); k kept of n.
struct SortView {
  index_t outer, n, inner, k;
  MSHADOW_XINLINE index_t Lines() const { return outer * inner; }
  // Where line l starts in the data, and in the (outer, k, inner) values and indices.
  MSHADOW_XINLINE index_t Start(index_t l) const { return l / inner * n * inner + l % inner; }
  MSHADOW_XINLINE index_t OutStart(index_t l) const { return l / inner * k * inner + l % inner; }
};

// The view; a k past the axis is a dmlc::Error (`op` names the operator).
SortView ViewOf(const SortSpec& spec, const TShape& data, const char* op);

// Whether a (at position i) comes before b (at position j): by value, NaN after every number
// (largest), ties by position; descending orders values the other way, ties still by position.
template <typename DType>
MSHADOW_XINLINE bool Less(DType a, DType b) {
  return a < b || (b != b && a == a);
}
template <typename DType>
MSHADOW_XINLINE bool Before(DType a, index_t i, DType b, index_t j, bool ascend) {
  const bool a_first = ascend ? Less(a, b) : Less(b, a);
  const bool b_first = ascend ? Less(b, a) : Less(a, b);
  return a_first || (!b_first && i < j);
}

// The forward outputs (null where the operator has none) and their write modes.
template <typename DType, typename IType>
struct SortOutputs {
  DType* values = nullptr;
  OpReqType values_req = kNullOp;
  IType* indices = nullptr;
  OpReqType indices_req = kNullOp;
  DType* mask = nullptr;
  OpReqType mask_req = kNullOp;
};

// The position in the order of element j of the line starting at x (elements `inner` apart).
template <typename DType>
MSHADOW_XINLINE index_t RankInLine(const DType* x, index_t n, index_t inner, index_t j,
                                   bool ascend) {
  const DType xj = x[j * inner];
  index_t rank = 0;
  for (index_t i = 0; i < n; ++i) rank += Before(x[i * inner], i, xj, j, ascend) ? 1 : 0;
  return rank;
}

// Item e, an element of the data (GPU): its rank; its value and index written to that place of
// the outputs when it is among the first k; its mask element always.
struct sort_by_rank {
  template <typename DType, typename IType>
  MSHADOW_XINLINE static void Map(index_t e, SortView v, bool ascend, const DType* x,
                                  SortOutputs<DType, IType> out) {
    const index_t l = e / (v.n * v.inner) * v.inner + e % v.inner;
    const index_t j = e / v.inner % v.n;
    const index_t rank = RankInLine(x + v.Start(l), v.n, v.inner, j, ascend);
    if (out.mask) AssignReq(out.mask + e, DType(rank < v.k ? 1 : 0), out.mask_req);
    if (rank >= v.k) return;
    const index_t at = v.OutStart(l) + rank * v.inner;
    if (out.values) AssignReq(out.values + at, x[e], out.values_req);
    if (out.indices) AssignReq(out.indices + at, static_cast<IType>(j), out.indices_req);
  }
};

// A kept value's gradient g to the element of its line (dx_line: where the line starts) at
// position p, which the forward call wrote beside the value. Positions come from the host:
// one outside the axis (or NaN) is skipped, never followed outside dx.
template <typename DType, typename IType>
MSHADOW_XINLINE void ScatterValueGrad(const SortView& v, DType* dx_line, IType p, DType g,
                                      OpReqType req) {
  if (!(p >= IType(0) && p < static_cast<IType>(v.n))) return;
  AssignReq(dx_line + static_cast<index_t>(p) * v.inner, g, req);
}

// Item e (GPU), a kept value (outer, k, inner): its gradient to where it came from.
struct scatter_value_grad {
  template <typename DType, typename IType>
  MSHADOW_XINLINE static void Map(index_t e, SortView v, const IType* positions,
                                  const DType* dvalues, DType* dx, OpReqType req) {
    const index_t l = e / (v.k * v.inner) * v.inner + e % v.inner;
    ScatterValueGrad(v, dx + v.Start(l), positions[e], dvalues[e], req);
  }
};

// Item l (CPU): the same for line l's k kept values, without a division per value.
struct scatter_line_value_grad {
  template <typename DType, typename IType>
  static void Map(index_t l, SortView v, const IType* positions, const DType* dvalues, DType* dx,
                  OpReqType req) {
    const index_t at = v.OutStart(l);
    for (index_t r = 0; r < v.k; ++r) {
      const index_t e = at + r * v.inner;
      ScatterValueGrad(v, dx + v.Start(l), positions[e], dvalues[e], req);
    }
  }
};

// CPU: the first k positions of line l in order, in `order` (room for n), by a (partial)
// sort of the line's values gathered into `keys` (room for n).
template <typename DType>
void OrderLine(const SortView& v, bool ascend, const DType* x, index_t l, DType* keys,
               index_t* order) {
  const DType* line = x + v.Start(l);
  for (index_t i = 0; i < v.n; ++i) keys[i] = line[i * v.inner];
  std::iota(order, order + v.n, index_t{0});
  auto before = [&](index_t a, index_t b) { return Before(keys[a], a, keys[b], b, ascend); };
  if (v.k < v.n) {
    std::partial_sort(order, order + v.k, order + v.n, before);
  } else {
    std::sort(order, order + v.n, before);
  }
}

// CPU, for a few values of a long line (k <= kSelectMaxK, n >= kSelectMinRatio * k): the
// first k of line l in one pass, kept in order by insertion: values in kept[0, k), positions
// in order[0, k). A later element ties behind an equal kept one, so one that does not come
// before the last kept value is out after a single comparison: most of a long line. (An
// ordered line inserts every element: at most kSelectMaxK moves each.)
constexpr index_t kSelectMaxK = 16;
constexpr index_t kSelectMinRatio = 16;
inline bool SelectsFirstK(const SortView& v) {
  return v.k <= kSelectMaxK && v.n >= kSelectMinRatio * v.k;
}
template <bool kAscend, typename DType>
void SelectFirstK(const SortView& v, const DType* x, index_t l, DType* kept, index_t* order) {
  const DType* line = x + v.Start(l);
  index_t count = 0;
  for (index_t i = 0; i < v.n; ++i) {
    const DType xi = line[i * v.inner];
    auto before = [&](index_t r) { return kAscend ? Less(xi, kept[r]) : Less(kept[r], xi); };
    if (count == v.k && !before(count - 1)) continue;
    index_t at = count < v.k ? count++ : count - 1;
    for (; at > 0 && before(at - 1); --at) {
      kept[at] = kept[at - 1];
      order[at] = order[at - 1];
    }
    kept[at] = xi;
    order[at] = i;
  }
}

// The scratch a CPU line needs: keys and order (and a rank or mark per element).
template <typename DType>
struct LineScratch {
  DType* keys;
  index_t* order;
  index_t* rank;
  explicit LineScratch(index_t n) {
    auto* base = static_cast<char*>(
        mshadow::ThreadScratch(static_cast<size_t>(n) * (sizeof(DType) + 2 * sizeof(index_t))));
    order = reinterpret_cast<index_t*>(base);
    rank = order + n;
    keys = reinterpret_cast<DType*>(rank + n);
  }
  // rank[i] = position of element i in the order, or k for those past the first k.
  void RankFromOrder(const SortView& v) {
    std::fill(rank, rank + v.n, v.k);
    for (index_t r = 0; r < v.k; ++r) rank[order[r]] = r;
  }
};

// Item l (CPU): line l ordered, its first k written.
struct sort_line {
  template <typename DType, typename IType>
  static void Map(index_t l, SortView v, bool ascend, const DType* x,
                  SortOutputs<DType, IType> out) {
    LineScratch<DType> s(v.n);
    const bool selected = SelectsFirstK(v);
    if (selected && ascend) {
      SelectFirstK<true>(v, x, l, s.keys, s.order);
    } else if (selected) {
      SelectFirstK<false>(v, x, l, s.keys, s.order);
    } else {
      OrderLine(v, ascend, x, l, s.keys, s.order);
    }
    const index_t at = v.OutStart(l);
    for (index_t r = 0; r < v.k; ++r) {
      const DType value = selected ? s.keys[r] : s.keys[s.order[r]];
      if (out.values) AssignReq(out.values + at + r * v.inner, value, out.values_req);
      if (out.indices) {
        AssignReq(out.indices + at + r * v.inner, static_cast<IType>(s.order[r]), out.indices_req);
      }
    }
    if (!out.mask) return;
    s.RankFromOrder(v);
    for (index_t i = 0; i < v.n; ++i) {
      AssignReq(out.mask + v.Start(l) + i * v.inner, DType(s.rank[i] < v.k ? 1 : 0), out.mask_req);
    }
  }
};

template <typename Param, typename xpu>
void SortCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SortSpec spec = SpecOf<Param>(attrs);
  const SortView v = ViewOf(spec, in[0].shape_, attrs.op->name.c_str());
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const int at = spec.PositionOutput();
    WithIndexType(spec.ret == kMask ? mshadow::kFloat32 : out[at].type_flag_, [&](auto index_tag) {
      using IType = typename decltype(index_tag)::type;
      SortOutputs<DType, IType> o{};
      if (spec.HasValues()) {
        o.values = out[0].dptr<DType>();
        o.values_req = req[0];
      }
      if (spec.ret != kMask) {
        o.indices = out[at].dptr<IType>();
        // Hidden positions are written whatever the request: the gradient reads them.
        o.indices_req = spec.HasIndices() ? req[at] : kWriteTo;
      }
      if (spec.ret == kMask) {
        o.mask = out[0].dptr<DType>();
        o.mask_req = req[0];
      }
      const DType* x = in[0].dptr<DType>();
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<sort_line, cpu>::LaunchItems(stream, v.Lines(), v.n * 8, v, spec.ascend, x, o);
      } else {
        Kernel<sort_by_rank, xpu>::Launch(stream, v.Lines() * v.n, v, spec.ascend, x, o);
      }
    });
  });
}

// Inputs: the gradients of the outputs (that of the positions ignored), then the outputs.
// Output: the data's gradient: each kept value's gradient at the position it came from, zero
// elsewhere (everywhere where the operator returns no values).
template <typename Param, typename xpu>
void SortBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SortSpec spec = SpecOf<Param>(attrs);
  const TBlob& dx = out[0];
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(dx.type_flag_, DType, {
    if (req[0] == kNullOp) return;
    if (req[0] != kAddTo) {
      Assign(dx.FlatTo2D<xpu, DType>(stream), req[0], mshadow::expr::scalar<DType>(0));
    }
    if (!spec.HasValues()) return;
    const SortView v = ViewOf(spec, dx.shape_, attrs.op->name.c_str());
    const TBlob& positions = in[spec.NumOutputs() + spec.PositionOutput()];
    WithIndexType(positions.type_flag_, [&](auto index_tag) {
      using IType = typename decltype(index_tag)::type;
      const OpReqType mode = req[0] == kAddTo ? kAddTo : kWriteTo;
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<scatter_line_value_grad, cpu>::LaunchItems(
            stream, v.Lines(), v.k, v, positions.dptr<IType>(), in[0].dptr<DType>(),
            dx.dptr<DType>(), mode);
      } else {
        Kernel<scatter_value_grad, xpu>::Launch(stream, v.Lines() * v.k, v, positions.dptr<IType>(),
                                                in[0].dptr<DType>(), dx.dptr<DType>(), mode);
      }
    });
  });
}

// Adds FCompute<xpu> to topk, sort, argsort and the backward operators of topk and sort.
template <typename xpu>
void SetSortCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("topk").set_attr<FCompute>(attr_name, FCompute(SortCompute<TopKParam, xpu>));
  RegisterOp("sort").set_attr<FCompute>(attr_name, FCompute(SortCompute<SortParam, xpu>));
  RegisterOp("argsort").set_attr<FCompute>(attr_name, FCompute(SortCompute<ArgSortParam, xpu>));
  RegisterOp("_backward_topk")
      .set_attr<FCompute>(attr_name, FCompute(SortBackwardCompute<TopKParam, xpu>));
  RegisterOp("_backward_sort")
      .set_attr<FCompute>(attr_name, FCompute(SortBackwardCompute<SortParam, xpu>));
  RegisterOp("_backward_argsort").set_attr<FCompute>(attr_name, FCompute(ZeroGradientCompute<xpu>));
}

}  // namespace sort
}  // namespace ops

#endif  // OPS_SORT_INL_H_
