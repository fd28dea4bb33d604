// ops/gather_nd-inl.h: gather_nd and scatter_nd and their backward operators, written once for
// every device, with MXNet 1.9.1's semantics. indices (M, Y...) address the first M axes of an
// array X (X0, ..., X(N-1)); each of its Y columns picks one slab X[i0, ..., i(M-1), :]:
//   gather_nd(data, indices)          out (Y..., XM, ...) = the picked slabs of data
//   scatter_nd(data, indices, shape)  out (shape) = zeros, with data's slabs at the picked places
// An index is truncated toward zero, a negative one counts from the end (-1 is the last); one
// outside [-Xm, Xm) is a dmlc::Error naming it (the indices are read on the host first, as
// take's mode raise does; MXNet 1.9.1 raises on the CPU). scatter_nd with a place picked twice
// keeps one of the slabs (the CPU: the last; MXNet leaves it undefined). The gradients: of
// gather_nd, a sum of the output gradient's slabs onto the picked places (atomics on the GPU,
// a pass per column without them on the CPU); of scatter_nd, a gather; indices get none.
// gather_nd.cc registers the CPU, gather_nd.cu adds FCompute<gpu>.
#ifndef OPS_GATHER_ND_INL_H_
#define OPS_GATHER_ND_INL_H_

#include <algorithm>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/index_type.h"
#include "ops/infer_util.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace gather_nd {

struct ScatterNDParam : public dmlc::Parameter<ScatterNDParam> {
  TShape shape;
  DMLC_DECLARE_PARAMETER(ScatterNDParam) {
    DMLC_DECLARE_FIELD(shape).describe("The output's shape.");
  }
};

// The most axes indices may address (MXNet's limit too).
constexpr int kMaxIndexedAxes = 10;

// How the Y columns of indices address the slabs of X: axis m's extent and its stride in
// slabs; Y columns; `slab` elements a slab.
struct Addressing {
  int m;
  index_t extent[kMaxIndexedAxes];
  index_t stride[kMaxIndexedAxes];
  index_t columns, slab;

  // The slab column y picks (its indices valid: CheckIndices ran).
  template <typename IType>
  MSHADOW_XINLINE index_t SlabOf(const IType* indices, index_t y) const {
    index_t at = 0;
    for (int a = 0; a < m; ++a) {
      index_t i = static_cast<index_t>(indices[a * columns + y]);
      if (i < 0) i += extent[a];
      at += i * stride[a];
    }
    return at;
  }
};

// Addressing of `array` (X) by `indices` (M, Y...); a shape that does not fit is a dmlc::Error.
Addressing AddressingOf(const TShape& array, const TShape& indices, const char* op);

// Every index inside its axis, or a dmlc::Error naming the first that is not.
template <typename xpu, typename IType>
void CheckIndices(const Addressing& a, const TBlob& indices, mshadow::Stream<xpu>* s,
                  const char* op) {
  WithIndicesOnHost<xpu, IType>(indices, s, [&](const IType* values, index_t) {
    for (int axis = 0; axis < a.m; ++axis) {
      // Truncated toward zero, an index i is valid where -extent <= i < extent.
      const IType* row = values + axis * a.columns;
      const double n = static_cast<double>(a.extent[axis]);
      const index_t y = FirstOutside(row, a.columns, -n - 1, n);
      if (y == a.columns) continue;
      std::ostringstream os;
      os << op << ": index " << static_cast<double>(row[y]) << " (row " << axis << ", column " << y
         << " of indices) is outside axis " << axis << " of extent " << a.extent[axis]
         << " (valid: " << -a.extent[axis] << " to " << a.extent[axis] - 1 << ")";
      throw dmlc::Error(os.str());
    }
  });
}

// Item i of the gathered (Y, slab) array: element i % slab of the slab column i / slab picks.
struct gather_slab {
  template <typename DType, typename IType>
  MSHADOW_XINLINE static void Map(index_t i, OpReqType req, Addressing a, const DType* from,
                                  const IType* indices, DType* out) {
    const index_t y = i / a.slab, e = i % a.slab;
    AssignReq(out + i, from[a.SlabOf(indices, y) * a.slab + e], req);
  }
};

