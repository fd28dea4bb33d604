// ops/indexing-inl.h: the operators driven by an index array, with MXNet 1.9.1's semantics,
// written once for every device:
//   take(a, indices, axis, mode)      out = a with axis replaced by indices' axes
//   pick(data, index, axis, keepdims)  out[.., ..] = data[.., index[.., ..], ..]
//   batch_take(a, indices)            pick along the last axis, indices clipped
//   one_hot(indices, depth)           out[.., c] = on_value where int(index) == c
//   fill_element_0index(lhs, mhs, rhs) out = lhs, out[r, rhs[r]] = mhs[r] (indices checked)
// An index is truncated toward zero, then clipped to the axis (mode clip), wrapped around it
// (wrap), or checked (take's raise: an index outside is a dmlc::Error naming it). Indices'
// gradients, and one_hot's, are zeros (as MXNet's). indexing.cc registers the CPU,
// indexing.cu adds FCompute<gpu>.
#ifndef OPS_INDEXING_INL_H_
#define OPS_INDEXING_INL_H_

#include <sstream>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/row_gather.h"
#include "ops/vector_loop.h"

namespace ops {
namespace indexing {

struct TakeParam : public dmlc::Parameter<TakeParam> {
  int axis;
  int mode;
  DMLC_DECLARE_PARAMETER(TakeParam) {
    DMLC_DECLARE_FIELD(axis).set_default(0).describe("The axis of a to take along.");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("clip", kClip)
        .add_enum("wrap", kWrap)
        .add_enum("raise", kRaise)
        .set_default(kClip)
        .describe("Indices outside the axis: clip to it, wrap around it, or raise an error.");
  }
};

struct PickParam : public dmlc::Parameter<PickParam> {
  dmlc::optional<int> axis;
  bool keepdims;
  int mode;
  DMLC_DECLARE_PARAMETER(PickParam) {
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<int>(-1)).describe(
        "The axis to pick along; None picks from the flattened data.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Keep the axis, with extent 1.");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("clip", kClip)
        .add_enum("wrap", kWrap)
        .set_default(kClip)
        .describe("Indices outside the axis: clip to it or wrap around it.");
  }
};

struct OneHotParam : public dmlc::Parameter<OneHotParam> {
  int depth;
  double on_value;
  double off_value;
  int dtype;
  DMLC_DECLARE_PARAMETER(OneHotParam) {
    DMLC_DECLARE_FIELD(depth).set_lower_bound(1).describe("The number of classes.");
    DMLC_DECLARE_FIELD(on_value).set_default(1.0).describe("The value at the index.");
    DMLC_DECLARE_FIELD(off_value).set_default(0.0).describe("The value elsewhere.");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("float32", mshadow::kFloat32)
        .add_enum("float64", mshadow::kFloat64)
        .set_default(mshadow::kFloat32)
        .describe("The output's type.");
  }
};

// ---- take: out viewed as (outer, k, inner), k the number of indices; its kernels, which
// Embedding shares, in ops/row_gather.h.

// Every index a position on the axis (take's mode raise, fill_element_0index), or a
// dmlc::Error naming the first that is not (the indices are read on the host; a GPU's are
// copied there first). `what` names the call.
template <typename xpu, typename IType>
void CheckIndices(const TBlob& indices, index_t n, mshadow::Stream<xpu>* s, const char* what) {
  WithIndicesOnHost<xpu, IType>(indices, s, [&](const IType* values, index_t count) {
    const index_t j = FirstOutside(values, count, -1, static_cast<double>(n));
    if (j == count) return;
    std::ostringstream os;
    os << what << ": index " << static_cast<double>(values[j]) << " at position " << j
       << " is outside the axis of extent " << n << " (valid: 0 to " << n - 1 << ")";
    throw dmlc::Error(os.str());
  });
}

template <typename xpu>
void TakeCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TakeParam& param = GetParam<TakeParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const AxisView v = ViewAround(in[0].shape_, param.axis);
  const index_t k = static_cast<index_t>(in[1].Size());
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    WithIndexType(in[1].type_flag_, [&](auto index_tag) {
      using IType = typename decltype(index_tag)::type;
      if (param.mode == kRaise) CheckIndices<xpu, IType>(in[1], v.n, s, "take with mode=raise");
      OPS_REQ_SWITCH(req[0], Req, {
        GatherRuns<Req>(s, out[0].dptr<DType>(), in[0].dptr<DType>(), in[1].dptr<IType>(), v, k,
                        param.mode);
      });
    });
  });
}

