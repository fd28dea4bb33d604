// mshadow/tensor_cpu-inl.h: evaluation of expressions on the CPU: MapExp (elementwise
// assignment in one fused loop) and the reductions MapReduceKeepLowest/KeepHighDim.
#ifndef MSHADOW_TENSOR_CPU_INL_H_
#define MSHADOW_TENSOR_CPU_INL_H_

#include <type_traits>
#include <vector>

#include "mshadow/expr/packet_plan.h"
#include "mshadow/tensor_core.h"

namespace mshadow {

// Evaluates `plan` into dst with Saver, walking dst's 2-D view row by row. The inner loop
// is a plain counted loop over contiguous destination elements so the compiler can
// vectorize it.
template <typename Saver, typename R, int dim, typename DType, typename E>
inline void MapPlan(TRValue<R, cpu, dim, DType>* dst, const expr::Plan<E, DType>& plan) {
  const Shape<2> shape = expr::ShapeCheck<dim, R>::Check(dst->self()).FlatTo2D();
  expr::Plan<R, DType> dplan = expr::MakePlan(dst->self());
  for (index_t y = 0; y < shape[0]; ++y) {
    for (index_t x = 0; x < shape[1]; ++x) {
      Saver::template Save<DType>(dplan.REval(y, x), plan.Eval(y, x));
    }
  }
}

// dst Saver= exp, elementwise. The expression's device and rank are checked at compile time
// and its shape at run time (dmlc::Error naming both shapes). Expressions whose every node
// has a packet form run through MapPacketPlan (SIMD, MSHADOW_DEFAULT_PACKET); the others
// one element at a time.
template <typename Saver, typename R, int dim, typename DType, typename E, int etype>
inline void MapExp(TRValue<R, cpu, dim, DType>* dst, const expr::Exp<E, DType, etype>& exp) {
  expr::TypeCheckPass<expr::TypeCheck<cpu, dim, DType, E>::kMapPass>::
      Error_All_Tensor_in_Exp_Must_Have_Same_Type();
  if (expr::ExpInfo<E>::kDim != 0) {
    const Shape<dim> eshape = expr::ShapeCheck<dim, E>::Check(exp.self());
    const Shape<dim> dshape = expr::ShapeCheck<dim, R>::Check(dst->self());
    CHECK_EQ(eshape, dshape) << "Assignment: the expression's shape differs from the target's";
  }
  constexpr auto kArch = MSHADOW_DEFAULT_PACKET;
  if constexpr (expr::PacketCheck<E, kArch>::kPass &&
                std::is_base_of_v<Tensor<cpu, dim, DType>, R>) {
    expr::MapPacketPlan<Saver>(static_cast<const Tensor<cpu, dim, DType>&>(dst->self()),
                               expr::MakePacketPlan<kArch>(exp.self()));
  } else {
    MapPlan<Saver>(dst, expr::MakePlan(exp.self()));
  }
}

// The packet form of a reducer, where it has one.
template <typename Reducer>
struct PacketReducer {
  static constexpr bool kEnabled = false;
};
template <>
struct PacketReducer<red::sum> {
  static constexpr bool kEnabled = true;
  template <typename P>
  MSHADOW_CINLINE static P Reduce(const P& a, const P& b) { return a + b; }
};
template <>
struct PacketReducer<red::maximum> {
  static constexpr bool kEnabled = true;
  template <typename P>
  MSHADOW_CINLINE static P Reduce(const P& a, const P& b) { return packet::Max(a, b); }
};
template <>
struct PacketReducer<red::minimum> {
  static constexpr bool kEnabled = true;
  template <typename P>
  MSHADOW_CINLINE static P Reduce(const P& a, const P& b) { return packet::Min(a, b); }
};

// dst[x] Saver= scale * Reduce_y exp[y][x]: reduces every dimension except the lowest.
// The expression is read row by row (contiguously) into per-column accumulators, a packet
// at a time where the expression and the reducer have packet forms.
template <typename Saver, typename Reducer, typename R, typename DType, typename E, int etype>
inline void MapReduceKeepLowest(TRValue<R, cpu, 1, DType>* dst,
                                const expr::Exp<E, DType, etype>& exp, DType scale = 1) {
  expr::TypeCheckPass<expr::TypeCheck<cpu, 1, DType, E>::kRedPass>::
      Error_TypeCheck_Not_Pass_For_Reduce_Exp();
  constexpr int kSrcDim = expr::ExpInfo<E>::kDim;
  const Shape<2> eshape = expr::ShapeCheck<kSrcDim, E>::Check(exp.self()).FlatTo2D();
  const Shape<1> dshape = expr::ShapeCheck<1, R>::Check(dst->self());
  CHECK_EQ(eshape[1], dshape[0]) << "MapReduceKeepLowest: the expression's lowest dimension "
                                    "must equal the destination's length";
  const index_t width = eshape[1];
  // Accumulators in a per-thread buffer that only grows: no allocation per call. (Plans are
  // pure, so no reduction runs inside another on the same thread.)
  thread_local std::vector<DType> accumulators;
  if (static_cast<index_t>(accumulators.size()) < width) accumulators.resize(width);
  DType* acc = accumulators.data();
  for (index_t x = 0; x < width; ++x) Reducer::SetInitValue(acc[x]);
  constexpr auto kArch = MSHADOW_DEFAULT_PACKET;
  index_t vector_end = 0;
  if constexpr (expr::PacketCheck<E, kArch>::kPass && PacketReducer<Reducer>::kEnabled) {
    using P = packet::Packet<DType, kArch>;
    const auto plan = expr::MakePacketPlan<kArch>(exp.self());
    vector_end = width / P::kSize * P::kSize;
    for (index_t y = 0; y < eshape[0]; ++y) {
      for (index_t x = 0; x < vector_end; x += P::kSize) {
        PacketReducer<Reducer>::Reduce(P::LoadUnAligned(acc + x), plan.EvalPacket(y, x))
            .StoreUnAligned(acc + x);
      }
    }
  }
  const expr::Plan<E, DType> splan = expr::MakePlan(exp.self());
  for (index_t y = 0; y < eshape[0]; ++y) {
    for (index_t x = vector_end; x < width; ++x) Reducer::Reduce(acc[x], splan.Eval(y, x));
  }
  expr::Plan<R, DType> dplan = expr::MakePlan(dst->self());
  for (index_t x = 0; x < width; ++x) {
    Saver::template Save<DType>(dplan.REval(0, x), acc[x] * scale);
  }
}

// dst[c] Saver= scale * Reduce over every index but dimension dimkeep of exp. dimkeep must be
// below the lowest dimension (use MapReduceKeepLowest for that).
template <typename Saver, typename Reducer, int dimkeep, typename R, typename DType, typename E,
          int etype>
inline void MapReduceKeepHighDim(TRValue<R, cpu, 1, DType>* dst,
                                 const expr::Exp<E, DType, etype>& exp, DType scale = 1) {
  expr::TypeCheckPass<expr::TypeCheck<cpu, dimkeep, DType, E>::kRedPass>::
      Error_TypeCheck_Not_Pass_For_Reduce_Exp();
  constexpr int kSrcDim = expr::ExpInfo<E>::kDim;
  static_assert(0 <= dimkeep && dimkeep < kSrcDim - 1,
                "MapReduceKeepHighDim: dimkeep must be below the lowest dimension");
  const Shape<kSrcDim> eshape = expr::ShapeCheck<kSrcDim, E>::Check(exp.self());
  const Shape<1> dshape = expr::ShapeCheck<1, R>::Check(dst->self());
  CHECK_EQ(eshape[dimkeep], dshape[0]) << "MapReduceKeepHighDim: dimension " << dimkeep
                                       << " of the expression must equal the destination's length";
  // View the expression as (outer, kept, inner rows, width).
  const index_t outer = eshape.ProdShape(0, dimkeep);
  const index_t kept = eshape[dimkeep];
  const index_t inner = eshape.ProdShape(dimkeep + 1, kSrcDim - 1);
  const index_t width = eshape[kSrcDim - 1];
  const expr::Plan<E, DType> splan = expr::MakePlan(exp.self());
  expr::Plan<R, DType> dplan = expr::MakePlan(dst->self());
  constexpr auto kArch = MSHADOW_DEFAULT_PACKET;
  // Sums take a packet of partial sums per row, added up at the row's end.
  constexpr bool kPacketSum =
      expr::PacketCheck<E, kArch>::kPass && std::is_same_v<Reducer, red::sum>;
  [[maybe_unused]] const auto packet_plan = [&] {
    if constexpr (kPacketSum) {
      return expr::MakePacketPlan<kArch>(exp.self());
    } else {
      return 0;  // unused
    }
  }();
  for (index_t c = 0; c < kept; ++c) {
    DType res;
    Reducer::SetInitValue(res);
    for (index_t n = 0; n < outer; ++n) {
      for (index_t i = 0; i < inner; ++i) {
        const index_t row = (n * kept + c) * inner + i;
        index_t x = 0;
        if constexpr (kPacketSum) {
          using P = packet::Packet<DType, kArch>;
          const index_t vector_end = width / P::kSize * P::kSize;
          P partial = P::Fill(DType(0));
          for (; x < vector_end; x += P::kSize) {
            partial = partial + packet_plan.EvalPacket(row, x);
          }
          res += partial.Sum();
        }
        for (; x < width; ++x) Reducer::Reduce(res, splan.Eval(row, x));
      }
    }
    Saver::template Save<DType>(dplan.REval(0, c), res * scale);
  }
}

}  // namespace mshadow

#endif  // MSHADOW_TENSOR_CPU_INL_H_