// CPU item y, a column of indices: its slab copied whole (memcpy-sized for a wide slab), no
// division per element. The addressing by reference: by value, GCC copied its 184 bytes with
// a call to memcpy for every column (17% of a scalar gather's time).
template <int kReq>
struct gather_slab_column {
  template <typename DType, typename IType>
  static void Map(index_t y, const Addressing& a, const DType* from, const IType* indices,
                  DType* out) {
    const DType* slab = from + a.SlabOf(indices, y) * a.slab;
    DType* to = out + y * a.slab;
    if (a.slab == 1) {
      AssignReq<kReq>(to, *slab);
    } else {
      CopyRun<kReq == kAddTo>(to, slab, a.slab);
    }
  }
};

// out (the (Y, slab) array, as req says) = the slabs of `from` (the indexed array X) that
// indices pick.
template <typename xpu, typename DType, typename IType>
void Gather(mshadow::Stream<xpu>* s, const Addressing& a, const DType* from, const IType* indices,
            DType* out, OpReqType req) {
  if constexpr (std::is_same_v<xpu, cpu>) {
    OPS_REQ_SWITCH(req, Req, {
      Kernel<gather_slab_column<Req>, cpu>::LaunchItems(s, a.columns, a.slab, a, from, indices,
                                                        out);
    });
  } else {
    Kernel<gather_slab, xpu>::Launch(s, a.columns * a.slab, req, a, from, indices, out);
  }
}

// GPU item i of the (Y, slab) array: added (or written) onto the place its column picks.
template <bool kAdd>
struct scatter_slab_atomic {
  template <typename DType, typename IType>
  MSHADOW_XINLINE static void Map(index_t i, Addressing a, const DType* from, const IType* indices,
                                  DType* out) {
    DType* at = out + a.SlabOf(indices, i / a.slab) * a.slab + i % a.slab;
    if (!kAdd) {
      *at = from[i];
      return;
    }
#ifdef __CUDA_ARCH__
    atomicAdd(at, from[i]);
#else
    *at += from[i];
#endif
  }
};

// CPU item r, the run [r * kRun, (r + 1) * kRun) of element positions within a slab: every
// column's run copied (kAdd: added) onto its place, the columns in order, so items touch
// disjoint elements and repeated places resolve the same way on any thread count. A run is
// 4 KiB of floats: whole copies, and a wide slab's runs spread over the threads.
template <bool kAdd>
struct scatter_slab_run {
  static constexpr index_t kRun = 1024;
  template <typename DType, typename IType>
  static void Map(index_t r, const Addressing& a, const DType* from, const IType* indices,
                  DType* out) {
    const index_t begin = r * kRun, n = std::min(kRun, a.slab - begin);
    for (index_t y = 0; y < a.columns; ++y) {
      DType* to = out + a.SlabOf(indices, y) * a.slab + begin;
      const DType* run = from + y * a.slab + begin;
      if (n == 1) {
        *to = kAdd ? *to + *run : *run;
      } else {
        CopyRun<kAdd>(to, run, n);
      }
    }
  }
};

// out (the indexed array X) = 0 for kWriteTo, then the (Y, slab) array `from` written (kAdd:
// added) onto the places indices pick; kAddTo adds onto out as it is.
template <bool kAdd, typename xpu, typename DType, typename IType>
void Scatter(mshadow::Stream<xpu>* s, const Addressing& a, const DType* from, const IType* indices,
             const TBlob& out, OpReqType req) {
  if (req == kNullOp) return;
  if (req != kAddTo) {
    Assign(out.FlatTo2D<xpu, DType>(s), kWriteTo, mshadow::expr::scalar<DType>(0));
  }
  DType* to = out.dptr<DType>();
  auto launch = [&](auto add) {
    constexpr bool kAddSlabs = decltype(add)::value;
    if constexpr (std::is_same_v<xpu, cpu>) {
      using Run = scatter_slab_run<kAddSlabs>;
      Kernel<Run, cpu>::LaunchItems(s, (a.slab + Run::kRun - 1) / Run::kRun,
                                    a.columns * std::min(a.slab, Run::kRun), a, from, indices, to);
    } else {
      Kernel<scatter_slab_atomic<kAddSlabs>, xpu>::Launch(s, a.columns * a.slab, a, from, indices,
                                                          to);
    }
  };
  if (kAdd || req == kAddTo) {
    launch(std::true_type());
  } else {
    launch(std::false_type());
  }
}

