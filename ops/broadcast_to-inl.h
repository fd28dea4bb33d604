// ops/broadcast_to-inl.h: the operators that copy their input along new or stretched axes,
// broadcast_to, broadcast_like, broadcast_axis, tile and repeat, written once for every device.
// Each is a broadcast between two views of equal rank (the input's, with extent 1 on the axes it is
// copied along, and the output's): tile's input (a, b) by reps (r, s) is the view
// (1, a, 1, b) broadcast to (r, a, s, b). The gradient sums over those axes, through the
// registered sum operator of the device. broadcast_to.cc registers the CPU,
// broadcast_to.cu adds FCompute<gpu>.
#ifndef OPS_BROADCAST_TO_INL_H_
#define OPS_BROADCAST_TO_INL_H_

#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/strided_index.h"
#include "ops/strided_loop.h"

namespace ops {
namespace broadcast_to {

struct BroadcastToParam : public dmlc::Parameter<BroadcastToParam> {
  TShape shape;
  DMLC_DECLARE_PARAMETER(BroadcastToParam) {
    DMLC_DECLARE_FIELD(shape).set_default(TShape()).describe(
        "The target shape, of the input's rank; 0 keeps the input's extent.");
  }
};

struct BroadcastLikeParam : public dmlc::Parameter<BroadcastLikeParam> {
  dmlc::optional<TShape> lhs_axes;
  dmlc::optional<TShape> rhs_axes;
  DMLC_DECLARE_PARAMETER(BroadcastLikeParam) {
    DMLC_DECLARE_FIELD(lhs_axes)
        .set_default(dmlc::optional<TShape>())
        .describe("The axes of lhs to broadcast; None: all, to rhs's shape.");
    DMLC_DECLARE_FIELD(rhs_axes)
        .set_default(dmlc::optional<TShape>())
        .describe("The axes of rhs whose extents lhs_axes take.");
  }
};

struct BroadcastAxesParam : public dmlc::Parameter<BroadcastAxesParam> {
  TShape axis;
  TShape size;
  DMLC_DECLARE_PARAMETER(BroadcastAxesParam) {
    DMLC_DECLARE_FIELD(axis).set_default(TShape()).describe(
        "The axes to broadcast along (each of extent 1 in the input; negative counts from the "
        "end).");
    DMLC_DECLARE_FIELD(size).set_default(TShape()).describe(
        "The extent each of those axes takes, as many as axes.");
  }
};

struct TileParam : public dmlc::Parameter<TileParam> {
  TShape reps;
  DMLC_DECLARE_PARAMETER(TileParam) {
    DMLC_DECLARE_FIELD(reps).describe(
        "Copies along each axis; the shorter of reps and the shape is padded with leading 1s.");
  }
};

struct RepeatParam : public dmlc::Parameter<RepeatParam> {
  int repeats;
  dmlc::optional<int> axis;
  DMLC_DECLARE_PARAMETER(RepeatParam) {
    DMLC_DECLARE_FIELD(repeats).set_lower_bound(1).describe(
        "Copies of each element (at least 1: this library has no empty arrays).");
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>())
        .describe("The axis to repeat along; None repeats the flattened input.");
  }
};

// The input's view (extent 1 on the axes it is copied along) and the output's, equal rank.
struct Views {
  std::vector<index_t> in, out;
};

// Adjacent axes merged where both are copied along or both are kept, and axes of output
// extent 1 dropped, so that a kernel's index space has few axes.
inline Views Merged(const Views& v) {
  Views m;
  for (size_t d = 0; d < v.out.size(); ++d) {
    if (v.out[d] == 1) continue;
    const bool copied = v.in[d] == 1;
    if (!m.out.empty() && (m.in.back() == 1) == copied && (copied || m.in.back() == m.out.back())) {
      m.in.back() *= v.in[d];
      m.out.back() *= v.out[d];
    } else {
      m.in.push_back(v.in[d]);
      m.out.push_back(v.out[d]);
    }
  }
  if (m.out.empty()) m = Views{{1}, {1}};
  return m;
}

// out[i] = in[the element output i copies] (the GPU's forward).
template <int kReq>
struct broadcast_copy {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* in, StridedIndex<1> at) {
    index_t off[1];
    at.Offsets(i, off);
    AssignReq<kReq>(out + i, in[off[0]]);
  }
};

// The CPU's forward (broadcast_to.cc): rows of the merged views, each piece of a row one copy
// or one fill.
void BroadcastForwardCpu(const Views& views, const TBlob& in, OpReqType req, const TBlob& out);

template <typename xpu>
void BroadcastForward(const OpContext& ctx, const Views& views, const TBlob& in, OpReqType req,
                      const TBlob& out) {
  if constexpr (std::is_same_v<xpu, cpu>) {
    BroadcastForwardCpu(views, in, req, out);
  } else {
    const Views v = Merged(views);
    const TShape in_shape(v.in.begin(), v.in.end()), out_shape(v.out.begin(), v.out.end());
    const auto at = StridedIndex<1>::Of(v.out, {BroadcastStrides(in_shape, out_shape)});
    MSHADOW_SGL_DBL_TYPE_SWITCH(out.type_flag_, DType, {
      OPS_REQ_SWITCH(req, Req, {
        Kernel<broadcast_copy<Req>, xpu>::Launch(ctx.get_stream<xpu>(), out.Size(),
                                                 out.dptr<DType>(), in.dptr<DType>(), at);
      });
    });
  }
}

