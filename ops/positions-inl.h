// ops/positions-inl.h: MXNet 1.9.1's arrays of positions over another array's shape, written
// once for every device: _contrib_arange_like (start + step * (i / repeat) for every element,
// or along one axis: BERT's position ids) and _contrib_index_array (each element's
// coordinates). Both have MXNet's zero gradient. positions.cc registers them with
// FCompute<cpu>; positions.cu adds FCompute<gpu>.
#ifndef OPS_POSITIONS_INL_H_
#define OPS_POSITIONS_INL_H_

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/creation-inl.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace positions {

struct ArangeLikeParam : public dmlc::Parameter<ArangeLikeParam> {
  double start;
  double step;
  int repeat;
  std::string ctx;
  dmlc::optional<int> axis;
  DMLC_DECLARE_PARAMETER(ArangeLikeParam) {
    DMLC_DECLARE_FIELD(start).set_default(0.0).describe("The first value.");
    DMLC_DECLARE_FIELD(step).set_default(1.0).describe("The spacing.");
    DMLC_DECLARE_FIELD(repeat).set_default(1).set_lower_bound(1).describe(
        "How many times each value repeats.");
    DMLC_DECLARE_FIELD(ctx).set_default("").describe(
        "Accepted for MXNet compatibility; the host places the output.");
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>())
        .describe("The axis whose length the output has; None: the input's whole shape.");
  }
};

struct IndexArrayParam : public dmlc::Parameter<IndexArrayParam> {
  dmlc::optional<TShape> axes;
  DMLC_DECLARE_PARAMETER(IndexArrayParam) {
    DMLC_DECLARE_FIELD(axes)
        .set_default(dmlc::optional<TShape>())
        .describe("The axes whose coordinates are given, in this order; None: every axis.");
  }
};

// The input's axes and the coordinates index_array writes of each element.
struct CoordinateLayout {
  static constexpr int kMaxAxes = 10;
  int ndim = 0;
  index_t extent[kMaxAxes] = {};
  int picked = 0;
  int axis[kMaxAxes] = {};  // the axes written, in order
};

// Element i's coordinates along the picked axes, int64.
template <int kReq>
struct index_array_element {
  MSHADOW_XINLINE static void Map(index_t i, int64_t* out, CoordinateLayout l) {
    index_t coordinate[CoordinateLayout::kMaxAxes];
    index_t rest = i;
    for (int d = l.ndim - 1; d >= 0; --d) {
      coordinate[d] = rest % l.extent[d];
      rest /= l.extent[d];
    }
    for (int a = 0; a < l.picked; ++a) {
      AssignReq<kReq>(out + i * l.picked + a, static_cast<int64_t>(coordinate[l.axis[a]]));
    }
  }
};

CoordinateLayout CoordinateLayoutOf(const IndexArrayParam& p, const TShape& data);

template <typename xpu>
void ArangeLikeCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ArangeLikeParam& p = GetParam<ArangeLikeParam>(attrs);
  const index_t repeat = p.repeat;
  const auto args = [&](auto tag) {
    using DType = decltype(tag);
    return std::make_tuple(static_cast<DType>(p.start), static_cast<DType>(p.step), repeat);
  };
  creation::LaunchValues<xpu, creation::repeated_arange_value>(ctx, req[0], out[0], args);
}

template <typename xpu>
void IndexArrayCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const CoordinateLayout l = CoordinateLayoutOf(GetParam<IndexArrayParam>(attrs), in[0].shape_);
  OPS_REQ_SWITCH(req[0], kReq, {
    Kernel<index_array_element<kReq>, xpu>::Launch(ctx.get_stream<xpu>(), in[0].Size(),
                                                   out[0].dptr<int64_t>(), l);
  });
}

// Adds FCompute<xpu> to both operators and their zero gradients.
template <typename xpu>
void SetPositionsCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_arange_like")
      .set_attr<FCompute>(attr_name, FCompute(ArangeLikeCompute<xpu>));
  RegisterOp("_contrib_index_array")
      .set_attr<FCompute>(attr_name, FCompute(IndexArrayCompute<xpu>));
  for (const char* backward : {"_backward_contrib_arange_like", "_backward_contrib_index_array"}) {
    RegisterOp(backward).set_attr<FCompute>(attr_name, FCompute(ZeroGradientCompute<xpu>));
  }
}

}  // namespace positions
}  // namespace ops

#endif  // OPS_POSITIONS_INL_H_
