// Reductions sum, mean, max, min, prod, nansum, nanprod over axes (axis: a tuple, None for
// all; keepdims; exclude) and the L1/L2 norm, with backward operators. The CPU kernels are here; the GPU's are
// in reduce.cu.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/tensor_blob.h"
#include "ops/kernel_util.h"
#include "ops/reduce-inl.h"
#include "ops/vector_loop.h"

namespace ops {
namespace reduce {
namespace {

template <typename Param>
bool ReduceShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const Param& param = GetParam<Param>(attrs);
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const std::vector<bool> reduced = ReducedAxes(param, static_cast<int>(data.ndim()));
  if (param.keepdims) {
    AssignOutputShape(out, 0, KeptShape(data, reduced));
    return true;
  }
  std::vector<index_t> dims;
  for (index_t d = 0; d < data.ndim(); ++d) {
    if (!reduced[d]) dims.push_back(data[d]);
  }
  if (dims.empty()) dims.push_back(1);  // every axis reduced: a (1,) result
  AssignOutputShape(out, 0, TShape(dims.begin(), dims.end()));
  return true;
}

// Elements per block when one long run is reduced to a single value: the blocks' results
// are reduced in order, so the split (and the result) does not depend on the thread count.
constexpr index_t kReduceAllBlock = 1 << 14;

using mshadow::op::identity;

// result[p] = reduction of Map(x) over row p of the (rows, width) array x: the engine's
// vectorized, threaded row reduction. A single long row is cut into blocks first, so that
// threads share it.
template <typename Red, typename Map, typename DType>
void ReduceRows(const DType* x, index_t rows, index_t width, DType* result) {
  using mshadow::Shape1;
  using mshadow::Shape2;
  if (rows == 1 && width >= 2 * kReduceAllBlock) {
    const index_t blocks = width / kReduceAllBlock, tail = width - blocks * kReduceAllBlock;
    std::vector<DType> partial(blocks + (tail > 0 ? 1 : 0));
    ReduceRows<Red, Map>(x, blocks, kReduceAllBlock, partial.data());
    if (tail > 0) {
      ReduceRows<Red, Map>(x + blocks * kReduceAllBlock, 1, tail, &partial[blocks]);
    }
    ReduceRows<Red, identity>(partial.data(), 1, static_cast<index_t>(partial.size()), result);
    return;
  }
  Tensor<cpu, 1, DType> dst(result, Shape1(rows));
  const Tensor<cpu, 2, DType> src(const_cast<DType*>(x), Shape2(rows, width));
  mshadow::MapReduceKeepHighDim<mshadow::sv::saveto, Red, 0>(&dst, Mapped<Map>(src));
}

// result[q][k] = reduction over j of Map(x[q][j][k]) for the (outer, rows, width) array x:
// the engine's vectorized, threaded column reduction per slice, slices over threads when
// many.
template <typename Red, typename Map, typename DType>
void ReduceColumns(const DType* x, index_t outer, index_t rows, index_t width, DType* result) {
  auto slice = [&](index_t q) {
    Tensor<cpu, 1, DType> dst(result + q * width, mshadow::Shape1(width));
    const Tensor<cpu, 2, DType> src(const_cast<DType*>(x + q * rows * width),
                                    mshadow::Shape2(rows, width));
    mshadow::MapReduceKeepLowest<mshadow::sv::saveto, Red>(&dst, Mapped<Map>(src));
  };
  if (outer == 1) {
    slice(0);
    return;
  }
  // Several slices: each on one thread (a reduction nested in a ParallelFor runs serially).
  ParallelRows(outer, rows * width, [&](index_t begin, index_t end) {
    for (index_t q = begin; q < end; ++q) slice(q);
  });
}

// Reduces Map(x) (x's axes form `runs`) into result, one reduced run at a time from the
// innermost: a reduced run that is innermost is a row reduction, one followed by a kept run
// a column reduction. Each pass reads the previous pass's (smaller) result; only the first
// maps its elements.
template <typename Red, typename Map, typename DType>
void ReduceRuns(const DType* x, AxisRuns runs, DType* result, index_t result_size) {
  std::vector<DType> buffers[2];
  const DType* src = x;
  for (int pass = 0;; ++pass) {
    int last_reduced = static_cast<int>(runs.dims.size()) - 1;
    while (last_reduced >= 0 && !runs.reduced[last_reduced]) --last_reduced;
    if (last_reduced < 0) {  // nothing left to reduce
      if (pass == 0) {  // nothing was: only unit axes are reduced
        for (index_t i = 0; i < result_size; ++i) result[i] = Map::Map(x[i]);
        return;
      }
      break;
    }
    index_t outer = 1, inner = 1;
    for (int r = 0; r < last_reduced; ++r) outer *= runs.dims[r];
    for (size_t r = last_reduced + 1; r < runs.dims.size(); ++r) inner *= runs.dims[r];
    std::vector<DType>& out = buffers[pass % 2];
    out.resize(outer * inner);
    const bool first = pass == 0;
    if (inner == 1) {
      (first ? ReduceRows<Red, Map, DType> : ReduceRows<Red, identity, DType>)(
          src, outer, runs.dims[last_reduced], out.data());
    } else {
      (first ? ReduceColumns<Red, Map, DType> : ReduceColumns<Red, identity, DType>)(
          src, outer, runs.dims[last_reduced], inner, out.data());
    }
    AxisRuns next;
    for (size_t r = 0; r < runs.dims.size(); ++r) {
      if (static_cast<int>(r) != last_reduced) next.Push(runs.dims[r], runs.reduced[r]);
    }
    runs = next;
    src = out.data();
  }
  if (src != result) std::copy(src, src + result_size, result);
}

template <Reducer kReducer>
void ReduceCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TShape& shape = in[0].shape_;
  const std::vector<bool> reduced =
      ReducedAxes(GetParam<ParamOf<kReducer>>(attrs), static_cast<int>(shape.ndim()));
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const index_t n = out[0].Size();
    auto acc = ctx.requested[0].get_space_typed<cpu, 1, DType>(Shape1(n), nullptr);
    if (shape.Size() == 0) {  // an empty reduction: the reducer's identity
      DType identity;
      EngineReducer<kReducer>::SetInitValue(identity);
      acc = identity;
    } else {
      ReduceRuns<EngineReducer<kReducer>, ElementMap<kReducer>>(
          in[0].dptr<DType>(), RunsOf(shape, reduced), acc.dptr_, n);
    }
    if (kReducer == Reducer::kMean && n > 0) acc /= static_cast<DType>(shape.Size() / n);
    using Finish = std::conditional_t<kReducer == Reducer::kNorm2, mshadow::op::sqrt, identity>;
    Assign(Flat<DType>(out[0]), req[0], mshadow::expr::F<Finish>(acc));
  });
}

