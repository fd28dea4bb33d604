// FCompute<gpu> of the reductions (sum, mean, max, min, prod, nansum, nanprod, norm) and
// their backward operators. A reduction over the innermost axes, or over the outermost with the
// rest kept, goes to mshadow's GPU reductions (a block per kept index, or 32-column tiles);
// any other pattern runs one thread per output element. The gradient is one thread per
// input element.
#include <string>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/reduce-inl.h"
#include "ops/strided_index.h"
#include "ops/strided_loop.h"

namespace ops {
namespace reduce {
namespace {

using mshadow::Shape2;

// out[j] = scale * the reduction of ElemMap(in) over the positions `summed` from j's offset.
template <typename Red, typename ElemMap, int kReq>
struct reduce_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t j, DType* out, const DType* in, StridedIndex<1> kept,
                                  StridedIndex<1> summed, DType scale) {
    index_t base, off;
    kept.Offsets(j, &base);
    DType acc;
    Red::SetInitValue(acc);
    const index_t count = summed.Size();
    for (index_t r = 0; r < count; ++r) {
      summed.Offsets(r, &off);
      Red::Reduce(acc, ElemMap::Map(in[base + off]));
    }
    AssignReq<kReq>(out + j, acc * scale);
  }
};

// dx[i] = ReduceGradient of g, x and y at i's output element.
template <Reducer kReducer, int kReq>
struct reduce_grad_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* dx, const DType* g, const DType* x,
                                  const DType* y, StridedIndex<1> at, DType scale) {
    index_t o;
    at.Offsets(i, &o);
    AssignReq<kReq>(dx + i, ReduceGradient<kReducer>(g[o], x[i], y[o], scale));
  }
};

// fn(saver) with mshadow's saver for the write mode (saveto or plusto).
template <typename Fn>
void WithSaver(OpReqType req, Fn&& fn) {
  if (req == kAddTo) {
    fn(mshadow::sv::plusto());
  } else {
    fn(mshadow::sv::saveto());
  }
}

template <Reducer kReducer>
void ReduceComputeGpu(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  using Red = EngineReducer<kReducer>;
  using Map = ElementMap<kReducer>;
  using mshadow::expr::F;
  if (req[0] == kNullOp) return;
  const TShape& shape = in[0].shape_;
  const std::vector<bool> reduced =
      ReducedAxes(GetParam<ParamOf<kReducer>>(attrs), static_cast<int>(shape.ndim()));
  const AxisRuns runs = RunsOf(shape, reduced);
  const size_t k = runs.dims.size();
  mshadow::Stream<gpu>* s = ctx.get_stream<gpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto dst = Flat<gpu, DType>(out[0], s);
    if (shape.Size() == 0) {  // an empty reduction: the reducer's identity
      DType identity;
      Red::SetInitValue(identity);
      Assign(dst, req[0], mshadow::expr::scalar<DType>(identity));
      return;
    }
    bool any_reduced = false;
    for (bool r : runs.reduced) any_reduced = any_reduced || r;
    if (!any_reduced) {  // only axes of extent 1 are reduced: each element alone
      using Alone = std::conditional_t<IsNorm(kReducer), mshadow::op::abs, mshadow::op::identity>;
      Assign(dst, req[0], F<Alone>(Flat<gpu, DType>(in[0], s)));
      return;
    }
    const DType scale = kReducer == Reducer::kMean
                            ? DType(1) / static_cast<DType>(shape.Size() / out[0].Size())
                            : DType(1);
    // The L2 norm takes a square root after the reduction: it reduces into scratch first.
    constexpr bool kFinish = kReducer == Reducer::kNorm2;
    auto sums = kFinish ? ctx.requested[0].get_space_typed<gpu, 1, DType>(dst.shape_, s) : dst;
    const OpReqType sums_req = kFinish ? kWriteTo : req[0];
    auto as_matrix = [&](index_t rows, index_t width) {
      return Tensor<gpu, 2, DType>(in[0].dptr<DType>(), Shape2(rows, width), s);
    };
    if (runs.reduced[k - 1] && k <= 2) {  // (kept,) reduced: a row reduction
      const auto matrix = as_matrix(k == 2 ? runs.dims[0] : 1, runs.dims[k - 1]);
      WithSaver(sums_req, [&](auto saver) {
        mshadow::MapReduceKeepHighDim<decltype(saver), Red, 0>(&sums, Mapped<Map>(matrix),
                                                               scale);
      });
    } else if (k == 2) {  // reduced, kept: a column reduction
      const auto matrix = as_matrix(runs.dims[0], runs.dims[1]);
      WithSaver(sums_req, [&](auto saver) {
        mshadow::MapReduceKeepLowest<decltype(saver), Red>(&sums, Mapped<Map>(matrix), scale);
      });
    } else {
      std::vector<index_t> kept(shape.ndim()), summed(shape.ndim());
      for (index_t d = 0; d < shape.ndim(); ++d) {
        kept[d] = reduced[d] ? 1 : shape[d];
        summed[d] = reduced[d] ? shape[d] : 1;
      }
      const std::vector<index_t> strides = RowMajorStrides(shape);
      const auto kept_index = StridedIndex<1>::Of(kept, {strides});
      const auto summed_index = StridedIndex<1>::Of(summed, {strides});
      OPS_REQ_SWITCH(sums_req, Req, {
        Kernel<reduce_kernel<Red, Map, Req>, gpu>::Launch(
            s, out[0].Size(), sums.dptr_, in[0].dptr<DType>(), kept_index, summed_index, scale);
      });
    }
    if constexpr (kFinish) Assign(dst, req[0], F<mshadow::op::sqrt>(sums));
  });
}

