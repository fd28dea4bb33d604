// mshadow/expr/packet_plan.h: evaluating elementwise expressions a packet at a time.
//
// PacketPlan mirrors Plan: EvalPacket(y, x) computes elements x .. x + kSize - 1 of row y,
// Eval(y, x) one element. PacketCheck says at compile time whether every node of an
// expression has a packet form (float/double tensors and scalars, operators with a
// PacketOp); MapPacketPlan evaluates such an expression into a tensor: a vector loop over
// each row, then a scalar loop for the last width % kSize elements. Loads and stores are
// unaligned, so padded rows, column slices and odd widths all take the vector path;
// PacketAlignCheck still says whether everything is aligned, for callers that care.
//
//   if constexpr (PacketCheck<E, MSHADOW_DEFAULT_PACKET>::kPass) {
//     MapPacketPlan<sv::saveto>(&dst, MakePacketPlan<MSHADOW_DEFAULT_PACKET>(exp.self()));
//   }
#ifndef MSHADOW_EXPR_PACKET_PLAN_H_
#define MSHADOW_EXPR_PACKET_PLAN_H_

#include <algorithm>
#include <type_traits>

#include "mshadow/device.h"
#include "mshadow/expr/elementwise.h"
#include "mshadow/expr/rvalue.h"
#include "mshadow/expr/scalar.h"
#include "mshadow/expr/tensor_plan.h"
#include "mshadow/packet-inl.h"
#include "mshadow/parallel.h"
#include "mshadow/shape.h"
#include "mshadow/streaming_stores.h"

namespace mshadow {
namespace expr {

using packet::PacketArch;

template <typename ExpType, typename DType, PacketArch Arch>
class PacketPlan;

// A tensor (or container) read at dptr_[y * stride_ + x].
template <typename DType, PacketArch Arch>
class TensorPacketPlan {
 public:
  TensorPacketPlan(const DType* dptr, index_t stride) : dptr_(dptr), stride_(stride) {}
  MSHADOW_CINLINE packet::Packet<DType, Arch> EvalPacket(index_t y, index_t x) const {
    return packet::Packet<DType, Arch>::LoadUnAligned(dptr_ + y * stride_ + x);
  }
  MSHADOW_CINLINE DType Eval(index_t y, index_t x) const { return dptr_[y * stride_ + x]; }

 private:
  const DType* dptr_;
  index_t stride_;
};

template <typename Device, int dim, typename DType, PacketArch Arch>
class PacketPlan<Tensor<Device, dim, DType>, DType, Arch> : public TensorPacketPlan<DType, Arch> {
 public:
  explicit PacketPlan(const Tensor<Device, dim, DType>& t)
      : TensorPacketPlan<DType, Arch>(t.dptr_, t.stride_) {}
};

template <typename DType, PacketArch Arch>
class PacketPlan<ScalarExp<DType>, DType, Arch> {
 public:
  explicit PacketPlan(DType scalar) : scalar_(scalar) {}
  // The broadcast is loop-invariant and leaves the loop; a stored packet would give every
  // plan holding a scalar the packet's alignment, and every caller a realigned stack frame.
  MSHADOW_CINLINE packet::Packet<DType, Arch> EvalPacket(index_t, index_t) const {
    return packet::Packet<DType, Arch>::Fill(scalar_);
  }
  MSHADOW_CINLINE DType Eval(index_t, index_t) const { return scalar_; }

 private:
  DType scalar_;
};

template <typename OP, typename TA, typename DType, int etype, PacketArch Arch>
class PacketPlan<UnaryMapExp<OP, TA, DType, etype>, DType, Arch> {
 public:
  explicit PacketPlan(const PacketPlan<TA, DType, Arch>& src) : src_(src) {}
  MSHADOW_CINLINE packet::Packet<DType, Arch> EvalPacket(index_t y, index_t x) const {
    return packet::PacketOp<OP, DType, Arch>::Map(src_.EvalPacket(y, x));
  }
  MSHADOW_CINLINE DType Eval(index_t y, index_t x) const { return OP::Map(src_.Eval(y, x)); }

