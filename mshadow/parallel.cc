#include "mshadow/parallel.h"

#include <omp.h>

#include <atomic>

#include "mshadow/streaming_stores.h"

namespace mshadow {
namespace {

std::atomic<int> g_num_threads{0};

}  // namespace

void SetNumThreads(int num_threads) { g_num_threads.store(num_threads < 0 ? 0 : num_threads); }

int GetNumThreads() {
  const int set = g_num_threads.load(std::memory_order_relaxed);
  if (set > 0) return set;
  // OpenMP's default (OMP_NUM_THREADS, else the cores), read once: asking OpenMP on every
  // evaluation costs more than a small expression does.
  static const int openmp_default = omp_get_max_threads();
  return openmp_default;
}

namespace detail {

void ParallelForImpl(index_t items, int threads, void (*body)(void* context, index_t item),
                     void* context) {
#pragma omp parallel num_threads(threads)
  {
#pragma omp for schedule(static) nowait
    for (index_t i = 0; i < items; ++i) body(context, i);
    // A body may have written with streaming stores; they must land before the join.
    FenceStreamingStores();
  }
}

}  // namespace detail
}  // namespace mshadow
