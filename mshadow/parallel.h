// mshadow/parallel.h: the CPU threads the expression engine and the operators use.
//
//   mshadow::SetNumThreads(1);   // single-threaded; 0 (the default) follows
//                                // OMP_NUM_THREADS, else one thread per core
//   mshadow::ParallelFor(items, threads, [&](index_t item) { ... });
//
// The threads are the library's own pool, not OpenMP's. Its workers spin for a few
// microseconds after a job (back-to-back calls find them awake), then sleep on a condition
// variable: they never hold a core a host framework's own threads want. A call made while
// the pool is busy (from another host thread, or nested inside a ParallelFor body) runs on
// the calling thread alone rather than oversubscribing the cores. An exception thrown by a
// body reaches the caller of ParallelFor once every thread has finished.
#ifndef MSHADOW_PARALLEL_H_
#define MSHADOW_PARALLEL_H_

#include <cstddef>
#include <type_traits>

#include "mshadow/macros.h"

namespace mshadow {

// Sets the threads CPU evaluation may use; 0 restores the default.
void SetNumThreads(int num_threads);
// The threads CPU evaluation may use (at least 1).
int GetNumThreads();

// While one exists, the pool's threads that would start to sleep keep spinning instead: the
// workers waiting for the next job and a caller waiting for its job's last chunk. An operator
// declares one around serial work (packing a weight) that its threads' work follows, so that
// the workers of its previous call are still awake when that work starts: on a 2-vCPU VM,
// waking a sleeping worker took the caller 10-40 us (docs/benchmarks.md). Workers asleep
// already stay asleep until the next job.
class WorkersStayAwake {
 public:
  WorkersStayAwake();
  ~WorkersStayAwake();
  WorkersStayAwake(const WorkersStayAwake&) = delete;
  WorkersStayAwake& operator=(const WorkersStayAwake&) = delete;
};

namespace detail {
void ParallelForImpl(index_t items, int threads, void (*body)(void* context, index_t item),
                     void* context);
}  // namespace detail

// Calls fn(item) for every item in [0, items) on up to `threads` threads. Items are dealt
// out in contiguous blocks, one per thread, each cut into a few chunks: a thread runs its own
// block's chunks in order, then takes the chunks no thread has started (a thread held up by
// another process delays the job by one chunk). Item i always runs the same computation, so
// results never depend on the thread count or on which thread runs it.
template <typename Fn>
void ParallelFor(index_t items, int threads, Fn&& fn) {
  if (threads <= 1 || items <= 1) {
    for (index_t i = 0; i < items; ++i) fn(i);
    return;
  }
  detail::ParallelForImpl(
      items, threads,
      [](void* context, index_t item) {
        (*static_cast<std::remove_reference_t<Fn>*>(context))(item);
      },
      &fn);
}

// Scratch memory of the calling thread, at least `bytes` long and 64-byte aligned; it only
// grows, so a kernel called repeatedly allocates once. The workers of a ParallelFor may
// share the caller's scratch, each using its own part. Defined out of line so that a shared
// library built from this code exports no per-template thread-local symbols.
void* ThreadScratch(size_t bytes);

}  // namespace mshadow

#endif  // MSHADOW_PARALLEL_H_