 private:
  PacketPlan<TA, DType, Arch> src_;
};

template <typename OP, typename TA, typename TB, typename DType, int etype, PacketArch Arch>
class PacketPlan<BinaryMapExp<OP, TA, TB, DType, etype>, DType, Arch> {
 public:
  PacketPlan(const PacketPlan<TA, DType, Arch>& lhs, const PacketPlan<TB, DType, Arch>& rhs)
      : lhs_(lhs), rhs_(rhs) {}
  MSHADOW_CINLINE packet::Packet<DType, Arch> EvalPacket(index_t y, index_t x) const {
    return packet::PacketOp<OP, DType, Arch>::Map(lhs_.EvalPacket(y, x), rhs_.EvalPacket(y, x));
  }
  MSHADOW_CINLINE DType Eval(index_t y, index_t x) const {
    return OP::Map(lhs_.Eval(y, x), rhs_.Eval(y, x));
  }

 private:
  PacketPlan<TA, DType, Arch> lhs_;
  PacketPlan<TB, DType, Arch> rhs_;
};

template <typename OP, typename TA, typename TB, typename TC, typename DType, int etype,
          PacketArch Arch>
class PacketPlan<TernaryMapExp<OP, TA, TB, TC, DType, etype>, DType, Arch> {
 public:
  PacketPlan(const PacketPlan<TA, DType, Arch>& item1, const PacketPlan<TB, DType, Arch>& item2,
             const PacketPlan<TC, DType, Arch>& item3)
      : item1_(item1), item2_(item2), item3_(item3) {}
  MSHADOW_CINLINE packet::Packet<DType, Arch> EvalPacket(index_t y, index_t x) const {
    return packet::PacketOp<OP, DType, Arch>::Map(item1_.EvalPacket(y, x), item2_.EvalPacket(y, x),
                                                  item3_.EvalPacket(y, x));
  }
  MSHADOW_CINLINE DType Eval(index_t y, index_t x) const {
    return OP::Map(item1_.Eval(y, x), item2_.Eval(y, x), item3_.Eval(y, x));
  }