// Inputs: out_grad, a, indices. Outputs: a_grad, indices_grad (zero).
template <typename xpu>
void TakeBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                         const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                         const std::vector<TBlob>& out) {
  const TakeParam& param = GetParam<TakeParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const AxisView v = ViewAround(in[1].shape_, param.axis);
  const index_t k = static_cast<index_t>(in[2].Size());
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    ScatterGradient<xpu, DType>(out[0], req[0], in[2].type_flag_, s, [&](DType* grad, auto tag) {
      using IType = typename decltype(tag)::type;
      // raise: the forward call checked these indices; clip keeps them inside regardless.
      const int mode = param.mode == kWrap ? kWrap : kClip;
      ScatterRuns(s, grad, in[0].dptr<DType>(), in[2].dptr<IType>(), v, k, mode);
    });
  });
  ZeroIndexGradient<xpu>(out[1], req[1], s);
}

// ---- pick: the data viewed as (outer, n, inner) around the axis (the flattened data as
// (1, size, 1) without one); the index and the output as (outer, inner).

inline AxisView PickView(const PickParam& param, const TShape& data) {
  return param.axis.has_value() ? ViewAround(data, param.axis.value()) : FlatView(data);
}

template <int kReq>
struct pick_gather {
  template <typename DType, typename IType>
  MSHADOW_XINLINE static void Map(index_t p, DType* out, const DType* data, const IType* idx,
                                  AxisView v, int mode) {
    const index_t o = p / v.inner, inner = p % v.inner;
    AssignReq<kReq>(out + p, data[(o * v.n + IndexAt(idx[p], v.n, mode)) * v.inner + inner]);
  }
};

// Each output position adds its gradient to the one data element it picked: positions pick
// distinct elements, so no two items write the same one.
struct pick_scatter {
  template <typename DType, typename IType>
  MSHADOW_XINLINE static void Map(index_t p, DType* grad, const DType* og, const IType* idx,
                                  AxisView v, int mode) {
    const index_t o = p / v.inner, inner = p % v.inner;
    grad[(o * v.n + IndexAt(idx[p], v.n, mode)) * v.inner + inner] += og[p];
  }
};

template <typename xpu>
void PickCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const PickParam& param = GetParam<PickParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const AxisView v = PickView(param, in[0].shape_);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    WithIndexType(in[1].type_flag_, [&](auto index_tag) {
      using IType = typename decltype(index_tag)::type;
      OPS_REQ_SWITCH(req[0], Req, {
        Kernel<pick_gather<Req>, xpu>::Launch(s, v.outer * v.inner, out[0].dptr<DType>(),
                                              in[0].dptr<DType>(), in[1].dptr<IType>(), v,
                                              param.mode);
      });
    });
  });
}

// Inputs: out_grad, data, index. Outputs: data_grad, index_grad (zero).
template <typename xpu>
void PickBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                         const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                         const std::vector<TBlob>& out) {
  const PickParam& param = GetParam<PickParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const AxisView v = PickView(param, in[1].shape_);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    ScatterGradient<xpu, DType>(out[0], req[0], in[2].type_flag_, s, [&](DType* grad, auto tag) {
      using IType = typename decltype(tag)::type;
      Kernel<pick_scatter, xpu>::Launch(s, v.outer * v.inner, grad, in[0].dptr<DType>(),
                                        in[2].dptr<IType>(), v, param.mode);
    });
  });
  ZeroIndexGradient<xpu>(out[1], req[1], s);
}

