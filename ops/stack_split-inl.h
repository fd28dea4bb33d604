// ops/stack_split-inl.h: stack (joins arrays along a new axis), split / SliceChannel (cuts
// an array into equal parts along an axis) and _split_v2 (cuts it at given positions, or into
// NumPy array_split's near-equal parts), written once for every device. Both are Concat's
// copies on reshaped views: stacking k arrays of shape (a, b) on axis 1 is concatenating them
// as (a, 1, b) along axis 1, and splitting is Concat's backward. Each is the other's gradient.
// stack_split.cc registers the CPU, stack_split.cu adds FCompute<gpu>.
#ifndef OPS_STACK_SPLIT_INL_H_
#define OPS_STACK_SPLIT_INL_H_

#include <sstream>
#include <string>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/concat-inl.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"

namespace ops {
namespace stack_split {

struct StackParam : public dmlc::Parameter<StackParam> {
  int axis;
  int num_args;
  DMLC_DECLARE_PARAMETER(StackParam) {
    DMLC_DECLARE_FIELD(axis).set_default(0).describe(
        "Where the new axis goes, in [-ndim-1, ndim] of the inputs' rank.");
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of inputs.");
  }
};

struct SplitParam : public dmlc::Parameter<SplitParam> {
  int num_outputs;
  int axis;
  bool squeeze_axis;
  DMLC_DECLARE_PARAMETER(SplitParam) {
    DMLC_DECLARE_FIELD(num_outputs).set_lower_bound(1).describe(
        "Number of equal parts; it must divide the axis' extent.");
    DMLC_DECLARE_FIELD(axis).set_default(1).describe("The axis to cut along.");
    DMLC_DECLARE_FIELD(squeeze_axis).set_default(false).describe(
        "Drop the axis from the parts (each part's extent on it must then be 1).");
  }
};

struct SplitV2Param : public dmlc::Parameter<SplitV2Param> {
  TShape indices;
  int axis;
  bool squeeze_axis;
  int sections;
  DMLC_DECLARE_PARAMETER(SplitV2Param) {
    DMLC_DECLARE_FIELD(indices).describe(
        "Where each part starts along the axis: 0 first, then non-decreasing positions up to "
        "the axis' extent (each part ends where the next starts, the last at the extent). "
        "Ignored when sections is given.");
    DMLC_DECLARE_FIELD(axis).set_default(1).describe("The axis to cut along.");
    DMLC_DECLARE_FIELD(squeeze_axis)
        .set_default(false)
        .describe("Drop the axis from the parts (each part's extent on it must then be 1).");
    DMLC_DECLARE_FIELD(sections).set_default(0).set_lower_bound(0).describe(
        "Number of parts of near-equal extent, the first ones one longer where it does not "
        "divide the axis' extent (NumPy's array_split); 0: cut at indices.");
  }
};

// Each part's shape with the cut axis kept, and Concat's attributes along that axis.
struct ConcatView {
  std::vector<TShape> parts;
  NodeAttrs concat_attrs;
};

inline NodeAttrs ConcatAttrs(size_t parts, int axis) {
  return ParseAttrs(Op::Get("Concat"),
                    {{"num_args", std::to_string(parts)}, {"dim", std::to_string(axis)}});
}

// Stacking parts of shape `part` (rank n) on `axis` of the rank-(n+1) result.
inline ConcatView StackView(const StackParam& param, const TShape& part) {
  const int axis = NormalizeAxis(param.axis, part.ndim() + 1);
  std::vector<index_t> dims(part.begin(), part.end());
  dims.insert(dims.begin() + axis, 1);
  return {std::vector<TShape>(param.num_args, TShape(dims.begin(), dims.end())),
          ConcatAttrs(param.num_args, axis)};
}

// Splitting `data` into num_outputs parts along the axis.
inline ConcatView SplitView(const SplitParam& param, const TShape& data) {
  const int axis = NormalizeAxis(param.axis, data.ndim());
  TShape part = data;
  part[axis] = data[axis] / param.num_outputs;
  return {std::vector<TShape>(param.num_outputs, part), ConcatAttrs(param.num_outputs, axis)};
}

// The parts' extents along an axis of extent `extent` (the parser has checked the indices'
// order); a dmlc::Error names an index past the extent.
inline std::vector<index_t> SplitV2Extents(const SplitV2Param& param, index_t extent) {
  std::vector<index_t> extents;
  if (param.sections > 0) {
    for (index_t p = 0; p < param.sections; ++p) {
      extents.push_back(extent / param.sections + (p < extent % param.sections ? 1 : 0));
    }
    return extents;
  }
  const TShape& starts = param.indices;
  if (starts[starts.ndim() - 1] > extent) {
    std::ostringstream os;
    os << "_split_v2: index " << starts[starts.ndim() - 1] << " of indices " << starts
       << " is past the axis' extent " << extent << "; valid indices are in [0, " << extent << "]";
    throw dmlc::Error(os.str());
  }
  for (int p = 0; p < starts.ndim(); ++p) {
    extents.push_back((p + 1 < starts.ndim() ? starts[p + 1] : extent) - starts[p]);
  }
  return extents;
}

// Splitting `data` as _split_v2.
inline ConcatView SplitV2View(const SplitV2Param& param, const TShape& data) {
  const int axis = NormalizeAxis(param.axis, data.ndim());
  ConcatView view;
  for (index_t extent : SplitV2Extents(param, data[axis])) {
    TShape part = data;
    part[axis] = extent;
    view.parts.push_back(part);
  }
  view.concat_attrs = ConcatAttrs(view.parts.size(), axis);
  return view;
}

// Joins `parts` into `joined` (kSplit false) or cuts `joined` into `parts`, each viewed with
// the cut axis kept.
template <bool kSplit, typename xpu>
void Copy(const ConcatView& view, const OpContext& ctx, const std::vector<TBlob>& parts,
          const TBlob& joined, const std::vector<OpReqType>& req) {
  std::vector<TBlob> part_views;
  for (size_t p = 0; p < parts.size(); ++p) {
    part_views.push_back(ReshapedBlob(parts[p], view.parts[p]));
  }
  concat::ConcatCopy<kSplit, xpu>(view.concat_attrs, ctx.get_stream<xpu>(), part_views, joined,
                                  req);
}

template <typename xpu>
void StackCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  Copy<false, xpu>(StackView(GetParam<StackParam>(attrs), in[0].shape_), ctx, in, out[0], req);
}

// Inputs: out_grad. Outputs: one gradient per input.
template <typename xpu>
void StackBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  Copy<true, xpu>(StackView(GetParam<StackParam>(attrs), out[0].shape_), ctx, out, in[0], req);
}

