// ops/vector_loop.h: the loops the operators' CPU kernels are written with: a body over
// contiguous elements written once and run a SIMD packet at a time with a one-lane tail,
// sums and maxima of such bodies, write modes (OpReqType) resolved outside the loop, and
// rows split over the engine's threads.
//
//   // y[i] = exp(x[i] - m), summed, on any length and alignment:
//   float total = vec::Sum<float>(n, [&](index_t i, auto tag) {
//     using P = vec::PacketOf<decltype(tag)>;
//     const P e = mshadow::packet::Exp(P::LoadUnAligned(x + i) - P::Fill(m));
//     e.StoreUnAligned(y + i);
//     return e;
//   });
//   ParallelRows(rows, cols, [&](index_t begin, index_t end) { ... rows [begin, end) ... });
#ifndef OPS_VECTOR_LOOP_H_
#define OPS_VECTOR_LOOP_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "mshadow/cpu/packet_executor.h"
#include "mshadow/packet-inl.h"
#include "mshadow/parallel.h"
#include "ops/op_types.h"

// Marks a loop for the compiler to vectorize where its -O2 cost model would not (loops that
// convert types, e.g. a uint8 mask into floats): OpenMP's simd directive, which -fopenmp-simd
// (//ops:ops's copts) enables without the OpenMP runtime. Nothing under nvcc.
// OPS_SIMD_SUM(sum) marks a loop that adds into `sum` the same way (its lanes sum apart, so
// the rounding depends on the vector width, never on the thread count).
#if defined(__CUDACC__)
#define OPS_SIMD_LOOP
#define OPS_SIMD_SUM(sum)
#else
#define OPS_SIMD_LOOP _Pragma("omp simd")
#define OPS_PRAGMA(text) _Pragma(#text)
#define OPS_SIMD_SUM(sum) OPS_PRAGMA(omp simd reduction(+ : sum))
#endif

// Tells the compiler to unroll a loop of constant trip count completely, so that a tile's
// accumulators stay in registers. Nothing under nvcc (these kernels are the CPU's).
// OPS_UNROLL_4: four iterations per pass of the inner-product loop (loop overhead off the
// multiply-adds' issue slots).
#if defined(__CUDACC__)
#define OPS_UNROLL_FULLY
#define OPS_UNROLL_4
#else
#define OPS_UNROLL_FULLY _Pragma("GCC unroll 16")
#define OPS_UNROLL_4 _Pragma("GCC unroll 4")
#endif

