// mshadow/tensor_cpu-inl.h: the CPU backend: Stream<cpu>, host memory (mshadow/cpu/), the
// OpenBLAS dot engine, and evaluation of expressions: MapExp (elementwise assignment in one
// fused loop, SIMD packets and threads) and the reductions MapReduceKeepLowest/KeepHighDim.
#ifndef MSHADOW_TENSOR_CPU_INL_H_
#define MSHADOW_TENSOR_CPU_INL_H_

#include <algorithm>
#include <type_traits>
#include <vector>

#include "mshadow/cpu/blas_engine.h"
#include "mshadow/cpu/packet_executor.h"
#include "mshadow/cpu/stream.h"
#include "mshadow/cpu/tensor_alloc.h"
#include "mshadow/expr/packet_plan.h"
#include "mshadow/parallel.h"
#include "mshadow/tensor_core.h"

namespace mshadow {

// Threads for work over `elements` elements split into `items` independent parts (rows, blocks,
// outputs): none beyond what the work pays for (expr::kMinElementsPerThread each).
inline int ThreadsFor(index_t elements, index_t items) {
  return static_cast<int>(std::min<index_t>(
      {GetNumThreads(), elements / expr::kMinElementsPerThread, items}));
}

// Evaluates `plan` into dst with Saver, walking dst's 2-D view row by row; spans of its
// elements (whole rows, or parts of one: a flat tensor is a single row) go to threads when each
// gets expr::kMinElementsPerThread elements or more. Every destination element is written by
// exactly one thread, so results do not depend on the thread count. The inner loop is a plain
// counted loop over contiguous destination elements so the compiler can vectorize it.
template <typename Saver, typename R, int dim, typename DType, typename E>
inline void MapPlan(TRValue<R, cpu, dim, DType>* dst, const expr::Plan<E, DType>& plan) {
  const Shape<2> shape = expr::ShapeCheck<dim, R>::Check(dst->self()).FlatTo2D();
  const index_t width = shape[1], total = shape[0] * width;
  if (total == 0) return;
  // Elements [begin, end) in row-major order.
  auto map_span = [&](index_t begin, index_t end) {
    expr::Plan<R, DType> dplan = expr::MakePlan(dst->self());
    for (index_t i = begin; i < end;) {
      const index_t y = i / width, first = i % width;
      const index_t last = std::min(width, first + (end - i));
      for (index_t x = first; x < last; ++x) {
        Saver::template Save<DType>(dplan.REval(y, x), plan.Eval(y, x));
      }
      i += last - first;
    }
  };
  const int threads = ThreadsFor(total, total);
  if (threads <= 1) {
    map_span(0, total);
    return;
  }
  ParallelFor(threads, threads, [&](index_t part) {
    map_span(total * part / threads, total * (part + 1) / threads);
  });
}

// dst Saver= exp, elementwise. The expression's device and rank are checked at compile time
// and its shape at run time (dmlc::Error naming both shapes). Expressions whose every node
// has a packet form run through MapPacketPlan (SIMD, MSHADOW_DEFAULT_PACKET); the others
// one element at a time.
template <typename Saver, typename R, int dim, typename DType, typename E, int etype>
inline void MapExp(TRValue<R, cpu, dim, DType>* dst, const expr::Exp<E, DType, etype>& exp) {
  expr::CheckMapAssignment<cpu, dim, DType>(dst->self(), exp.self());
  constexpr auto kArch = MSHADOW_DEFAULT_PACKET;
  if constexpr (expr::PacketCheck<E, kArch>::kPass &&
                std::is_base_of_v<Tensor<cpu, dim, DType>, R>) {
    expr::MapPacketPlan<Saver>(static_cast<const Tensor<cpu, dim, DType>&>(dst->self()),
                               expr::MakePacketPlan<kArch>(exp.self()));
  } else {
    using expr::MakePlan;  // unqualified: ADL finds the MakePlan of extensions declared later
    MapPlan<Saver>(dst, MakePlan(exp.self()));
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
//
// Threads: tall inputs are cut into blocks of rows, each reduced into its own row of
// partial results, which are then reduced in block order; short, wide inputs are cut into
// column ranges. The cut depends on the shape alone, so results are the same for any
// thread count.
template <typename Saver, typename Reducer, typename R, typename DType, typename E, int etype>
inline void MapReduceKeepLowest(TRValue<R, cpu, 1, DType>* dst,
                                const expr::Exp<E, DType, etype>& exp, DType scale = 1) {
  const Shape<2> eshape = expr::CheckReduceKeepLowest<cpu, DType>(dst->self(), exp.self());
  const index_t rows = eshape[0], width = eshape[1];
  // Row blocks: at most 64, of at least 16 rows and kMinElementsPerThread elements each, so
  // that the partial results stay under 1/16 of the input.
  const index_t blocks = std::max<index_t>(
      1, std::min<index_t>({64, rows / 16, rows * width / expr::kMinElementsPerThread}));
  // Accumulators (blocks rows of width) in a per-thread buffer that only grows: no
  // allocation per call. (Plans are pure, so no reduction runs inside another on the same
  // thread.) Worker threads share the calling thread's buffer, each its own part.
  DType* const acc = static_cast<DType*>(
      ThreadScratch(static_cast<size_t>(blocks) * static_cast<size_t>(width) * sizeof(DType)));
  constexpr auto kArch = MSHADOW_DEFAULT_PACKET;
  using P = packet::Packet<DType, kArch>;
  constexpr bool kPacketReduce =
      expr::PacketCheck<E, kArch>::kPass && PacketReducer<Reducer>::kEnabled;
  [[maybe_unused]] const index_t vector_end = kPacketReduce ? width / P::kSize * P::kSize : 0;
  const auto packet_plan = [&] {
    if constexpr (kPacketReduce) {
      return expr::MakePacketPlan<kArch>(exp.self());
    } else {
      return 0;  // unused
    }
  }();
  using expr::MakePlan;  // unqualified: ADL finds the MakePlan of extensions declared later
  const expr::Plan<E, DType> scalar_plan = MakePlan(exp.self());
  // sums[x] = Reduce over rows [row_begin, row_end) of exp[y][x], for x in [begin, end):
  // packets up to vector_end, then one element at a time.
  auto reduce_block = [&](DType* const sums, index_t row_begin, index_t row_end, index_t begin,
                          index_t end) {
    index_t scalar_begin = begin;
    if constexpr (kPacketReduce) {
      // A local copy stays in registers (see MapPacketRange); the closure's members would
      // be reloaded after every vector store, which may alias anything.
      const auto plan = packet_plan;
      const index_t stop = std::min(end, vector_end);
      DType init;
      Reducer::SetInitValue(init);
      for (index_t x = begin; x < stop; x += P::kSize) P::Fill(init).StoreUnAligned(sums + x);
      using Reduce = PacketReducer<Reducer>;
      const bool in_cache = rows * width * static_cast<index_t>(sizeof(DType)) <= (256 << 10);
      index_t x = begin;
      if (in_cache) {
        // Strips of kStrip packets held in registers down all the rows: one load per input
        // packet, no loads or stores of sums inside, and kStrip independent chains of adds
        // to hide their latency. Each column still adds its rows in order.
        constexpr index_t kStrip = 8;
        for (; x + kStrip * P::kSize <= stop; x += kStrip * P::kSize) {
          P strip[kStrip];
#pragma GCC unroll 8
          for (index_t i = 0; i < kStrip; ++i) strip[i] = P::Fill(init);
          for (index_t y = row_begin; y < row_end; ++y) {
#pragma GCC unroll 8
            for (index_t i = 0; i < kStrip; ++i) {
              strip[i] = Reduce::Reduce(strip[i], plan.EvalPacket(y, x + i * P::kSize));
            }
          }
#pragma GCC unroll 8
          for (index_t i = 0; i < kStrip; ++i) strip[i].StoreUnAligned(sums + x + i * P::kSize);
        }
      }
      // Row by row over what is left (all of it from memory, where a single stream
      // prefetches better than strips measured).
      for (index_t y = row_begin; y < row_end; ++y) {
        for (index_t column = x; column < stop; column += P::kSize) {
          Reduce::Reduce(P::LoadUnAligned(sums + column), plan.EvalPacket(y, column))
              .StoreUnAligned(sums + column);
        }
      }
      scalar_begin = std::max(begin, stop);
    }
    for (index_t x = scalar_begin; x < end; ++x) Reducer::SetInitValue(sums[x]);
    for (index_t y = row_begin; y < row_end; ++y) {
      for (index_t x = scalar_begin; x < end; ++x) Reducer::Reduce(sums[x], scalar_plan.Eval(y, x));
    }
  };
  if (blocks > 1) {
    ParallelFor(blocks, ThreadsFor(rows * width, blocks), [&](index_t b) {
      reduce_block(acc + b * width, rows * b / blocks, rows * (b + 1) / blocks, 0, width);
    });
    for (index_t b = 1; b < blocks; ++b) {
      const DType* partial = acc + b * width;
      for (index_t x = 0; x < width; ++x) Reducer::Reduce(acc[x], partial[x]);
    }
  } else {
    const index_t packets = (width + P::kSize - 1) / P::kSize;
    const int threads = std::max(1, ThreadsFor(rows * width, packets));
    const index_t chunk = (packets + threads - 1) / threads * P::kSize;
    ParallelFor(threads, threads, [&](index_t part) {
      const index_t begin = std::min(width, part * chunk);
      reduce_block(acc, 0, rows, begin, std::min(width, begin + chunk));
    });
  }
  index_t saved = 0;
  if constexpr (std::is_base_of_v<Tensor<cpu, 1, DType>, R>) {  // contiguous: save packets
    DType* const out = static_cast<const Tensor<cpu, 1, DType>&>(dst->self()).dptr_;
    for (; saved + P::kSize <= width; saved += P::kSize) {
      packet::Saver<Saver, DType, kArch>::Save(out + saved,
                                               P::LoadUnAligned(acc + saved) * P::Fill(scale));
    }
  }
  expr::Plan<R, DType> dst_plan = expr::MakePlan(dst->self());
  for (index_t x = saved; x < width; ++x) {
    Saver::template Save<DType>(dst_plan.REval(0, x), acc[x] * scale);
  }
}

// dst[c] Saver= scale * Reduce over every index but dimension dimkeep of exp. dimkeep must be
// below the lowest dimension (use MapReduceKeepLowest for that).
template <typename Saver, typename Reducer, int dimkeep, typename R, typename DType, typename E,
          int etype>
inline void MapReduceKeepHighDim(TRValue<R, cpu, 1, DType>* dst,
                                 const expr::Exp<E, DType, etype>& exp, DType scale = 1) {
  constexpr int kSrcDim = expr::ExpInfo<E>::kDim;
  const Shape<kSrcDim> eshape =
      expr::CheckReduceKeepHighDim<cpu, dimkeep, DType>(dst->self(), exp.self());
  // View the expression as (outer, kept, inner rows, width).
  const index_t outer = eshape.ProdShape(0, dimkeep);
  const index_t kept = eshape[dimkeep];
  const index_t inner = eshape.ProdShape(dimkeep + 1, kSrcDim - 1);
  const index_t width = eshape[kSrcDim - 1];
  using expr::MakePlan;  // unqualified: ADL finds the MakePlan of extensions declared later
  const expr::Plan<E, DType> splan = MakePlan(exp.self());
  const expr::Plan<R, DType> dplan = expr::MakePlan(dst->self());
  constexpr auto kArch = MSHADOW_DEFAULT_PACKET;
  // Reducers with a packet form take packets of partial results per row, merged at the row's
  // end (sums through the packet's own Sum, the others lane by lane).
  constexpr bool kPacketReduce =
      expr::PacketCheck<E, kArch>::kPass && PacketReducer<Reducer>::kEnabled;
  [[maybe_unused]] const auto packet_plan = [&] {
    if constexpr (kPacketReduce) {
      return expr::MakePacketPlan<kArch>(exp.self());
    } else {
      return 0;  // unused
    }
  }();
  // One kept index per item, each reduced in the same order for any thread count.
  auto reduce_kept = [&](index_t c) MSHADOW_CINLINE_LAMBDA {
    const auto local_plan = packet_plan;  // stays in registers (see MapPacketRange)
    DType res;
    Reducer::SetInitValue(res);
    for (index_t n = 0; n < outer; ++n) {
      for (index_t i = 0; i < inner; ++i) {
        const index_t row = (n * kept + c) * inner + i;
        index_t x = 0;
        if constexpr (kPacketReduce) {
          using P = packet::Packet<DType, kArch>;
          using Reduce = PacketReducer<Reducer>;
          // Four packets of partial results: four independent chains, so the loop runs at the
          // rate of the loads, not at one operation's latency per packet.
          constexpr index_t kChains = 4;
          static_assert(kChains == 4, "the chains are merged pairwise below");
          DType init;
          Reducer::SetInitValue(init);
          P partial[kChains];
#pragma GCC unroll 4
          for (index_t i = 0; i < kChains; ++i) partial[i] = P::Fill(init);
          for (; x + kChains * P::kSize <= width; x += kChains * P::kSize) {
#pragma GCC unroll 4
            for (index_t i = 0; i < kChains; ++i) {
              partial[i] = Reduce::Reduce(partial[i], local_plan.EvalPacket(row, x + i * P::kSize));
            }
          }
          for (; x + P::kSize <= width; x += P::kSize) {
            partial[0] = Reduce::Reduce(partial[0], local_plan.EvalPacket(row, x));
          }
          const P merged = Reduce::Reduce(Reduce::Reduce(partial[0], partial[1]),
                                          Reduce::Reduce(partial[2], partial[3]));
          if constexpr (std::is_same_v<Reducer, red::sum>) {
            res += merged.Sum();
          } else {
            alignas(64) DType lanes[P::kSize];
            merged.StoreUnAligned(lanes);
            for (index_t k = 0; k < P::kSize; ++k) Reducer::Reduce(res, lanes[k]);
          }
        }
        for (; x < width; ++x) Reducer::Reduce(res, splan.Eval(row, x));
      }
    }
    expr::Plan<R, DType> out = dplan;
    Saver::template Save<DType>(out.REval(0, c), res * scale);
  };
  ParallelFor(kept, ThreadsFor(outer * kept * inner * width, kept), reduce_kept);
}

}  // namespace mshadow

#endif  // MSHADOW_TENSOR_CPU_INL_H_
