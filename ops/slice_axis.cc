// slice_axis(axis, begin, end): the elements begin..end-1 along one axis (negative indices
// count from the end, end None for the extent); its backward operator scatters the gradient
// back, zero elsewhere.
#include <sstream>

#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace {

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

SliceRange RangeFor(const SliceAxisParam& param, const TShape& shape) {
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

bool SliceAxisShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const SliceRange r = RangeFor(GetParam<SliceAxisParam>(attrs), data);
  TShape result = data;
  result[r.axis] = r.end - r.begin;
  AssignOutputShape(out, 0, result);
  return true;
}

// The slice as (outer, width * inner) runs: row o of the slice starts at o * run in the
// slice and at (o * extent + begin) * inner in the full array.
struct SliceRuns {
  index_t outer, run, full_row, offset;
};
SliceRuns RunsOf(const TShape& full, const SliceRange& r) {
  const index_t inner = full.ProdShape(r.axis + 1, static_cast<int>(full.ndim()));
  return {full.ProdShape(0, r.axis), (r.end - r.begin) * inner, full[r.axis] * inner,
          r.begin * inner};
}

void SliceAxisCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SliceRuns s = RunsOf(in[0].shape_, RangeFor(GetParam<SliceAxisParam>(attrs), in[0].shape_));
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    vec::WithReq(req[0], [&](auto add) {
      ParallelRows(s.outer, s.run, [&](index_t begin, index_t end) {
        for (index_t o = begin; o < end; ++o) {
          CopyRun<decltype(add)::value>(y + o * s.run, x + o * s.full_row + s.offset, s.run);
        }
      });
    });
  });
}

// Inputs: out_grad. Output: the input's gradient: the slice's gradient inside, zero (or
// unchanged, for kAddTo) outside; one pass over each row.
void SliceAxisBackwardCompute(const NodeAttrs& attrs, const OpContext&,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const SliceRuns s =
      RunsOf(out[0].shape_, RangeFor(GetParam<SliceAxisParam>(attrs), out[0].shape_));
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    vec::WithReq(req[0], [&](auto add) {
      constexpr bool kAdd = decltype(add)::value;
      ParallelRows(s.outer, s.full_row, [&](index_t begin, index_t end) {
        for (index_t o = begin; o < end; ++o) {
          DType* row = dx + o * s.full_row;
          if (!kAdd) {
            FillRun<false>(row, DType(0), s.offset);
            FillRun<false>(row + s.offset + s.run, DType(0), s.full_row - s.offset - s.run);
          }
          CopyRun<kAdd>(row + s.offset, g + o * s.run, s.run);
        }
      });
    });
  });
}

}  // namespace

DMLC_REGISTER_PARAMETER(SliceAxisParam);

OPS_REGISTER_OP(slice_axis)
    .describe("The elements [begin, end) along one axis.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(SliceAxisParam::__FIELDS__())
    .set_attr_parser(ParamParser<SliceAxisParam>)
    .set_attr<FInferShape>("FInferShape", SliceAxisShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FCompute>("FCompute<cpu>", SliceAxisCompute)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_slice_axis", false, false});

OPS_REGISTER_OP(_backward_slice_axis)
    .describe("Gradient of slice_axis.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<SliceAxisParam>)
    .set_attr<FCompute>("FCompute<cpu>", SliceAxisBackwardCompute);

}  // namespace ops
