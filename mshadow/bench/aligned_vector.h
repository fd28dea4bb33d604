// mshadow/bench/aligned_vector.h: std::vector storage on 64-byte boundaries, as tensors from
// mshadow's AllocSpace are, so benchmarks see the alignment a host framework's tensors
// have.
#ifndef MSHADOW_BENCH_ALIGNED_VECTOR_H_
#define MSHADOW_BENCH_ALIGNED_VECTOR_H_

#include <cstddef>
#include <new>
#include <vector>

namespace mshadow {
namespace bench {

template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{64};

  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}  // NOLINT(runtime/explicit): rebinding

  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlignment); }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const CacheLineAllocator<U>&) const { return false; }
};

template <typename T>
using AlignedVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace bench
}  // namespace mshadow

#endif  // MSHADOW_BENCH_ALIGNED_VECTOR_H_
