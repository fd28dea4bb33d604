// ops/slice-inl.h: slice (alias crop), the elements from begin to end with a step along each
// of the first axes, Python's slicing rules (None, negative indices, negative steps, bounds
// clamped), written once for every device: the output reads the input through strides times
// the steps. Its gradient writes the output gradient back through the same view and zero
// elsewhere. _slice_assign and _slice_assign_scalar (NDArray's item assignment) write through
// the same view. slice.cc registers the CPU, slice.cu adds FCompute<gpu>.
#ifndef OPS_SLICE_INL_H_
#define OPS_SLICE_INL_H_

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <istream>
#include <iterator>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "dmlc/optional.h"
#include "dmlc/parameter.h"
#include "dmlc/strtonum.h"
#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"
#include "ops/strided_copy.h"
#include "ops/strided_index.h"

namespace ops {
namespace slice {

// A tuple of optional indices, "(0, None, -1)", as slice's begin, end and step take them.
struct OptionalIndices {
  std::vector<dmlc::optional<index_t>> items;
  size_t size() const { return items.size(); }
};

// Parses "(a, None, b)", "[a, b]", "()" or a single value; false when malformed.
inline bool ParseOptionalIndices(std::string_view text, OptionalIndices* out) {
  text = dmlc::TrimSpace(text);
  out->items.clear();
  if (text.empty()) return false;
  if (text.front() == '(' || text.front() == '[') {
    const char close = text.front() == '(' ? ')' : ']';
    if (text.size() < 2 || text.back() != close) return false;
    text = dmlc::TrimSpace(text.substr(1, text.size() - 2));
    if (text.empty()) return true;
    if (text.back() == ',') text = dmlc::TrimSpace(text.substr(0, text.size() - 1));  // "(3,)"
  }
  while (true) {
    const size_t comma = text.find(',');
    std::string item(dmlc::TrimSpace(text.substr(0, comma)));
    if (item == "None") {
      out->items.emplace_back();
    } else {
      if (!item.empty() && (item.back() == 'L' || item.back() == 'l')) item.pop_back();
      // The whole item must be the number: an embedded NUL ends strtoll's reading early (and
      // a C string there), so a partial read is refused, as is a number out of range.
      const char* first = item.c_str();
      char* end = nullptr;
      errno = 0;
      const long long value = std::strtoll(first, &end, 10);
      if (item.empty() || std::isspace(static_cast<unsigned char>(item[0])) ||
          end != first + item.size() || errno == ERANGE) {
        return false;
      }
      out->items.emplace_back(static_cast<index_t>(value));
    }
    if (comma == std::string_view::npos) return true;
    text = text.substr(comma + 1);
  }
}

// The whole rest of the stream is the tuple (a parameter's value); failbit when malformed.
inline std::istream& operator>>(std::istream& is, OptionalIndices& v) {
  const std::string text((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  if (!ParseOptionalIndices(text, &v)) is.setstate(std::ios::failbit);
  return is;
}

inline std::ostream& operator<<(std::ostream& os, const OptionalIndices& v) {
  os << '(';
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v.items[i];
  return os << (v.size() == 1 ? ",)" : ")");
}

}  // namespace slice
}  // namespace ops

namespace dmlc {
DMLC_DECLARE_TYPE_NAME(ops::slice::OptionalIndices, "tuple of <int or None>");
}  // namespace dmlc

namespace ops {
namespace slice {

struct SliceParam : public dmlc::Parameter<SliceParam> {
  OptionalIndices begin;
  OptionalIndices end;
  OptionalIndices step;
  DMLC_DECLARE_PARAMETER(SliceParam) {
    DMLC_DECLARE_FIELD(begin).describe(
        "Where each sliced axis starts (None: its start, or its end for a negative step).");
    DMLC_DECLARE_FIELD(end).describe(
        "Where each sliced axis stops, exclusive (None: past its end, or before its start for "
        "a negative step).");
    DMLC_DECLARE_FIELD(step)
        .set_default(OptionalIndices())
        .describe("The step along each sliced axis (None or empty: 1; never 0).");
  }
};

// The view of the input that slice reads: the output shape, and the input offset and the
// input strides (elements per output step) that read it.
struct SliceView {
  TShape shape;
  index_t base = 0;
  std::vector<index_t> strides;
};

// Bad parameters for this input (lengths that differ, more axes than the input has, a zero
// step) are dmlc::Errors naming the value and what is valid.
inline SliceView ViewOf(const SliceParam& param, const TShape& data) {
  const size_t n = param.begin.size();
  if (param.end.size() != n || (param.step.size() != 0 && param.step.size() != n)) {
    std::ostringstream os;
    os << "slice: begin " << param.begin << ", end " << param.end << " and step " << param.step
       << " must have the same length (step may be empty)";
    throw dmlc::Error(os.str());
  }
  if (static_cast<index_t>(n) > data.ndim()) {
    std::ostringstream os;
    os << "slice: begin " << param.begin << " names " << n << " axes; the input " << data << " has "
       << data.ndim();
    throw dmlc::Error(os.str());
  }
  SliceView view{data, 0, RowMajorStrides(data)};
  for (size_t d = 0; d < n; ++d) {
    const index_t len = data[d];
    const index_t step = param.step.size() && param.step.items[d] ? *param.step.items[d] : 1;
    if (step == 0) {
      std::ostringstream os;
      os << "slice: step " << param.step << " has 0 at axis " << d << "; a step is nonzero";
      throw dmlc::Error(os.str());
    }
    // Python's slice.indices: negative indices count from the end, then clamp to the axis
    // (to [0, len] going forward, to [-1, len - 1] going backward).
    const index_t low = step > 0 ? 0 : -1, high = step > 0 ? len : len - 1;
    auto resolve = [&](const dmlc::optional<index_t>& given, index_t fallback) {
      if (!given) return fallback;
      index_t at = *given < 0 ? *given + len : *given;
      return at < low ? low : (at > high ? high : at);
    };
    const index_t b = resolve(param.begin.items[d], step > 0 ? 0 : len - 1);
    const index_t e = resolve(param.end.items[d], step > 0 ? len : -1);
    // ceil(distance / |step|), in unsigned arithmetic: a step near 2^63 must not overflow.
    const uint64_t distance = step > 0 ? (e > b ? static_cast<uint64_t>(e - b) : 0)
                                       : (b > e ? static_cast<uint64_t>(b - e) : 0);
    const uint64_t magnitude =
        step > 0 ? static_cast<uint64_t>(step) : uint64_t{0} - static_cast<uint64_t>(step);
    const index_t count = distance == 0 ? 0 : static_cast<index_t>((distance - 1) / magnitude + 1);
    view.shape[d] = count;
    if (count > 0) view.base += b * view.strides[d];
    // Two or more elements: |step| < the axis, so the product stays in range.
    if (count > 1) view.strides[d] *= step;
  }
  return view;
}

struct SliceLikeParam : public dmlc::Parameter<SliceLikeParam> {
  TShape axes;
  DMLC_DECLARE_PARAMETER(SliceLikeParam) {
    DMLC_DECLARE_FIELD(axes).set_default(TShape()).describe(
        "The axes sliced to shape_like's extents (negative count from the end); empty: all.");
  }
};

// slice_like's view: the first shape_like[a] elements of each axis a it names.
inline SliceView LikeViewOf(const SliceLikeParam& param, const TShape& data, const TShape& like) {
  SliceView view{data, 0, RowMajorStrides(data)};
  std::vector<index_t> axes(param.axes.begin(), param.axes.end());
  if (axes.empty()) {
    if (like.ndim() != data.ndim()) {
      std::ostringstream os;
      os << "slice_like: shape_like " << like << " must have the rank of data " << data
         << " when no axes are given";
      throw dmlc::Error(os.str());
    }
    for (index_t a = 0; a < data.ndim(); ++a) axes.push_back(a);
  }
  for (const index_t given : axes) {
    // As MXNet: a negative axis counts from the end of data, and names the same axis of
    // shape_like.
    const int a = NormalizeAxis(given, data.ndim(), "axes");
    std::ostringstream os;
    if (a >= like.ndim()) {
      os << "slice_like: axis " << given << " is past shape_like " << like;
      throw dmlc::Error(os.str());
    }
    if (like[a] > data[a]) {
      os << "slice_like: axis " << given << " of shape_like " << like << " has extent " << like[a]
         << ", beyond data " << data << "'s " << data[a];
      throw dmlc::Error(os.str());
    }
    view.shape[a] = like[a];
  }
  return view;
}

// Forward: out = the view of data. Backward (input: out_grad; output: the data's gradient):
// the view of the gradient = out_grad, zero elsewhere (written) or left as it is (added).
template <typename xpu, bool kBackward>
void CopyView(const OpContext& ctx, const SliceView& view, const TBlob& in, OpReqType req,
              const TBlob& out) {
  if (req == kNullOp) return;
  const TBlob& data = kBackward ? out : in;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const auto at = StridedIndex<1>::Of(std::vector<index_t>(view.shape.begin(), view.shape.end()),
                                      {view.strides});
  MSHADOW_SGL_DBL_TYPE_SWITCH(data.type_flag_, DType, {
    if (!kBackward) {
      OPS_REQ_SWITCH(
          req, Req, { StridedGather<Req>(s, out.dptr<DType>(), in.dptr<DType>(), view.base, at); });
    } else {
      if (req != kAddTo) Flat<xpu, DType>(out, s) = DType(0);
      OPS_REQ_SWITCH(req, Req, {
        StridedScatter<Req>(s, out.dptr<DType>(), in.dptr<DType>(), view.base, at);
      });
    }
  });
}

template <typename xpu, bool kBackward>
void SliceCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& data = kBackward ? out[0].shape_ : in[0].shape_;
  CopyView<xpu, kBackward>(ctx, ViewOf(GetParam<SliceParam>(attrs), data), in[0], req[0], out[0]);
}

// slice_like (inputs data, shape_like) and its gradient (inputs out_grad, data, shape_like;
// shape_like's gradient is zero).
template <typename xpu>
void SliceLikeCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SliceView view = LikeViewOf(GetParam<SliceLikeParam>(attrs), in[0].shape_, in[1].shape_);
  CopyView<xpu, false>(ctx, view, in[0], req[0], out[0]);
}

template <typename xpu>
void SliceLikeBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SliceView view = LikeViewOf(GetParam<SliceLikeParam>(attrs), in[1].shape_, in[2].shape_);
  CopyView<xpu, true>(ctx, view, in[0], req[0], out[0]);
  ZeroGradientCompute<xpu>(attrs, ctx, {}, {req[1]}, {out[1]});
}

struct SliceAssignScalarParam : public dmlc::Parameter<SliceAssignScalarParam> {
  double scalar;
  OptionalIndices begin;
  OptionalIndices end;
  OptionalIndices step;
  DMLC_DECLARE_PARAMETER(SliceAssignScalarParam) {
    DMLC_DECLARE_FIELD(scalar).set_default(0).describe("The value the slice is set to.");
    DMLC_DECLARE_FIELD(begin).describe("As slice's begin.");
    DMLC_DECLARE_FIELD(end).describe("As slice's end.");
    DMLC_DECLARE_FIELD(step).set_default(OptionalIndices()).describe("As slice's step.");
  }
};

inline SliceParam SliceOf(const SliceAssignScalarParam& p) {
  SliceParam slice;
  slice.begin = p.begin;
  slice.end = p.end;
  slice.step = p.step;
  return slice;
}

// _slice_assign (inputs lhs, rhs) and _slice_assign_scalar (input lhs): out = lhs with its
// slice set to rhs or to the scalar. Written (lhs copied first) or in place; an addition is
// refused, as MXNet refuses it.
template <typename xpu, bool kScalar>
void SliceAssignCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  RefuseAddTo(attrs, req[0], "its output (write or in place)");
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const SliceView view =
      kScalar ? ViewOf(SliceOf(GetParam<SliceAssignScalarParam>(attrs)), in[0].shape_)
              : ViewOf(GetParam<SliceParam>(attrs), in[0].shape_);
  const auto at = StridedIndex<1>::Of(std::vector<index_t>(view.shape.begin(), view.shape.end()),
                                      {view.strides});
  MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL(out[0].type_flag_, DType, {  // copies: any type
    if (out[0].dptr_ != in[0].dptr_)
      Copy(Flat<xpu, DType>(out[0], s), Flat<xpu, DType>(in[0], s), s);
    if constexpr (kScalar) {
      StridedFill(s, out[0].dptr<DType>(),
                  static_cast<DType>(GetParam<SliceAssignScalarParam>(attrs).scalar), view.base,
                  at);
    } else {
      StridedScatter<kWriteTo>(s, out[0].dptr<DType>(), in[1].dptr<DType>(), view.base, at);
    }
  });
}

// Adds FCompute<xpu> to slice, slice_like and their backward operators.
template <typename xpu>
void SetSliceCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("slice").set_attr<FCompute>(attr_name, FCompute(SliceCompute<xpu, false>));
  RegisterOp("_backward_slice").set_attr<FCompute>(attr_name, FCompute(SliceCompute<xpu, true>));
  RegisterOp("slice_like").set_attr<FCompute>(attr_name, FCompute(SliceLikeCompute<xpu>));
  RegisterOp("_backward_slice_like")
      .set_attr<FCompute>(attr_name, FCompute(SliceLikeBackward<xpu>));
  RegisterOp("_slice_assign")
      .set_attr<FCompute>(attr_name, FCompute(SliceAssignCompute<xpu, false>));
  RegisterOp("_slice_assign_scalar")
      .set_attr<FCompute>(attr_name, FCompute(SliceAssignCompute<xpu, true>));
}

}  // namespace slice
}  // namespace ops

#endif  // OPS_SLICE_INL_H_