// in_grad = out_grad summed over the copied axes (the device's sum operator, which takes the
// backward operator's temporary space).
template <typename xpu>
void BroadcastBackward(const OpContext& ctx, const Views& views, const TBlob& out_grad,
                       OpReqType req, const TBlob& in_grad) {
  const Views v = Merged(views);
  std::vector<index_t> copied;
  for (size_t d = 0; d < v.out.size(); ++d) {
    if (v.in[d] != v.out[d]) copied.push_back(static_cast<index_t>(d));
  }
  if (copied.empty()) {  // nothing was copied: the gradient is the output gradient
    mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
    MSHADOW_SGL_DBL_TYPE_SWITCH(in_grad.type_flag_, DType, {
      Assign(Flat<xpu, DType>(in_grad, s), req,
             mshadow::expr::F<mshadow::op::identity>(Flat<xpu, DType>(out_grad, s)));
    });
    return;
  }
  std::ostringstream axes;
  axes << TShape(copied.begin(), copied.end());
  const Op* sum = Op::Get("sum");
  const NodeAttrs attrs = ParseAttrs(sum, {{"axis", axes.str()}, {"keepdims", "True"}});
  const TShape in_shape(v.in.begin(), v.in.end()), out_shape(v.out.begin(), v.out.end());
  (*sum->compute<xpu>())(
      attrs, ctx, {TBlob(out_grad.dptr_, out_shape, out_grad.dev_mask_, out_grad.type_flag_)},
      {req}, {TBlob(in_grad.dptr_, in_shape, in_grad.dev_mask_, in_grad.type_flag_)});
}

// ---- The views of each operator, from its parameters and the input's shape (errors name the
// operator's parameter).

Views BroadcastToViews(const BroadcastToParam& param, const TShape& data);
Views BroadcastLikeViews(const BroadcastLikeParam& param, const TShape& lhs, const TShape& rhs);
Views BroadcastAxesViews(const BroadcastAxesParam& param, const TShape& data);
Views TileViews(const TileParam& param, const TShape& data);
Views RepeatViews(const RepeatParam& param, const TShape& data);

// The computations: the forward operator broadcasts input 0 into output 0; the backward
// operator (inputs: out_grad, then the forward inputs) sums into input 0's gradient and
// writes zero to the others' (broadcast_like's rhs).
template <typename xpu, typename Param, Views (*kViews)(const Param&, const TShape&)>
void UnaryForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  BroadcastForward<xpu>(ctx, kViews(GetParam<Param>(attrs), in[0].shape_), in[0], req[0], out[0]);
}

template <typename xpu, typename Param, Views (*kViews)(const Param&, const TShape&)>
void UnaryBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  BroadcastBackward<xpu>(ctx, kViews(GetParam<Param>(attrs), in[1].shape_), in[0], req[0], out[0]);
}

template <typename xpu>
void BroadcastLikeForward(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  BroadcastForward<xpu>(
      ctx, BroadcastLikeViews(GetParam<BroadcastLikeParam>(attrs), in[0].shape_, in[1].shape_),
      in[0], req[0], out[0]);
}

template <typename xpu>
void BroadcastLikeBackward(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  BroadcastBackward<xpu>(
      ctx, BroadcastLikeViews(GetParam<BroadcastLikeParam>(attrs), in[1].shape_, in[2].shape_),
      in[0], req[0], out[0]);
  if (req[1] == kWriteTo || req[1] == kWriteInplace) {
    mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
    MSHADOW_SGL_DBL_TYPE_SWITCH(out[1].type_flag_, DType, { Flat<xpu, DType>(out[1], s) = DType(0); });
  }
}

// Adds FCompute<xpu> to every operator of the family and its backward operator.
template <typename xpu>
void SetBroadcastToCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  auto set = [attr_name](const char* name, FCompute forward, FCompute backward) {
    RegisterOp(name).set_attr<FCompute>(attr_name, forward);
    RegisterOp(std::string("_backward_") + name).set_attr<FCompute>(attr_name, backward);
  };
  set("broadcast_to", UnaryForward<xpu, BroadcastToParam, BroadcastToViews>,
      UnaryBackward<xpu, BroadcastToParam, BroadcastToViews>);
  set("tile", UnaryForward<xpu, TileParam, TileViews>, UnaryBackward<xpu, TileParam, TileViews>);
  set("repeat", UnaryForward<xpu, RepeatParam, RepeatViews>,
      UnaryBackward<xpu, RepeatParam, RepeatViews>);
  set("broadcast_axis", UnaryForward<xpu, BroadcastAxesParam, BroadcastAxesViews>,
      UnaryBackward<xpu, BroadcastAxesParam, BroadcastAxesViews>);
  set("broadcast_like", BroadcastLikeForward<xpu>, BroadcastLikeBackward<xpu>);
}

}  // namespace broadcast_to
}  // namespace ops

#endif  // OPS_BROADCAST_TO_INL_H_
