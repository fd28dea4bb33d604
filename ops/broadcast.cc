// Binary operators with NumPy broadcasting: broadcast_add, broadcast_sub, broadcast_mul,
// broadcast_div, and their backward operators, which sum gradients over broadcast axes. The
// CPU kernels are here; the GPU's are in broadcast.cu.
#include <algorithm>
#include <array>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/broadcast-inl.h"
#include "ops/kernel_util.h"
#include "ops/row_pieces.h"

namespace ops {
namespace broadcast {
namespace {

// NumPy's rule: align from the right; each pair of extents equal, or one of them 1.
bool BroadcastShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& lhs = (*in)[0];
  const TShape& rhs = (*in)[1];
  if (!ShapeIsKnown(lhs) || !ShapeIsKnown(rhs)) return false;
  const index_t ndim = std::max(lhs.ndim(), rhs.ndim());
  TShape result(ndim);
  for (index_t d = 0; d < ndim; ++d) {
    const index_t l = d < ndim - lhs.ndim() ? 1 : lhs[d - (ndim - lhs.ndim())];
    const index_t r = d < ndim - rhs.ndim() ? 1 : rhs[d - (ndim - rhs.ndim())];
    if (l != r && l != 1 && r != 1) {
      std::ostringstream os;
      os << "operands could not be broadcast together with shapes " << lhs << " " << rhs;
      throw dmlc::Error(os.str());
    }
    result[d] = l == 1 ? r : l;
  }
  AssignOutputShape(out, 0, result);
  return true;
}

// ---- The CPU kernels. The output's axes are merged (MergeAxes) into rows along which each
// operand either runs contiguously (step 1) or stays put (step 0); a row is computed by a
// loop the compiler vectorizes, a piece at a time (row_pieces.h).

// A sum over everything is taken in partial sums of about this many elements, whatever the
// number of threads, so that its rounding does not depend on it.
constexpr index_t kChunkElements = 1 << 16;

// Arrays of the loops: 0 the output (forward) or the output's gradient (backward), 1 lhs,
// 2 rhs; an input's gradient has its input's offsets.
using Axes = MergedAxes<3>;

template <index_t kStep>
using Step = std::integral_constant<index_t, kStep>;

// Calls fn(Step<lhs>(), Step<rhs>()) with the operands' steps along the rows: (1, 1), (1, 0)
// or (0, 1); a single element (no axes) is (1, 1).
template <typename Fn>
void WithInnerSteps(const Axes& axes, Fn&& fn) {
  if (axes.InnerStride(1) == 0 && axes.ndim() > 0) return fn(Step<0>(), Step<1>());
  if (axes.InnerStride(2) == 0 && axes.ndim() > 0) return fn(Step<1>(), Step<0>());
  fn(Step<1>(), Step<1>());
}

// The kernels of a piece take their write mode (vec::WithReq's) and the operands' steps
// (WithInnerSteps') as tags, so that each combination is a loop of its own.
// A functor with a packet form (power's and hypot's SLEEF calls, which the compiler cannot
// vectorize, the selects) runs a packet at a time on it, as the elementwise family's maps
// do; the rest of a piece, and functors without one, in the compiler's vectorized loop.
template <typename Forward, typename Add, typename LhsStep, typename RhsStep, typename DType>
void ForwardPiece(DType* y, const DType* lhs, const DType* rhs, index_t n, Add, LhsStep, RhsStep) {
  constexpr auto kArch = MSHADOW_DEFAULT_PACKET;
  index_t begin = 0;
  if constexpr (mshadow::expr::PacketCheck<DType, kArch>::kPass &&
                mshadow::packet::PacketOp<Forward, DType, kArch>::kEnabled) {
    using P = vec::Full<DType>;
    auto operand = [](const DType* x, index_t j, auto step) {
      return decltype(step)::value ? P::LoadUnAligned(x + j) : P::Fill(*x);
    };
    for (; begin + P::kSize <= n; begin += P::kSize) {
      vec::Store<Add::value>(y + begin,
                             mshadow::packet::PacketOp<Forward, DType, kArch>::Map(
                                 operand(lhs, begin, LhsStep()), operand(rhs, begin, RhsStep())));
    }
  }
  OPS_SIMD_LOOP
  for (index_t j = begin; j < n; ++j) {
    const DType value = Forward::Map(lhs[j * LhsStep::value], rhs[j * RhsStep::value]);
    y[j] = Add::value ? y[j] + value : value;
  }
}

// grad[j] (+)= og[j] * Grad(lhs, rhs): an input's gradient where it was not broadcast, or its
// sum over rows where it was broadcast along them (added into a zeroed gradient).
template <typename Grad, typename Add, typename LhsStep, typename RhsStep, typename DType>
void GradientPiece(DType* grad, const DType* og, const DType* lhs, const DType* rhs, index_t n, Add,
                   LhsStep, RhsStep) {
  OPS_SIMD_LOOP
  for (index_t j = 0; j < n; ++j) {
    const DType value = og[j] * Grad::Map(lhs[j * LhsStep::value], rhs[j * RhsStep::value]);
    grad[j] = Add::value ? grad[j] + value : value;
  }
}

// Both inputs' gradients where neither was broadcast: one pass over og.
template <typename OP, typename AddLhs, typename AddRhs, typename DType>
void GradientsPiece(DType* lhs_grad, DType* rhs_grad, const DType* og, const DType* lhs,
                    const DType* rhs, index_t n, AddLhs, AddRhs) {
  OPS_SIMD_LOOP
  for (index_t j = 0; j < n; ++j) {
    const DType g = og[j], a = lhs[j], b = rhs[j];  // read before either write (in place)
    const DType dl = g * OP::lhs_grad::Map(a, b), dr = g * OP::rhs_grad::Map(a, b);
    lhs_grad[j] = AddLhs::value ? lhs_grad[j] + dl : dl;
    rhs_grad[j] = AddRhs::value ? rhs_grad[j] + dr : dr;
  }
}

// The sum over j of og[j] * Grad(lhs, rhs): an input's gradient along a row it was
// broadcast along.
template <typename Grad, typename LhsStep, typename RhsStep, typename DType>
DType GradientSum(const DType* og, const DType* lhs, const DType* rhs, index_t n, LhsStep,
                  RhsStep) {
  DType sum(0);
  OPS_SIMD_SUM(sum)
  for (index_t j = 0; j < n; ++j) {
    sum += og[j] * Grad::Map(lhs[j * LhsStep::value], rhs[j * RhsStep::value]);
  }
  return sum;
}

template <typename OP>
void BroadcastCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& shape = out[0].shape_;
  if (shape.Size() == 0) return;
  const Axes axes =
      MergeAxes<3>(shape, {RowMajorStrides(shape), BroadcastStrides(in[0].shape_, shape),
                           BroadcastStrides(in[1].shape_, shape)});
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* y = out[0].dptr<DType>();
    const DType* lhs = in[0].dptr<DType>();
    const DType* rhs = in[1].dptr<DType>();
    vec::WithReq(req[0], [&](auto add) {
      WithInnerSteps(axes, [&](auto lhs_step, auto rhs_step) {
        ForEachPiece<DType>(axes, [&](const std::array<index_t, 3>& at, index_t j, index_t n) {
          ForwardPiece<typename OP::forward>(y + at[0] + j, lhs + at[1] + j * lhs_step,
                                             rhs + at[2] + j * rhs_step, n, add, lhs_step,
                                             rhs_step);
        });
      });
    });
  });
}