// ---- fill_element_0index: lhs (rows, cols) with mhs[r] at column rhs[r] of each row r (the
// index truncated toward zero); no mhs (null): 0 there, its gradient in lhs.

// The CPU's item is a row, a select on SIMD lanes; the GPU's an element.
template <int kReq, bool kRows>
struct fill_element {
  template <typename DType, typename IType>
  MSHADOW_XINLINE static void Map(index_t item, DType* out, const DType* lhs, const DType* mhs,
                                  const IType* rhs, index_t cols) {
    if constexpr (kRows) {
      const index_t at = static_cast<index_t>(rhs[item]);
      const DType value = mhs ? mhs[item] : DType(0);
      DType* row = out + item * cols;
      const DType* from = lhs + item * cols;
      OPS_SIMD_LOOP
      for (index_t j = 0; j < cols; ++j) AssignReq<kReq>(row + j, j == at ? value : from[j]);
    } else {
      const index_t r = item / cols;
      const bool filled = item - r * cols == static_cast<index_t>(rhs[r]);
      AssignReq<kReq>(out + item, filled ? (mhs ? mhs[r] : DType(0)) : lhs[item]);
    }
  }
};

template <typename xpu, typename DType, typename IType>
void FillElements(mshadow::Stream<xpu>* s, OpReqType req, DType* out, const DType* lhs,
                  const DType* mhs, const IType* rhs, index_t rows, index_t cols) {
  constexpr bool kRows = std::is_same_v<xpu, mshadow::cpu>;
  OPS_REQ_SWITCH(req, Req, {
    Kernel<fill_element<Req, kRows>, xpu>::LaunchItems(s, kRows ? rows : rows * cols,
                                                       kRows ? cols : 1, out, lhs, mhs, rhs, cols);
  });
}

// Inputs: lhs, mhs, rhs. Output: the filled lhs.
template <typename xpu>
void FillElementCompute(const NodeAttrs& /*attrs*/, const OpContext& ctx,
                        const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                        const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t rows = in[0].shape_[0], cols = in[0].shape_[1];
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    WithIndexType(in[2].type_flag_, [&](auto index_tag) {
      using IType = typename decltype(index_tag)::type;
      CheckIndices<xpu, IType>(in[2], cols, s, "fill_element_0index");
      FillElements(s, req[0], out[0].dptr<DType>(), in[0].dptr<DType>(), in[1].dptr<DType>(),
                   in[2].dptr<IType>(), rows, cols);
    });
  });
}

// Inputs: out_grad, lhs, mhs, rhs. Outputs: lhs's gradient (out_grad, 0 at the filled
// elements), mhs's (out_grad at them), rhs's (zero).
template <typename xpu>
void FillElementBackwardCompute(const NodeAttrs& /*attrs*/, const OpContext& ctx,
                                const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t rows = in[1].shape_[0], cols = in[1].shape_[1];
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    WithIndexType(in[3].type_flag_, [&](auto index_tag) {
      using IType = typename decltype(index_tag)::type;
      const DType* og = in[0].dptr<DType>();
      const IType* rhs = in[3].dptr<IType>();
      FillElements(s, req[0], out[0].dptr<DType>(), og, static_cast<const DType*>(nullptr), rhs,
                   rows, cols);
      OPS_REQ_SWITCH(req[1], Req, {
        Kernel<pick_gather<Req>, xpu>::Launch(s, rows, out[1].dptr<DType>(), og, rhs,
                                              AxisView{rows, cols, 1}, kClip);
      });
    });
  });
  ZeroIndexGradient<xpu>(out[2], req[2], s);
}

// ---- one_hot: out viewed as (count, depth).