namespace ops {
namespace vec {

using mshadow::index_t;

template <typename P>
struct Tag {
  using type = P;
};
// The packet type a loop body is called with (Full or One).
template <typename T>
using PacketOf = typename std::decay_t<T>::type;

template <typename DType>
using Full = mshadow::packet::Packet<DType, MSHADOW_DEFAULT_PACKET>;
template <typename DType>
using One = mshadow::packet::Packet<DType, mshadow::packet::kPlain>;

// fn(i, tag) for i = 0, P, 2P, ... with full packets, then one lane at a time to n.
template <typename DType, typename Fn>
MSHADOW_CINLINE void ForEach(index_t n, Fn&& fn) {
  constexpr index_t kLanes = Full<DType>::kSize;
  index_t i = 0;
  for (; i + kLanes <= n; i += kLanes) fn(i, Tag<Full<DType>>());
  for (; i < n; ++i) fn(i, Tag<One<DType>>());
}

// The sum over the elements of what fn(i, tag) returns (two packet accumulators, so that
// consecutive additions do not wait on each other).
template <typename DType, typename Fn>
MSHADOW_CINLINE DType Sum(index_t n, Fn&& fn) {
  using P = Full<DType>;
  constexpr index_t kLanes = P::kSize;
  P acc0 = P::Fill(DType(0)), acc1 = P::Fill(DType(0));
  index_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    acc0 = acc0 + fn(i, Tag<P>());
    acc1 = acc1 + fn(i + kLanes, Tag<P>());
  }
  for (; i + kLanes <= n; i += kLanes) acc0 = acc0 + fn(i, Tag<P>());
  DType total = (acc0 + acc1).Sum();
  for (; i < n; ++i) total += fn(i, Tag<One<DType>>()).Sum();
  return total;
}

// The largest of the elements of what fn(i, tag) returns; NaN if any is NaN; -inf if n = 0.
template <typename DType, typename Fn>
MSHADOW_CINLINE DType Max(index_t n, Fn&& fn) {
  using P = Full<DType>;
  using mshadow::packet::Max;
  constexpr index_t kLanes = P::kSize;
  // Four accumulators: a NaN-propagating max is a compare and a blend, whose latency one
  // accumulator would wait on every packet (measured: half of softmax's time on 1000-wide
  // rows).
  const P lowest = P::Fill(-std::numeric_limits<DType>::infinity());
  P acc = lowest, acc1 = lowest, acc2 = lowest, acc3 = lowest;
  index_t i = 0;
  for (; i + 4 * kLanes <= n; i += 4 * kLanes) {
    acc = Max(acc, fn(i, Tag<P>()));
    acc1 = Max(acc1, fn(i + kLanes, Tag<P>()));
    acc2 = Max(acc2, fn(i + 2 * kLanes, Tag<P>()));
    acc3 = Max(acc3, fn(i + 3 * kLanes, Tag<P>()));
  }
  for (; i + kLanes <= n; i += kLanes) acc = Max(acc, fn(i, Tag<P>()));
  acc = Max(Max(acc, acc1), Max(acc2, acc3));
  DType lanes[kLanes];
  acc.StoreUnAligned(lanes);
  One<DType> result(lanes[0]);
  for (index_t l = 1; l < kLanes; ++l) result = Max(result, One<DType>(lanes[l]));
  for (; i < n; ++i) result = Max(result, fn(i, Tag<One<DType>>()));
  return result.data_;
}

// Writes `value` at dst as the write mode says (kAdd: dst += value, else dst = value).
template <bool kAdd, typename P, typename DType>
MSHADOW_CINLINE void Store(DType* dst, const P& value) {
  if (kAdd) {
    (P::LoadUnAligned(dst) + value).StoreUnAligned(dst);
  } else {
    value.StoreUnAligned(dst);
  }
}

// Calls fn(std::bool_constant<add>) with add = (req == kAddTo); nothing for kNullOp. The
// kernels are then compiled once per write mode, with no test inside their loops.
template <typename Fn>
void WithReq(OpReqType req, Fn&& fn) {
  if (req == kNullOp) return;
  if (req == kAddTo) {
    fn(std::true_type());
  } else {
    fn(std::false_type());
  }
}

}  // namespace vec

// Calls fn(begin, end) over consecutive ranges covering rows [0, rows), on as many of the
// engine's threads as the work pays for: at least mshadow's minimum elements per thread
// (`row_elements` elements a row). Each row is computed the same way whatever the split.
template <typename Fn>
void ParallelRows(index_t rows, index_t row_elements, Fn&& fn) {
  const index_t work = rows * std::max<index_t>(row_elements, 1);
  const int threads = static_cast<int>(std::min<index_t>(
      {mshadow::GetNumThreads(), rows, work / mshadow::expr::kMinElementsPerThread}));
  if (threads <= 1) {
    if (rows > 0) fn(index_t{0}, rows);
    return;
  }
  mshadow::ParallelFor(threads, threads, [&](index_t t) {
    fn(rows * t / threads, rows * (t + 1) / threads);
  });
}

// Threads for a batch shared out in runs of whole images, each thread with scratch of its
// own (the count taken once, so that the scratch requested for it fits): one an image at most.
inline index_t BatchThreads(index_t images) {
  return std::max<index_t>(1, std::min<index_t>(mshadow::GetNumThreads(), images));
}