// An input's gradient summed over the axes it was broadcast along. Each thread owns a run of
// the gradient's elements and sums into them in the same order on any number of threads:
// the outer axes are reordered, those the input has (kept) first, so that a run of rows
// shares one kept position; along the rows, the input either runs (the rows' pieces are
// summed elementwise) or stays put (each row is summed). An input broadcast along every axis
// is one sum, taken in chunks of fixed size.
template <typename Grad, typename DType>
void SumBroadcastGradient(const Axes& axes, int side, DType* grad, const DType* og,
                          const DType* lhs, const DType* rhs) {
  const int k = 1 + side;
  Axes order;  // kept outer axes, then broadcast outer axes, then the row
  index_t kept_rows = 1, summed_rows = 1;
  for (bool kept : {true, false}) {
    for (int d = 0; d + 1 < axes.ndim(); ++d) {
      if ((axes.stride[k][d] != 0) != kept) continue;
      order.extent.push_back(axes.extent[d]);
      for (size_t a = 0; a < 3; ++a) order.stride[a].push_back(axes.stride[a][d]);
      (kept ? kept_rows : summed_rows) *= axes.extent[d];
    }
  }
  if (axes.ndim() > 0) {
    order.extent.push_back(axes.Inner());
    for (size_t a = 0; a < 3; ++a) order.stride[a].push_back(axes.InnerStride(a));
  }
  const index_t inner = order.Inner(), pieces = PiecesOf<DType>(inner);
  WithInnerSteps(order, [&](auto lhs_step, auto rhs_step) {
    auto at = [&](const std::array<index_t, 3>& offsets, index_t j, auto&& kernel) {
      return kernel(og + offsets[0] + j, lhs + offsets[1] + j * lhs_step,
                    rhs + offsets[2] + j * rhs_step);
    };
    if (order.InnerStride(k) != 0) {  // the input runs along the rows: pieces of rows
      ParallelRows(kept_rows * pieces, summed_rows * std::min(inner, kPiece<DType>),
                   [&](index_t begin, index_t end) {
                     for (index_t t = begin; t < end; ++t) {
                       const index_t j = (t % pieces) * kPiece<DType>;
                       const index_t n = std::min(kPiece<DType>, inner - j);
                       RowWalker<3> row(order, t / pieces * summed_rows);
                       DType* g = grad + row.offsets()[k] + j;
                       for (index_t r = 0; r < summed_rows; ++r, row.Next()) {
                         at(row.offsets(), j, [&](const DType* o, const DType* a, const DType* b) {
                           GradientPiece<Grad>(g, o, a, b, n, std::true_type(), lhs_step, rhs_step);
                         });
                       }
                     }
                   });
      return;
    }
    auto row_sum = [&](const std::array<index_t, 3>& offsets, index_t j, index_t n) {
      return at(offsets, j, [&](const DType* o, const DType* a, const DType* b) {
        return GradientSum<Grad>(o, a, b, n, lhs_step, rhs_step);
      });
    };
    if (kept_rows > 1) {  // the input stays put along the rows: a sum per kept position
      ParallelRows(kept_rows, summed_rows * inner, [&](index_t begin, index_t end) {
        for (index_t t = begin; t < end; ++t) {
          RowWalker<3> row(order, t * summed_rows);
          const index_t g = row.offsets()[k];
          DType sum(0);
          for (index_t r = 0; r < summed_rows; ++r, row.Next()) {
            sum += row_sum(row.offsets(), 0, inner);
          }
          grad[g] += sum;
        }
      });
      return;
    }
    // One sum over everything: partial sums of chunks of pieces, added in order.
    const index_t tasks = summed_rows * pieces;
    const index_t per_chunk = std::max<index_t>(1, kChunkElements / std::min(inner, kPiece<DType>));
    std::vector<DType> partial((tasks + per_chunk - 1) / per_chunk, DType(0));
    ParallelRows(static_cast<index_t>(partial.size()), per_chunk * std::min(inner, kPiece<DType>),
                 [&](index_t begin, index_t end) {
                   for (index_t c = begin; c < end; ++c) {
                     const index_t first = c * per_chunk, last = std::min(tasks, first + per_chunk);
                     RowWalker<3> row(order, first / pieces);
                     for (index_t t = first; t < last; ++t) {
                       const index_t j = (t % pieces) * kPiece<DType>;
                       partial[c] += row_sum(row.offsets(), j, std::min(kPiece<DType>, inner - j));
                       if (t % pieces == pieces - 1) row.Next();
                     }
                   }
                 });
    DType sum(0);
    for (DType p : partial) sum += p;
    grad[0] += sum;
  });
}

