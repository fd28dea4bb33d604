// ops/gather_prefetch.h: prefetching the rows a CPU gather (take, Embedding) copies next.
//
// A gather copies rows of a table at indices it learns one at a time. Where the table is
// larger than the caches, each row's first lines come from memory, and the copy of one row
// is too short for the core to reach the next row's loads on its own: the copies wait on one
// memory latency per row. Prefetching the row a few indices ahead keeps several rows in
// flight (take of 4096 rows of 512 floats from a 50000-row table: 1.4-2.2x faster at one
// thread while other processes loaded the memory, as fast as before when they did not;
// docs/benchmarks.md).
//
//   for (index_t k = 0; k < count; ++k) {
//     const index_t ahead = k + kGatherPrefetchRows;
//     if (ahead < count) PrefetchRow(table + row(ahead) * n, n);
//     CopyRun<false>(out + k * n, table + row(k) * n, n);
//   }
#ifndef OPS_GATHER_PREFETCH_H_
#define OPS_GATHER_PREFETCH_H_

#include <algorithm>

#include "mshadow/base.h"

namespace ops {

using mshadow::index_t;

// How many rows ahead of the one being copied a gather prefetches, and how much of that row
// (the hardware prefetcher follows a row once it has started on it).
constexpr index_t kGatherPrefetchRows = 4;
constexpr index_t kGatherPrefetchBytes = 2048;

// Asks for the first kGatherPrefetchBytes of row[0, n), a row of the table (a hint: the
// prefetch itself reads nothing into registers and cannot fault), into every level of cache
// as a load would: non-temporal prefetches had left take and Embedding 1.01-1.17x slower
// where the next call gathers the same rows (Zen 3, docs/benchmarks.md, thirty-fourth
// session).
template <typename DType>
inline void PrefetchRow(const DType* row, index_t n) {
  const char* bytes = reinterpret_cast<const char*>(row);
  const index_t length =
      std::min<index_t>(n * static_cast<index_t>(sizeof(DType)), kGatherPrefetchBytes);
  for (index_t b = 0; b < length; b += 64) __builtin_prefetch(bytes + b, 0, 3);
}

}  // namespace ops

#endif  // OPS_GATHER_PREFETCH_H_
