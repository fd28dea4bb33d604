// ops/slice_axis-inl.h: slice_axis(axis, begin, end) and its backward operator, written once
// for every device as copies of contiguous runs (CopyRows). slice_axis.cc registers them
// with FCompute<cpu>, slice_axis.cu adds FCompute<gpu>.
#ifndef OPS_SLICE_AXIS_INL_H_
#define OPS_SLICE_AXIS_INL_H_

#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/copy_rows.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace slice_axis {

struct SliceAxisParam : public dmlc::Parameter<SliceAxisParam> {
  int axis;
  int begin;
  dmlc::optional<int> end;
  DMLC_DECLARE_PARAMETER(SliceAxisParam) {
    DMLC_DECLARE_FIELD(axis).describe("The axis to slice.");
    DMLC_DECLARE_FIELD(begin).describe("First index (negative: from the end).");
    DMLC_DECLARE_FIELD(end).describe("One past the last index (negative: from the end; None: "
                                     "the extent).");
  }
};

struct SliceRange {
  int axis;
  index_t begin, end;
};

inline SliceRange RangeFor(const SliceAxisParam& param, const TShape& shape) {
  const int axis = NormalizeAxis(param.axis, static_cast<int>(shape.ndim()));
  const index_t extent = shape[axis];
  index_t begin = param.begin < 0 ? param.begin + extent : param.begin;
  index_t end = param.end.has_value() ? *param.end : extent;
  if (end < 0) end += extent;
  if (begin < 0 || end > extent || begin >= end) {
    std::ostringstream os;
    os << "slice [" << param.begin << ", " << (param.end.has_value() ? std::to_string(*param.end) : "None")
       << ") of axis " << param.axis << " (extent " << extent << ") of " << shape
       << " is empty or out of range";
    throw dmlc::Error(os.str());
  }
  return {axis, begin, end};
}

// The slice as (outer, width * inner) runs: row o of the slice starts at o * run in the
// slice and at (o * extent + begin) * inner in the full array.
struct SliceRuns {
  index_t outer, run, full_row, offset;
};
inline SliceRuns RunsOf(const TShape& full, const SliceRange& r) {
  const index_t inner = full.ProdShape(r.axis + 1, static_cast<int>(full.ndim()));
  return {full.ProdShape(0, r.axis), (r.end - r.begin) * inner, full[r.axis] * inner,
          r.begin * inner};
}

template <typename xpu>
void SliceAxisCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SliceRuns r = RunsOf(in[0].shape_, RangeFor(GetParam<SliceAxisParam>(attrs), in[0].shape_));
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    CopyRows(RowsView(out[0].dptr<DType>(), r.outer, r.run, r.run, s), req[0],
             RowsView(in[0].dptr<DType>() + r.offset, r.outer, r.run, r.full_row, s));
  });
}

// Inputs: out_grad. Output: the input's gradient: the slice's gradient inside, zero (or
// unchanged, for kAddTo) outside.
template <typename xpu>
void SliceAxisBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const SliceRuns r =
      RunsOf(out[0].shape_, RangeFor(GetParam<SliceAxisParam>(attrs), out[0].shape_));
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    if constexpr (std::is_same_v<xpu, cpu>) {  // one pass over each row
      vec::WithReq(req[0], [&](auto add) {
        constexpr bool kAdd = decltype(add)::value;
        ParallelRows(r.outer, r.full_row, [&](index_t begin, index_t end) {
          for (index_t o = begin; o < end; ++o) {
            DType* row = dx + o * r.full_row;
            if (!kAdd) {
              FillRun<false>(row, DType(0), r.offset);
              FillRun<false>(row + r.offset + r.run, DType(0), r.full_row - r.offset - r.run);
            }
            CopyRun<kAdd>(row + r.offset, g + o * r.run, r.run);
          }
        });
      });
    } else {  // zeros, then the slice's gradient
      if (req[0] == kNullOp) return;
      if (req[0] != kAddTo) Flat<xpu, DType>(out[0], s) = DType(0);
      CopyRows(RowsView(dx + r.offset, r.outer, r.run, r.full_row, s), req[0],
               RowsView(const_cast<DType*>(g), r.outer, r.run, r.run, s));
    }
  });
}

// Adds FCompute<xpu> to slice_axis and _backward_slice_axis.
template <typename xpu>
void SetSliceAxisCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("slice_axis").set_attr<FCompute>(attr_name, FCompute(SliceAxisCompute<xpu>));
  RegisterOp("_backward_slice_axis")
      .set_attr<FCompute>(attr_name, FCompute(SliceAxisBackwardCompute<xpu>));
}

}  // namespace slice_axis
}  // namespace ops

#endif  // OPS_SLICE_AXIS_INL_H_