// Inputs: out_grad, lhs, rhs. Each input's gradient sums over the axes it was broadcast on.
template <typename OP>
void BroadcastBackwardCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                              const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const TShape& shape = in[0].shape_;
  const Axes axes =
      MergeAxes<3>(shape, {RowMajorStrides(shape), BroadcastStrides(in[1].shape_, shape),
                           BroadcastStrides(in[2].shape_, shape)});
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* og = in[0].dptr<DType>();
    const DType* lhs = in[1].dptr<DType>();
    const DType* rhs = in[2].dptr<DType>();
    DType* grads[2] = {out[0].dptr<DType>(), out[1].dptr<DType>()};
    if (shape.Size() == 0) {
      for (int side : {0, 1}) PrepareAccumulation<DType>(out[side], req[side]);
      return;
    }
    const bool runs[2] = {axes.Steps(1), axes.Steps(2)};
    if (runs[0] && runs[1] && req[0] != kNullOp && req[1] != kNullOp) {  // equal shapes
      vec::WithReq(req[0], [&](auto add_lhs) {
        vec::WithReq(req[1], [&](auto add_rhs) {
          ForEachPiece<DType>(axes, [&](const std::array<index_t, 3>& at, index_t j, index_t n) {
            GradientsPiece<OP>(grads[0] + at[0] + j, grads[1] + at[0] + j, og + at[0] + j,
                               lhs + at[1] + j, rhs + at[2] + j, n, add_lhs, add_rhs);
          });
        });
      });
      return;
    }
    auto each_side = [&](int side, auto grad_tag) {
      using Grad = typename decltype(grad_tag)::type;
      if (runs[side]) {  // not broadcast: elementwise
        vec::WithReq(req[side], [&](auto add) {
          WithInnerSteps(axes, [&](auto lhs_step, auto rhs_step) {
            ForEachPiece<DType>(axes, [&](const std::array<index_t, 3>& at, index_t j, index_t n) {
              GradientPiece<Grad>(grads[side] + at[0] + j, og + at[0] + j,
                                  lhs + at[1] + j * lhs_step, rhs + at[2] + j * rhs_step, n, add,
                                  lhs_step, rhs_step);
            });
          });
        });
      } else if (PrepareAccumulation<DType>(out[side], req[side])) {
        SumBroadcastGradient<Grad>(axes, side, grads[side], og, lhs, rhs);
      }
    };
    each_side(0, TypeTag<typename OP::lhs_grad>());
    each_side(1, TypeTag<typename OP::rhs_grad>());
  });
}