// fn(DType, IType) for data's and indices' types.
template <typename Fn>
void WithTypes(const TBlob& data, const TBlob& indices, Fn&& fn) {
  MSHADOW_SGL_DBL_TYPE_SWITCH(data.type_flag_, DType, {
    WithIndexType(indices.type_flag_,
                  [&](auto tag) { fn(DType(), typename decltype(tag)::type()); });
  });
}

// gather_nd: inputs data, indices; output the gathered slabs.
template <typename xpu>
void GatherNDCompute(const NodeAttrs& /*attrs*/, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const Addressing a = AddressingOf(in[0].shape_, in[1].shape_, "gather_nd");
  WithTypes(in[0], in[1], [&](auto dtype, auto itype) {
    using DType = decltype(dtype);
    using IType = decltype(itype);
    CheckIndices<xpu, IType>(a, in[1], s, "gather_nd");
    Gather(s, a, in[0].dptr<DType>(), in[1].dptr<IType>(), out[0].dptr<DType>(), req[0]);
  });
}

// scatter_nd: inputs data, indices; output (shape) with data's slabs placed.
template <typename xpu>
void ScatterNDCompute(const NodeAttrs& /*attrs*/, const OpContext& ctx,
                      const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                      const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const Addressing a = AddressingOf(out[0].shape_, in[1].shape_, "scatter_nd");
  WithTypes(in[0], in[1], [&](auto dtype, auto itype) {
    using DType = decltype(dtype);
    using IType = decltype(itype);
    CheckIndices<xpu, IType>(a, in[1], s, "scatter_nd");
    Scatter<false>(s, a, in[0].dptr<DType>(), in[1].dptr<IType>(), out[0], req[0]);
  });
}

// Zeros for the indices' gradient.
template <typename xpu>
void ZeroIndexGradient(mshadow::Stream<xpu>* s, const TBlob& grad, OpReqType req) {
  WithIndexType(grad.type_flag_, [&](auto tag) {
    using IType = typename decltype(tag)::type;
    Assign(grad.FlatTo2D<xpu, IType>(s), req, mshadow::expr::scalar<IType>(0));
  });
}

// Backward of gather_nd: inputs dy, data, indices; outputs d data (dy's slabs summed onto the
// picked places), d indices (zeros).
template <typename xpu>
void GatherNDBackwardCompute(const NodeAttrs& /*attrs*/, const OpContext& ctx,
                             const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                             const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const Addressing a = AddressingOf(in[1].shape_, in[2].shape_, "gather_nd");
  WithTypes(in[1], in[2], [&](auto dtype, auto itype) {
    using DType = decltype(dtype);
    using IType = decltype(itype);
    Scatter<true>(s, a, in[0].dptr<DType>(), in[2].dptr<IType>(), out[0], req[0]);
  });
  ZeroIndexGradient(s, out[1], req[1]);
}

// Backward of scatter_nd: inputs dy, data, indices; outputs d data (dy's picked slabs),
// d indices (zeros). A place picked twice passes its gradient to every slab written there.
template <typename xpu>
void ScatterNDBackwardCompute(const NodeAttrs& /*attrs*/, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const Addressing a = AddressingOf(in[0].shape_, in[2].shape_, "scatter_nd");
  WithTypes(in[1], in[2], [&](auto dtype, auto itype) {
    using DType = decltype(dtype);
    using IType = decltype(itype);
    Gather(s, a, in[0].dptr<DType>(), in[2].dptr<IType>(), out[0].dptr<DType>(), req[0]);
  });
  ZeroIndexGradient(s, out[1], req[1]);
}

// Adds FCompute<xpu> to gather_nd, scatter_nd and their backward operators.
template <typename xpu>
void SetGatherNDCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("gather_nd").set_attr<FCompute>(attr_name, FCompute(GatherNDCompute<xpu>));
  RegisterOp("scatter_nd").set_attr<FCompute>(attr_name, FCompute(ScatterNDCompute<xpu>));
  RegisterOp("_backward_gather_nd")
      .set_attr<FCompute>(attr_name, FCompute(GatherNDBackwardCompute<xpu>));
  RegisterOp("_backward_scatter_nd")
      .set_attr<FCompute>(attr_name, FCompute(ScatterNDBackwardCompute<xpu>));
}

}  // namespace gather_nd
}  // namespace ops

#endif  // OPS_GATHER_ND_INL_H_
