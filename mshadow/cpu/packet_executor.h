// mshadow/cpu/packet_executor.h: the CPU's executor of packet plans. MapPacketPlan evaluates
// a PacketPlan (mshadow/expr/packet_plan.h) into a tensor: a vector loop over each row, then a
// scalar loop for the last width % kSize elements; rows, or chunks of rows, on the library's
// threads when the work pays for them; streaming stores for outputs that outgrow the caches.
//
//   if constexpr (PacketCheck<E, MSHADOW_DEFAULT_PACKET>::kPass) {
//     MapPacketPlan<sv::saveto>(dst, MakePacketPlan<MSHADOW_DEFAULT_PACKET>(exp.self()));
//   }
#ifndef MSHADOW_CPU_PACKET_EXECUTOR_H_
#define MSHADOW_CPU_PACKET_EXECUTOR_H_

#include <algorithm>
#include <type_traits>

#include "mshadow/expr/packet_plan.h"
#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"
#include "mshadow/tensor_core.h"

namespace mshadow {
namespace expr {

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
    MapPacketRange<SV, kStreaming>(dst.dptr_ + y * dst.stride_, y, begin, end, vector_end, width,
                                   plan);
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

// Whether dst = plan writes dst with streaming stores: an output whose size, counted twice
// (an expression reads at least as many bytes as it writes, so this is the least it moves),
// reaches StreamingStoreMinBytes() (see mshadow/streaming_stores.h), whose rows start
// aligned, and either end on a packet boundary or are long (a scalar tail's ordinary stores
// would pull its cache line back in).
template <typename SV, PacketArch Arch, int dim, typename DType>
MSHADOW_CINLINE bool UsesStreamingStores(const Tensor<cpu, dim, DType>& dst) {
  if constexpr (!std::is_same<SV, sv::saveto>::value || Arch == packet::kPlain) return false;
  const Shape<2> shape = dst.shape_.FlatTo2D();
  const index_t row_bytes = shape[1] * static_cast<index_t>(sizeof(DType));
  return 2 * shape[0] * row_bytes >= StreamingStoreMinBytes() &&
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

#endif  // MSHADOW_CPU_PACKET_EXECUTOR_H_