template <typename OP>
void DefineBroadcast(const std::string& name, const std::string& description) {
  const std::string backward = "_backward_" + name;
  Op& forward = RegisterOp(name)
                    .describe(description +
                              " Shapes broadcast as in NumPy: aligned from the last axis, each "
                              "pair of extents equal or one of them 1.")
                    .set_num_inputs(2)
                    .set_num_outputs(1)
                    .add_argument("lhs", "NDArray-or-Symbol", "First input.")
                    .add_argument("rhs", "NDArray-or-Symbol", "Second input.")
                    .set_attr<FInferShape>("FInferShape", BroadcastShape)
                    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>);
  forward.set_attr<FCompute>("FCompute<cpu>", FCompute(BroadcastCompute<OP>));
  forward.set_attr<FGradient>("FGradient", FGradient{backward, true, false});
  RegisterOp(backward)
      .describe("Gradient of " + name + ".")
      .set_num_inputs(3)
      .set_num_outputs(2)
      .set_attr<bool>("TIsBackward", true)
      .set_attr<FCompute>("FCompute<cpu>", arith::ZeroGradients<OP>::value
                                               ? FCompute(ZeroGradientCompute<cpu>)
                                               : FCompute(BroadcastBackwardCompute<OP>));
}

const bool kRegistered = [] {
  ForEachBroadcast([](auto op, const std::string& name, const std::string& description) {
    DefineBroadcast<typename decltype(op)::type>(name, description);
  });
  RegisterOp("broadcast_add").add_alias("broadcast_plus");
  RegisterOp("broadcast_sub").add_alias("broadcast_minus");
  return true;
}();

}  // namespace
}  // namespace broadcast
}  // namespace ops