// Inputs: out_grad, x, y.
template <Reducer kReducer>
void ReduceBackwardComputeGpu(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const TShape& shape = out[0].shape_;
  if (shape.Size() == 0) return;
  const std::vector<bool> reduced =
      ReducedAxes(GetParam<ParamOf<kReducer>>(attrs), static_cast<int>(shape.ndim()));
  const std::vector<index_t> extents(shape.begin(), shape.end());
  const auto at =
      StridedIndex<1>::Of(extents, {BroadcastStrides(KeptShape(shape, reduced), shape)});
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType scale =
        DType(1) / static_cast<DType>(shape.Size() / std::max<index_t>(1, in[0].Size()));
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<reduce_grad_kernel<kReducer, Req>, gpu>::Launch(
          ctx.get_stream<gpu>(), shape.Size(), out[0].dptr<DType>(), in[0].dptr<DType>(),
          in[1].dptr<DType>(), in[2].dptr<DType>(), at, scale);
    });
  });
}

const bool kRegistered = [] {
  ForEachReduce([](auto reducer, const char* name, const char*) {
    constexpr Reducer kReducer = decltype(reducer)::value;
    RegisterOp(name).set_attr<FCompute>("FCompute<gpu>", FCompute(ReduceComputeGpu<kReducer>));
    RegisterOp(std::string("_backward_") + name)
        .set_attr<FCompute>("FCompute<gpu>", FCompute(ReduceBackwardComputeGpu<kReducer>));
  });
  RegisterOp("norm").set_attr<FCompute>(
      "FCompute<gpu>", ByNormOrder(ReduceComputeGpu<Reducer::kNorm1>,
                                   ReduceComputeGpu<Reducer::kNorm2>));
  RegisterOp("_backward_norm")
      .set_attr<FCompute>("FCompute<gpu>", ByNormOrder(ReduceBackwardComputeGpu<Reducer::kNorm1>,
                                                       ReduceBackwardComputeGpu<Reducer::kNorm2>));
  return true;
}();

}  // namespace
}  // namespace reduce
}  // namespace ops