// Inputs: out_grad, x, y; dx = ReduceGradient(g, x, y). Written a piece of a row of x at a
// time: along the innermost run of axes, g (and y) is either one value (the run is reduced)
// or a contiguous row (the run is kept). sum and mean, which only copy or scale g, and the
// norms from one value (L1: g * sign(x); L2: x * (g / y)) are vectorized.
template <Reducer kReducer, bool kAdd, typename DType>
void BroadcastGradientRow(const DType* g, const DType* x, const DType* y, DType* dx,
                          index_t width, bool g_is_row, DType scale) {
  if constexpr (kReducer == Reducer::kSum || kReducer == Reducer::kMean) {
    vec::ForEach<DType>(width, [&](index_t i, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      const P grad = g_is_row ? P::LoadUnAligned(g + i) : P::Fill(g[0]);
      vec::Store<kAdd>(dx + i, kReducer == Reducer::kMean ? grad * P::Fill(scale) : grad);
    });
    return;
  } else if constexpr (kReducer == Reducer::kNorm1) {
    if (!g_is_row) {  // g where x > 0, -g where x < 0, 0 at 0 (and NaN): no branches
      vec::ForEach<DType>(width, [&](index_t i, auto tag) {
        using P = vec::PacketOf<decltype(tag)>;
        const P v = P::LoadUnAligned(x + i), grad = P::Fill(g[0]), zero = P::Fill(DType(0));
        vec::Store<kAdd>(dx + i, SelectNonNegative(v, grad, zero) +
                                     SelectNonNegative(Negate(v), Negate(grad), zero));
      });
      return;
    }
  } else if constexpr (kReducer == Reducer::kNorm2) {
    if (!g_is_row) {
      const DType factor = y[0] == DType(0) ? DType(0) : g[0] / y[0];
      vec::ForEach<DType>(width, [&](index_t i, auto tag) {
        using P = vec::PacketOf<decltype(tag)>;
        vec::Store<kAdd>(dx + i, P::LoadUnAligned(x + i) * P::Fill(factor));
      });
      return;
    }
  }
  for (index_t i = 0; i < width; ++i) {
    const index_t at = g_is_row ? i : 0;
    const DType grad = ReduceGradient<kReducer>(g[at], x[i], y[at], scale);
    dx[i] = kAdd ? dx[i] + grad : grad;
  }
}