template <int kReq>
struct one_hot_fill {
  template <typename DType, typename IType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const IType* idx, index_t depth,
                                  DType on, DType off) {
    const double value = static_cast<double>(idx[i / depth]);
    // Truncated toward zero; NaN and values outside [0, depth) match no class.
    const bool hit = value > -1 && value < static_cast<double>(depth) &&
                     static_cast<index_t>(value) == i % depth;
    AssignReq<kReq>(out + i, hit ? on : off);
  }
};

// CPU item: row r, every class of it off_value but the hit one (if any) on_value: packet
// fills (or additions) on either side of the hit class, which gets on_value alone; no
// division per element.
template <int kReq>
struct one_hot_row {
  template <typename DType, typename IType>
  static void Map(index_t r, DType* out, const IType* idx, index_t depth, DType on, DType off) {
    constexpr bool kAdd = kReq == kAddTo;
    const double value = static_cast<double>(idx[r]);
    DType* row = out + r * depth;
    if (!(value > -1 && value < static_cast<double>(depth))) {
      FillRun<kAdd>(row, off, depth);
      return;
    }
    const index_t hit = static_cast<index_t>(value);
    FillRun<kAdd>(row, off, hit);
    AssignReq<kReq>(row + hit, on);
    FillRun<kAdd>(row + hit + 1, off, depth - hit - 1);
  }
};

template <typename xpu>
void OneHotCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const OneHotParam& param = GetParam<OneHotParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    WithIndexType(in[0].type_flag_, [&](auto index_tag) {
      using IType = typename decltype(index_tag)::type;
      const index_t depth = static_cast<index_t>(param.depth);
      const DType on = static_cast<DType>(param.on_value);
      const DType off = static_cast<DType>(param.off_value);
      OPS_REQ_SWITCH(req[0], Req, {
        if constexpr (std::is_same_v<xpu, cpu>) {
          Kernel<one_hot_row<Req>, cpu>::LaunchItems(s, static_cast<index_t>(in[0].Size()), depth,
                                                     out[0].dptr<DType>(), in[0].dptr<IType>(),
                                                     depth, on, off);
        } else {
          Kernel<one_hot_fill<Req>, xpu>::Launch(s, static_cast<index_t>(out[0].Size()),
                                                 out[0].dptr<DType>(), in[0].dptr<IType>(), depth,
                                                 on, off);
        }
      });
    });
  });
}

// Adds FCompute<xpu> to take, pick, batch_take, fill_element_0index, one_hot and the backward
// operators.
template <typename xpu>
void SetIndexingCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("take").set_attr<FCompute>(attr_name, FCompute(TakeCompute<xpu>));
  RegisterOp("_backward_take").set_attr<FCompute>(attr_name, FCompute(TakeBackwardCompute<xpu>));
  RegisterOp("pick").set_attr<FCompute>(attr_name, FCompute(PickCompute<xpu>));
  RegisterOp("_backward_pick").set_attr<FCompute>(attr_name, FCompute(PickBackwardCompute<xpu>));
  RegisterOp("batch_take").set_attr<FCompute>(attr_name, FCompute(PickCompute<xpu>));
  RegisterOp("_backward_batch_take")
      .set_attr<FCompute>(attr_name, FCompute(PickBackwardCompute<xpu>));
  RegisterOp("fill_element_0index")
      .set_attr<FCompute>(attr_name, FCompute(FillElementCompute<xpu>));
  RegisterOp("_backward_fill_element_0index")
      .set_attr<FCompute>(attr_name, FCompute(FillElementBackwardCompute<xpu>));
  RegisterOp("one_hot").set_attr<FCompute>(attr_name, FCompute(OneHotCompute<xpu>));
  RegisterOp("_backward_one_hot").set_attr<FCompute>(attr_name, FCompute(ZeroGradientCompute<xpu>));
}

}  // namespace indexing
}  // namespace ops

#endif  // OPS_INDEXING_INL_H_