 private:
  PacketPlan<TA, DType, Arch> item1_;
  PacketPlan<TB, DType, Arch> item2_;
  PacketPlan<TC, DType, Arch> item3_;
};

// ---- MakePacketPlan: the plan of an expression tree.

template <PacketArch Arch, typename T, typename DType>
inline PacketPlan<T, DType, Arch> MakePacketPlan(const RValueExp<T, DType>& e) {
  return PacketPlan<T, DType, Arch>(e.self());
}

template <PacketArch Arch, typename DType>
inline PacketPlan<ScalarExp<DType>, DType, Arch> MakePacketPlan(const ScalarExp<DType>& e) {
  return PacketPlan<ScalarExp<DType>, DType, Arch>(e.scalar_);
}

template <PacketArch Arch, typename OP, typename TA, typename DType, int etype>
inline PacketPlan<UnaryMapExp<OP, TA, DType, etype>, DType, Arch> MakePacketPlan(
    const UnaryMapExp<OP, TA, DType, etype>& e) {
  return PacketPlan<UnaryMapExp<OP, TA, DType, etype>, DType, Arch>(MakePacketPlan<Arch>(e.src_));
}

template <PacketArch Arch, typename OP, typename TA, typename TB, typename DType, int etype>
inline PacketPlan<BinaryMapExp<OP, TA, TB, DType, etype>, DType, Arch> MakePacketPlan(
    const BinaryMapExp<OP, TA, TB, DType, etype>& e) {
  return PacketPlan<BinaryMapExp<OP, TA, TB, DType, etype>, DType, Arch>(
      MakePacketPlan<Arch>(e.lhs_), MakePacketPlan<Arch>(e.rhs_));
}

template <PacketArch Arch, typename OP, typename TA, typename TB, typename TC, typename DType,
          int etype>
inline PacketPlan<TernaryMapExp<OP, TA, TB, TC, DType, etype>, DType, Arch> MakePacketPlan(
    const TernaryMapExp<OP, TA, TB, TC, DType, etype>& e) {
  return PacketPlan<TernaryMapExp<OP, TA, TB, TC, DType, etype>, DType, Arch>(
      MakePacketPlan<Arch>(e.item1_), MakePacketPlan<Arch>(e.item2_),
      MakePacketPlan<Arch>(e.item3_));
}

// ---- PacketCheck: whether every node has a packet form on Arch.

// Whether this build can run Arch.
template <PacketArch Arch>
struct PacketArchAvailable {
  static constexpr bool value =
      Arch == packet::kPlain || (Arch == packet::kSSE2 && MSHADOW_PACKET_HAS_SSE2) ||
      (Arch == packet::kAVX2 && MSHADOW_PACKET_HAS_AVX2) ||
      (Arch == packet::kAVX512 && MSHADOW_PACKET_HAS_AVX512);
};

template <typename E, PacketArch Arch>
struct PacketCheck {
  static constexpr bool kPass = false;
};
template <PacketArch Arch>
struct PacketCheck<float, Arch> {
  static constexpr bool kPass = PacketArchAvailable<Arch>::value;
};
template <PacketArch Arch>
struct PacketCheck<double, Arch> {
  static constexpr bool kPass = PacketArchAvailable<Arch>::value;
};
template <typename DType, PacketArch Arch>
struct PacketCheck<ScalarExp<DType>, Arch> {
  static constexpr bool kPass = PacketCheck<DType, Arch>::kPass;
};
template <int dim, typename DType, PacketArch Arch>
struct PacketCheck<Tensor<cpu, dim, DType>, Arch> {
  static constexpr bool kPass = PacketCheck<DType, Arch>::kPass;
};
template <typename OP, typename TA, typename DType, int etype, PacketArch Arch>
struct PacketCheck<UnaryMapExp<OP, TA, DType, etype>, Arch> {
  static constexpr bool kPass =
      PacketCheck<TA, Arch>::kPass && packet::PacketOp<OP, DType, Arch>::kEnabled;
};
template <typename OP, typename TA, typename TB, typename DType, int etype, PacketArch Arch>
struct PacketCheck<BinaryMapExp<OP, TA, TB, DType, etype>, Arch> {
  static constexpr bool kPass = packet::PacketOp<OP, DType, Arch>::kEnabled &&
                                PacketCheck<TA, Arch>::kPass && PacketCheck<TB, Arch>::kPass;
};
template <typename OP, typename TA, typename TB, typename TC, typename DType, int etype,
          PacketArch Arch>
struct PacketCheck<TernaryMapExp<OP, TA, TB, TC, DType, etype>, Arch> {
  static constexpr bool kPass = packet::PacketOp<OP, DType, Arch>::kEnabled &&
                                PacketCheck<TA, Arch>::kPass && PacketCheck<TB, Arch>::kPass &&
                                PacketCheck<TC, Arch>::kPass;
};

// ---- PacketAlignCheck: whether every tensor's rows start on Arch-aligned addresses.

template <int dim, typename E, PacketArch Arch>
struct PacketAlignCheck {
  static bool Check(const E&) { return false; }
};
template <int dim, typename DType, PacketArch Arch>
struct PacketAlignCheck<dim, ScalarExp<DType>, Arch> {
  static bool Check(const ScalarExp<DType>&) { return true; }
};
template <int dim, typename DType, PacketArch Arch>
struct PacketAlignCheck<dim, Tensor<cpu, dim, DType>, Arch> {
  static bool Check(const Tensor<cpu, dim, DType>& t) {
    return packet::CheckAlign<Arch>(const_cast<DType*>(t.dptr_)) &&
           packet::CheckAlign<Arch>(static_cast<size_t>(t.stride_) * sizeof(DType));
  }
};
template <int dim, typename OP, typename TA, typename DType, int etype, PacketArch Arch>
struct PacketAlignCheck<dim, UnaryMapExp<OP, TA, DType, etype>, Arch> {
  static bool Check(const UnaryMapExp<OP, TA, DType, etype>& t) {
    return PacketAlignCheck<dim, TA, Arch>::Check(t.src_);
  }
};
template <int dim, typename OP, typename TA, typename TB, typename DType, int etype,
          PacketArch Arch>
struct PacketAlignCheck<dim, BinaryMapExp<OP, TA, TB, DType, etype>, Arch> {
  static bool Check(const BinaryMapExp<OP, TA, TB, DType, etype>& t) {
    return PacketAlignCheck<dim, TA, Arch>::Check(t.lhs_) &&
           PacketAlignCheck<dim, TB, Arch>::Check(t.rhs_);
  }
};

// ---- MapPacketPlan: dst SV= plan, row by row.

// Elements below which a thread is not worth starting: a small tensor runs on the calling
// thread alone, never slower than single-threaded.
constexpr index_t kMinElementsPerThread = 16384;

// Evaluates columns [begin, end) of row y: packets while they fit in the row's vector part,
// then, if the range reaches the row's end, the scalar tail.
// kStreaming writes the packets with streaming stores (aligned rows only).
template <typename SV, bool kStreaming, PacketArch Arch, typename DType, typename E>
MSHADOW_CINLINE void MapPacketRange(DType* row, index_t y, index_t begin, index_t end,
                                    index_t vector_end, index_t width,
                                    const PacketPlan<E, DType, Arch>& shared_plan) {
  constexpr index_t kSize = packet::Packet<DType, Arch>::kSize;
  // A local copy stays in registers: the shared plan's address escapes to the threads, and
  // vector types may alias the stores, so reading it would mean a reload after every store.
  const PacketPlan<E, DType, Arch> plan = shared_plan;
  const index_t stop = std::min(end, vector_end);  // one bound: the loop vectorizes cleanly
  // Four packets per trip: in cache the loop overhead is a visible share (2-3% measured).
#pragma GCC unroll 4
  for (index_t x = begin; x < stop; x += kSize) {
    if constexpr (kStreaming) {
      plan.EvalPacket(y, x).StoreStreaming(row + x);
    } else {
      packet::Saver<SV, DType, Arch>::Save(row + x, plan.EvalPacket(y, x));
    }
  }
  if (end == width) {
    for (index_t x = vector_end; x < width; ++x) {
      SV::template Save<DType>(row[x], plan.Eval(y, x));
    }
  }
}

// dst SV= plan on `threads` threads. Work is split into (row, chunk) items whose boundaries
// are multiples of the packet size, and each element takes the packet or the scalar path by
// its column alone, so results are the same for any number of threads.
template <typename SV, bool kStreaming, PacketArch Arch, int dim, typename DType, typename E>
MSHADOW_NO_INLINE void MapPacketRowsInParallel(Tensor<cpu, dim, DType> dst,
                                               const PacketPlan<E, DType, Arch>& plan,
                                               index_t threads) {
  constexpr index_t kSize = packet::Packet<DType, Arch>::kSize;
  const Shape<2> shape = dst.shape_.FlatTo2D();
  const index_t rows = shape[0], width = shape[1];
  const index_t vector_end = width / kSize * kSize;
  // About four chunks per thread, each a whole number of packets.
  const index_t per_row = std::max<index_t>(1, threads * 4 / std::max<index_t>(rows, 1));
  const index_t columns = (width + per_row - 1) / per_row;
  const index_t chunk = std::max<index_t>(1, (columns + kSize - 1) / kSize) * kSize;
  const index_t chunks_per_row = std::max<index_t>(1, (width + chunk - 1) / chunk);
  ParallelFor(rows * chunks_per_row, static_cast<int>(threads), [&](index_t item) {
    const index_t y = item / chunks_per_row;
    const index_t begin = item % chunks_per_row * chunk;
    const index_t end = std::min(width, begin + chunk);
    MapPacketRange<SV, kStreaming>(dst.dptr_ + y * dst.stride_, y, begin, end, vector_end,
                                   width, plan);
  });
}

// dst SV= plan: on the calling thread, inline, or on GetNumThreads() threads when each gets
// kMinElementsPerThread elements or more. Inline because a small map is worth a few
// nanoseconds: a 64-element A = B * 2 + C took 16.6 ns through two calls, 11.5 ns inline.
template <typename SV, bool kStreaming, PacketArch Arch, int dim, typename DType, typename E>
MSHADOW_CINLINE void MapPacketRows(Tensor<cpu, dim, DType> dst,
                                   const PacketPlan<E, DType, Arch>& plan) {
  constexpr index_t kSize = packet::Packet<DType, Arch>::kSize;
  const Shape<2> shape = dst.shape_.FlatTo2D();
  const index_t rows = shape[0], width = shape[1];
  // Small tensors do not ask for the thread count (a call into parallel.cc).
  const index_t most_threads = rows * width / kMinElementsPerThread;
  if (most_threads >= 2) {
    const index_t threads = std::min<index_t>(GetNumThreads(), most_threads);
    if (threads >= 2) {
      MapPacketRowsInParallel<SV, kStreaming>(dst, plan, threads);
      return;
    }
  }
  const index_t vector_end = width / kSize * kSize;
  for (index_t y = 0; y < rows; ++y) {
    MapPacketRange<SV, kStreaming>(dst.dptr_ + y * dst.stride_, y, 0, width, vector_end, width,
                                   plan);
  }
  if (kStreaming) FenceStreamingStores();
}

// Whether dst = plan writes dst with streaming stores: an output of at least
// StreamingStoreMinBytes() (see mshadow/streaming_stores.h) whose rows start aligned, and
// either end on a packet boundary or are long (a scalar tail's ordinary stores would pull
// its cache line back in).
template <typename SV, PacketArch Arch, int dim, typename DType>
MSHADOW_CINLINE bool UsesStreamingStores(const Tensor<cpu, dim, DType>& dst) {
  if constexpr (!std::is_same<SV, sv::saveto>::value || Arch == packet::kPlain) return false;
  const Shape<2> shape = dst.shape_.FlatTo2D();
  const index_t row_bytes = shape[1] * static_cast<index_t>(sizeof(DType));
  return shape[0] * row_bytes >= StreamingStoreMinBytes() &&
         PacketAlignCheck<dim, Tensor<cpu, dim, DType>, Arch>::Check(dst) &&
         (shape[1] % packet::Packet<DType, Arch>::kSize == 0 || row_bytes >= 4096);
}

// The streaming form out of line: its outputs take milliseconds, so the call costs nothing,
// and the caller keeps one inline copy of the loop, not two.
template <typename SV, PacketArch Arch, int dim, typename DType, typename E>
MSHADOW_NO_INLINE void MapPacketRowsStreaming(Tensor<cpu, dim, DType> dst,
                                              const PacketPlan<E, DType, Arch>& plan) {
  MapPacketRows<SV, /*kStreaming=*/true>(dst, plan);
}

// dst SV= plan, with streaming stores where UsesStreamingStores says so.
template <typename SV, PacketArch Arch, int dim, typename DType, typename E>
MSHADOW_CINLINE void MapPacketPlan(Tensor<cpu, dim, DType> dst,
                                   const PacketPlan<E, DType, Arch>& plan) {
  if (UsesStreamingStores<SV, Arch>(dst)) {
    MapPacketRowsStreaming<SV>(dst, plan);
  } else {
    MapPacketRows<SV, /*kStreaming=*/false>(dst, plan);
  }
}

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXPR_PACKET_PLAN_H_
