// mshadow/bench/once_per_size.h: benchmark inputs built once per size and shared, so that the
// project and each of its baselines run on the same buffers (same addresses, so the same
// cache sets and the same 4 KiB aliasing between outputs and inputs).
//
//   Operands& ops = mshadow::bench::OncePerSize<Operands>(state.range(0));
#ifndef MSHADOW_BENCH_ONCE_PER_SIZE_H_
#define MSHADOW_BENCH_ONCE_PER_SIZE_H_

#include <cstdint>
#include <map>
#include <memory>

namespace mshadow {
namespace bench {

// The T(size) made by the first call with this size; it lives until the process exits.
template <typename T>
T& OncePerSize(int64_t size) {
  static std::map<int64_t, std::unique_ptr<T>> by_size;
  std::unique_ptr<T>& made = by_size[size];
  if (!made) made = std::make_unique<T>(size);
  return *made;
}

}  // namespace bench
}  // namespace mshadow

#endif  // MSHADOW_BENCH_ONCE_PER_SIZE_H_
