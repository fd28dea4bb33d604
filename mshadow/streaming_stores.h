// mshadow/streaming_stores.h: when CPU evaluation writes its output around the caches.
//
// When an operation moves more bytes than the last-level cache holds, its output cannot stay
// cached until it is read again, so writing it with ordinary stores costs a read of every
// line before its write (the cache fills the line first) and evicts inputs. Non-temporal
// ("streaming") stores skip both: `A = B * 2 + C` over 64 MiB operands moves a quarter fewer
// bytes, and relu over 25 MiB (input and output past a 32 MiB cache) runs 1.6x faster.
// Callers compare the bytes they move with the threshold: the engine's maps count their
// output twice (an expression reads at least as much as it writes), transposes their input
// and output.
//
//   mshadow::SetStreamingStoreMinBytes(0);        // default: the LLC's size
//   mshadow::SetStreamingStoreMinBytes(1 << 20);  // operations moving 1 MiB or more
//   mshadow::SetStreamingStoreMinBytes(kNoStreamingStores);  // never
//
// Register-tiled kernels (products, the first layers' lanes), whose stores go to a tile's rows
// at once, ask TileStreamingStoreMinBytes() instead: the same threshold where it is set, by
// default the LLC's size up to 32 MiB. The hardware prefetchers do not fetch such stores'
// lines ahead, so each waits on its own read, and a large L3 shared over a mesh, as a
// many-core Xeon's, holds the output no faster than memory would: on a 480 MiB-L3 Xeon a 1x1
// convolution with 103 MB of output ran 1.6x faster streamed and VGG's first layer 1.2-1.3x,
// where the engine's maps ran 1-15% slower and a (64,256,256) transpose 19% slower
// (docs/benchmarks.md, sixty-eighth session).
//
// Streaming stores are weakly ordered; whoever issues them calls FenceStreamingStores()
// before another thread may read the output (ParallelFor does so for its workers).
#ifndef MSHADOW_STREAMING_STORES_H_
#define MSHADOW_STREAMING_STORES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "mshadow/macros.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mshadow {

constexpr index_t kNoStreamingStores = std::numeric_limits<index_t>::max();

// The bytes moved from which an operation writes its output with streaming stores (for
// `dst = expression`: twice the output's size); 0 restores the default, the last-level
// cache's size (32 MiB where the system does not say). Sets TileStreamingStoreMinBytes()
// as well.
void SetStreamingStoreMinBytes(index_t bytes);

namespace detail {
// The thresholds in effect; 0 until the default is first looked up.
inline std::atomic<index_t> streaming_store_min_bytes{0};
inline std::atomic<index_t> tile_streaming_store_min_bytes{0};
index_t ResolveDefaultStreamingStoreMinBytes();
index_t ResolveDefaultTileStreamingStoreMinBytes();
}  // namespace detail

// Inline: every `dst = expression` asks, and a call would cost small expressions 1-2%.
inline index_t StreamingStoreMinBytes() {
  const index_t bytes = detail::streaming_store_min_bytes.load(std::memory_order_relaxed);
  return bytes > 0 ? bytes : detail::ResolveDefaultStreamingStoreMinBytes();
}

// The threshold for register-tiled kernels (see above).
inline index_t TileStreamingStoreMinBytes() {
  const index_t bytes = detail::tile_streaming_store_min_bytes.load(std::memory_order_relaxed);
  return bytes > 0 ? bytes : detail::ResolveDefaultTileStreamingStoreMinBytes();
}

// Streaming stores write whole cache lines that start on one.
constexpr size_t kCacheLineBytes = 64;

// Elements from p to the next cache line: 0 where p starts one, or where p is not on an
// element's boundary (no count of elements reaches a line then). A kernel writes these through
// the caches and streams from the line on: NumPy's arrays start 16 bytes into a line.
template <typename DType>
index_t ElementsBeforeALine(const DType* p) {
  const uintptr_t offset = reinterpret_cast<uintptr_t>(p) % kCacheLineBytes;
  if (offset % sizeof(DType) != 0) return 0;
  return static_cast<index_t>((kCacheLineBytes - offset) % kCacheLineBytes / sizeof(DType));
}

// Orders this thread's streaming stores before its later stores and synchronization.
inline void FenceStreamingStores() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace mshadow

#endif  // MSHADOW_STREAMING_STORES_H_
