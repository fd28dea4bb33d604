// mshadow/parallel.h: the CPU threads the expression engine uses.
//
//   mshadow::SetNumThreads(1);   // single-threaded; 0 (the default) follows OpenMP:
//                                // OMP_NUM_THREADS, else one thread per core
//   mshadow::ParallelFor(items, threads, [&](index_t item) { ... });
//
// OpenMP lives in parallel.cc alone, so code that includes this header needs no -fopenmp.
#ifndef MSHADOW_PARALLEL_H_
#define MSHADOW_PARALLEL_H_

#include <type_traits>

#include "mshadow/macros.h"

namespace mshadow {

// Sets the threads CPU evaluation may use; 0 follows OpenMP's default.
void SetNumThreads(int num_threads);
// The threads CPU evaluation may use (at least 1).
int GetNumThreads();

namespace detail {
void ParallelForImpl(index_t items, int threads, void (*body)(void* context, index_t item),
                     void* context);
}  // namespace detail

// Calls fn(item) for every item in [0, items) on up to `threads` threads (statically
// scheduled: item i always runs the same computation, whatever the thread count).
template <typename Fn>
void ParallelFor(index_t items, int threads, Fn&& fn) {
  if (threads <= 1 || items <= 1) {
    for (index_t i = 0; i < items; ++i) fn(i);
    return;
  }
  detail::ParallelForImpl(
      items, threads, [](void* context, index_t item) { (*static_cast<std::remove_reference_t<Fn>*>(context))(item); },
      &fn);
}

}  // namespace mshadow

#endif  // MSHADOW_PARALLEL_H_