// fn(t, begin, end) for each of `threads` threads (BatchThreads'), images [begin, end) a
// contiguous run. One thread runs on the caller outside any ParallelFor, so that the kernels
// it calls still take the library's threads.
template <typename Fn>
void ForEachImageRun(index_t images, index_t threads, Fn&& fn) {
  auto run = [&](index_t t) { fn(t, images * t / threads, images * (t + 1) / threads); };
  if (threads == 1) return run(0);
  mshadow::ParallelFor(threads, static_cast<int>(threads), run);
}

// fn(t, n) for each image n of `images` on `threads` threads (BatchThreads'), t the thread
// running it: the images are handed out one at a time to whichever thread is free, not in
// runs fixed beforehand, so that a thread slowed by another process (or by images costlier
// than others) does not hold the rest up at the end. Only for work whose images are
// independent: which thread runs an image changes from call to call. One thread runs on the
// caller outside any ParallelFor, as in ForEachImageRun.
template <typename Fn>
void ForEachImage(index_t images, index_t threads, Fn&& fn) {
  if (threads == 1) {
    for (index_t n = 0; n < images; ++n) fn(0, n);
    return;
  }
  std::atomic<index_t> next{0};
  mshadow::ParallelFor(threads, static_cast<int>(threads), [&](index_t t) {
    for (index_t n = next.fetch_add(1, std::memory_order_relaxed); n < images;
         n = next.fetch_add(1, std::memory_order_relaxed)) {
      fn(t, n);
    }
  });
}

// The parts ForEachImagePart's callers cut each of a batch's last images into (at most).
constexpr index_t kLastImageParts = 4;

// ForEachImage, with each of the last `threads` images cut into `parts` parts handed out one
// at a time as well: fn(t, n, part, parts) (part 0 of 1 for the other images). A thread that
// found no whole image left had waited for the other's last: 3-15% of the time of batches of
// 4 to 32 images on two threads (docs/benchmarks.md, thirty-sixth session).
template <typename Fn>
void ForEachImagePart(index_t images, index_t threads, index_t parts, Fn&& fn) {
  const index_t whole = std::max<index_t>(0, images - threads);
  const index_t split = threads == 1 ? 1 : std::max<index_t>(1, parts);
  ForEachImage(whole + (images - whole) * split, threads, [&](index_t t, index_t item) {
    if (item < whole) return fn(t, item, index_t{0}, index_t{1});
    fn(t, whole + (item - whole) / split, (item - whole) % split, split);
  });
}

namespace vec {

// The packets next narrower than kArch's that the build has, down to plain ones.
constexpr mshadow::packet::PacketArch Narrower(mshadow::packet::PacketArch arch) {
  using mshadow::packet::PacketArch;
  if (arch == PacketArch::kAVX512 && MSHADOW_PACKET_HAS_AVX2) return PacketArch::kAVX2;
  if ((arch == PacketArch::kAVX512 || arch == PacketArch::kAVX2) && MSHADOW_PACKET_HAS_SSE2) {
    return PacketArch::kSSE2;
  }
  return PacketArch::kPlain;
}

// dst[0, n) += src for n below kArch's lanes: one packet of each narrower width that fits,
// then single lanes.
template <mshadow::packet::PacketArch kArch, typename DType>
MSHADOW_CINLINE void AddTail(DType* dst, const DType* src, index_t n) {
  if constexpr (kArch == mshadow::packet::kPlain) {
    for (index_t i = 0; i < n; ++i) dst[i] += src[i];
  } else {
    using P = mshadow::packet::Packet<DType, kArch>;
    index_t i = 0;
    if (n >= P::kSize) {
      Store<true>(dst, P::LoadUnAligned(src));
      i = P::kSize;
    }
    AddTail<Narrower(kArch)>(dst + i, src + i, n - i);
  }
}

}  // namespace vec