template <Reducer kReducer>
void ReduceBackwardCompute(const NodeAttrs& attrs, const OpContext&,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  const TShape& shape = out[0].shape_;
  if (shape.Size() == 0) return;
  const std::vector<bool> reduced =
      ReducedAxes(GetParam<ParamOf<kReducer>>(attrs), static_cast<int>(shape.ndim()));
  const AxisRuns runs = RunsOf(shape, reduced);
  // Rows along the innermost run; each row's offset in g from the other runs' coordinates.
  const int last = static_cast<int>(runs.dims.size()) - 1;
  const index_t width = last >= 0 ? runs.dims[last] : 1;
  const bool g_is_row = last >= 0 && !runs.reduced[last];
  std::vector<index_t> g_strides(runs.dims.size(), 0);
  for (index_t r = last, stride = 1; r >= 0; --r) {
    if (!runs.reduced[r]) {
      g_strides[r] = stride;
      stride *= runs.dims[r];
    }
  }
  // Rows cut into pieces, so that threads share a few long rows (a reduction of everything
  // is one row).
  const index_t piece = std::min(width, kReduceAllBlock);
  const index_t pieces_per_row = (width + piece - 1) / piece;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    const DType* y = in[2].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    const DType scale =
        DType(1) / static_cast<DType>(shape.Size() / std::max<index_t>(1, in[0].Size()));
    vec::WithReq(req[0], [&](auto add) {
      const index_t pieces = shape.Size() / width * pieces_per_row;
      ParallelRows(pieces, piece, [&](index_t begin, index_t end) {
        for (index_t item = begin; item < end; ++item) {
          const index_t row = item / pieces_per_row;
          const index_t start = item % pieces_per_row * piece;
          index_t rest = row, at = g_is_row ? start : 0;
          for (int r = last - 1; r >= 0; --r) {
            at += rest % runs.dims[r] * g_strides[r];
            rest /= runs.dims[r];
          }
          const index_t x_at = row * width + start;
          BroadcastGradientRow<kReducer, decltype(add)::value>(
              g + at, x + x_at, y + at, dx + x_at, std::min(piece, width - start), g_is_row,
              scale);
        }
      });
    });
  });
}

template <typename Param>
void DefineReduce(const std::string& name, const std::string& description, FCompute forward,
                  FCompute backward) {
  const std::string backward_name = "_backward_" + name;
  Op& op = RegisterOp(name)
               .describe(description)
               .set_num_inputs(1)
               .set_num_outputs(1)
               .add_argument("data", "NDArray-or-Symbol", "The input array.")
               .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
               .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
               .set_attr<FCompute>("FCompute<cpu>", std::move(forward))
               .set_attr<FGradient>("FGradient", FGradient{backward_name, true, true});
  // Separate statements: calls with an argument that depends on Param.
  op.add_arguments(Param::__FIELDS__());
  op.set_attr_parser(ParamParser<Param>);
  op.set_attr<FInferShape>("FInferShape", ReduceShape<Param>);
  Op& backward_op = RegisterOp(backward_name)
                        .describe("Gradient of " + name + ".")
                        .set_num_inputs(3)
                        .set_num_outputs(1)
                        .set_attr<bool>("TIsBackward", true)
                        .set_attr<FCompute>("FCompute<cpu>", std::move(backward));
  backward_op.set_attr_parser(ParamParser<Param>);
}

const bool kRegistered = [] {
  ForEachReduce([](auto reducer, const char* name, const char* description) {
    constexpr Reducer kReducer = decltype(reducer)::value;
    DefineReduce<ReduceParam>(name, description, ReduceCompute<kReducer>,
                              ReduceBackwardCompute<kReducer>);
  });
  for (const char* name : {"sum", "max", "min"}) {  // MXNet's older names
    RegisterOp(name).add_alias(std::string(name) + "_axis");
  }
  DefineReduce<NormParam>(
      "norm",
      "The L1 (ord=1: sum of |x|) or L2 (ord=2: square root of the sum of x * x) norm over "
      "the given axes.",
      ByNormOrder(ReduceCompute<Reducer::kNorm1>, ReduceCompute<Reducer::kNorm2>),
      ByNormOrder(ReduceBackwardCompute<Reducer::kNorm1>, ReduceBackwardCompute<Reducer::kNorm2>));
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(ReduceParam);
DMLC_REGISTER_PARAMETER(NormParam);

}  // namespace reduce
}  // namespace ops