template <typename xpu>
void SplitCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  Copy<true, xpu>(SplitView(GetParam<SplitParam>(attrs), in[0].shape_), ctx, out, in[0], req);
}

// Inputs: one output gradient per part. Output: the data's gradient.
template <typename xpu>
void SplitBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  Copy<false, xpu>(SplitView(GetParam<SplitParam>(attrs), out[0].shape_), ctx, in, out[0], req);
}

template <typename xpu>
void SplitV2Compute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  Copy<true, xpu>(SplitV2View(GetParam<SplitV2Param>(attrs), in[0].shape_), ctx, out, in[0], req);
}

// Inputs: one output gradient per part. Output: the data's gradient.
template <typename xpu>
void SplitV2BackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                            const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                            const std::vector<TBlob>& out) {
  Copy<false, xpu>(SplitV2View(GetParam<SplitV2Param>(attrs), out[0].shape_), ctx, in, out[0], req);
}

// Adds FCompute<xpu> to stack, SliceChannel, _split_v2 and their backward operators.
template <typename xpu>
void SetStackSplitCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("stack").set_attr<FCompute>(attr_name, FCompute(StackCompute<xpu>));
  RegisterOp("_backward_stack").set_attr<FCompute>(attr_name, FCompute(StackBackwardCompute<xpu>));
  RegisterOp("SliceChannel").set_attr<FCompute>(attr_name, FCompute(SplitCompute<xpu>));
  RegisterOp("_backward_SliceChannel")
      .set_attr<FCompute>(attr_name, FCompute(SplitBackwardCompute<xpu>));
  RegisterOp("_split_v2").set_attr<FCompute>(attr_name, FCompute(SplitV2Compute<xpu>));
  RegisterOp("_split_v2_backward")
      .set_attr<FCompute>(attr_name, FCompute(SplitV2BackwardCompute<xpu>));
}

}  // namespace stack_split
}  // namespace ops

#endif  // OPS_STACK_SPLIT_INL_H_