// dst[0, n) = src or += src as the write mode says; memcpy-sized copies for writes. The last
// lanes of an addition go as narrower packets: runs are often a few dozen elements (a
// convolution's rows in col2im, 28 = 16 + 12 lanes), whose lanes one at a time had taken a
// sixth or more of col2im's time (over a quarter of the 66% in its additions).
template <bool kAdd, typename DType>
inline void CopyRun(DType* dst, const DType* src, index_t n) {
  if constexpr (!kAdd) {  // any type; the additions need float or double packets
    if (dst != src && n > 0) std::memcpy(dst, src, n * sizeof(DType));
  } else {
    using P = vec::Full<DType>;
    index_t i = 0;
    for (; i + P::kSize <= n; i += P::kSize) {
      vec::Store<true>(dst + i, P::LoadUnAligned(src + i));
    }
    vec::AddTail<vec::Narrower(MSHADOW_DEFAULT_PACKET)>(dst + i, src + i, n - i);
  }
}

// dst[0, n) = src through streaming stores (around the caches) where dst is aligned to a
// packet, plain copies elsewhere: for outputs too large to stay cached until they are read.
// The caller orders the stores (mshadow::FenceStreamingStores) before others read dst.
template <typename DType>
inline void StreamRun(DType* dst, const DType* src, index_t n) {
  static_assert(sizeof(DType) % sizeof(float) == 0, "copied as floats");
  using P = vec::Full<float>;
  auto* to = reinterpret_cast<float*>(dst);
  const auto* from = reinterpret_cast<const float*>(src);
  const index_t floats = n * static_cast<index_t>(sizeof(DType) / sizeof(float));
  index_t i = 0;
  if (reinterpret_cast<uintptr_t>(to) % (P::kSize * sizeof(float)) == 0) {
    for (; i + P::kSize <= floats; i += P::kSize) {
      P::LoadUnAligned(from + i).StoreStreaming(to + i);
    }
  }
  if (i < floats) std::memcpy(to + i, from + i, (floats - i) * sizeof(float));
}

// to[k][0, n) = src, or += src, as req[k] says (kNullOp: left alone; an output that is src
// itself is not copied onto itself), for each of the outputs: src a 4 KiB block at a time,
// copied (or added) to every output while it sits in the L1 cache (one read of src, not one
// per output), on the library's threads. The copies go out by streaming stores where the
// outputs together reach the threshold of kernels that write several output lines at once
// (mshadow::TileStreamingStoreMinBytes(), the outputs' bytes together, not twice one
// output's as for a map): the crossover measured, where the engine's rule for each output
// alone kept 4 x 16 MiB cached and 2.4x slower (docs/benchmarks.md, seventy-second session).
// Fenced before returning. The gradients of add_n's and elemwise_add's inputs.
template <typename DType>
void CopyToEach(const DType* src, index_t n, const std::vector<DType*>& to,
                const std::vector<OpReqType>& req) {
  const bool stream = static_cast<index_t>(to.size() * n * sizeof(DType)) >=
                      mshadow::TileStreamingStoreMinBytes();
  constexpr index_t kBlock = 4096 / sizeof(DType);  // 4 KiB: a multiple of every alignment
  const index_t blocks = (n + kBlock - 1) / kBlock;
  ParallelRows(blocks, kBlock * static_cast<index_t>(to.size()), [&](index_t first,
                                                                     index_t last) {
    for (index_t start = first * kBlock; start < std::min(last * kBlock, n); start += kBlock) {
      const index_t count = std::min(kBlock, n - start);
      for (size_t k = 0; k < to.size(); ++k) {
        DType* dst = to[k] + start;
        if (req[k] == kAddTo) {
          CopyRun<true>(dst, src + start, count);
        } else if (req[k] != kNullOp && dst != src + start) {
          if (stream) {
            StreamRun(dst, src + start, count);
          } else {
            CopyRun<false>(dst, src + start, count);
          }
        }
      }
    }
  });
  if (stream) mshadow::FenceStreamingStores();  // this thread's (ParallelFor fences its workers)
}

// A contiguous output written front to back in pieces (copied runs, filled runs), with
// kStream through streaming stores: the pieces are gathered a block at a time into a buffer in
// the L1 cache and each block streamed out whole, since the pieces (rows of a few dozen
// elements, a plane cut out of a padded one) mostly start off a packet's alignment, where
// StreamRun would fall back to plain copies. The elements before the output's first aligned
// packet go by plain stores. Without kStream the pieces go straight to the output. The last
// block goes out when the writer is destroyed; the caller then fences.
//
//   RunWriter<float, true> out(dst);
//   out.Fill(0.f, 3);  out.Copy(row, 56);  ...
template <typename DType, bool kStream>
class RunWriter {
 public:
  explicit RunWriter(DType* dst) : dst_(dst) {
    static_assert(kAlign % sizeof(DType) == 0, "a packet holds whole elements");
    if constexpr (kStream) {
      const uintptr_t misaligned = reinterpret_cast<uintptr_t>(dst) % kAlign;
      head_ = static_cast<index_t>((kAlign - misaligned) % kAlign / sizeof(DType));
    }
  }
  ~RunWriter() { Flush(); }
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  // The next n elements = src[0, n).
  void Copy(const DType* src, index_t n) {
    Append(n, [&](DType* to, index_t done, index_t count) {
      std::memcpy(to, src + done, count * sizeof(DType));
    });
  }
  // The next n elements = value.
  void Fill(DType value, index_t n) {
    Append(n, [&](DType* to, index_t, index_t count) { std::fill_n(to, count, value); });
  }

 private:
  static constexpr index_t kBlock = 2048 / sizeof(DType);
  static constexpr uintptr_t kAlign = vec::Full<float>::kSize * sizeof(float);

  // Writes n elements by put(to, done, count) in pieces: count elements at `to`, the piece
  // starting `done` elements into the n.
  template <typename Put>
  void Append(index_t n, Put&& put) {
    index_t done = 0;
    if (!kStream || head_ > 0) {  // plain stores
      const index_t count = kStream ? std::min(head_, n) : n;
      put(dst_, done, count);
      dst_ += count;
      done = count;
      if constexpr (kStream) head_ -= count;
    }
    while (done < n) {
      const index_t count = std::min(kBlock - filled_, n - done);
      put(block_ + filled_, done, count);
      filled_ += count;
      done += count;
      if (filled_ == kBlock) Flush();
    }
  }

  void Flush() {
    if constexpr (kStream) {
      StreamRun(dst_, block_, filled_);
      dst_ += filled_;
      filled_ = 0;
    }
  }

  DType* dst_;
  index_t head_ = 0, filled_ = 0;
  alignas(64) DType block_[kStream ? kBlock : 1];
};

// Whether a copy that writes `bytes` goes through streaming stores (take's rows, transpose's
// tiles): the engine's rule for its maps (mshadow/cpu/packet_executor.h), the output counted
// twice reaching mshadow::StreamingStoreMinBytes().
inline bool StreamsCopyOf(index_t bytes) { return 2 * bytes >= mshadow::StreamingStoreMinBytes(); }

// The same for a register-tiled kernel (a product, position_lanes' tiles) that writes `bytes`,
// against mshadow::TileStreamingStoreMinBytes().
inline bool StreamsProductOf(index_t bytes) {
  return 2 * bytes >= mshadow::TileStreamingStoreMinBytes();
}

// dst[0, n) = value or += value as the write mode says.
template <bool kAdd, typename DType>
inline void FillRun(DType* dst, DType value, index_t n) {
  vec::ForEach<DType>(n, [&](index_t i, auto tag) {
    using P = vec::PacketOf<decltype(tag)>;
    vec::Store<kAdd>(dst + i, P::Fill(value));
  });
}

}  // namespace ops

#endif  // OPS_VECTOR_LOOP_H_
