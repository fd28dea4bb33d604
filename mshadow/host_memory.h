// mshadow/host_memory.h: the one place host (CPU) memory for tensors, temporary space and
// packet buffers comes from. A request that cannot be met is a dmlc::Error naming its size
// and what it was for, before any memory is touched: a std::bad_alloc never escapes, and a
// tensor larger than the machine's free memory fails at once instead of being zero-filled
// until the kernel's out-of-memory killer ends the host process.
//
//   void* p = mshadow::AllocHost(bytes, 64, "temporary space");
//   ...
//   mshadow::FreeHost(p);
//
//   mshadow::SetHostAllocationLimit(size_t{8} << 30);  // a host's own budget: 8 GiB per call
//   mshadow::SetHostHugePageMinBytes(mshadow::kNoHostHugePages);  // 4 KiB pages only
#ifndef MSHADOW_HOST_MEMORY_H_
#define MSHADOW_HOST_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace mshadow {

// What an allocation is for, in messages ("a tensor of shape (2,3)"); called only on failure,
// so the common path builds no string.
using AllocationPurpose = std::function<std::string()>;

// Allocates at least `bytes` (rounded up to a multiple of `alignment`, a power of two; 0 bytes
// gives `alignment` bytes), aligned to `alignment`, uninitialised. Throws dmlc::Error, naming
// `bytes` and `what`, when the request is above the allocation limit, above the memory the
// system reports available (checked for requests of 1 GiB and more), or refused.
void* AllocHost(size_t bytes, size_t alignment, const AllocationPurpose& what);
void* AllocHost(size_t bytes, size_t alignment, const char* what);
// Frees memory from AllocHost (nullptr is ignored).
void FreeHost(void* ptr);

// `count` elements of `element_size` bytes, or a dmlc::Error naming `what` when the product
// overflows size_t (or `count` is negative).
size_t BytesFor(long long count, size_t element_size, const AllocationPurpose& what);

// The largest single request AllocHost grants; 0 (the default) means no limit of its own, only
// the system's available memory.
void SetHostAllocationLimit(size_t bytes);
size_t HostAllocationLimit();

// Requests of at least this many bytes (4 MiB by default; 0 restores the default) are placed
// on 2 MiB boundaries, rounded to whole 2 MiB pages and offered to the kernel's transparent
// huge pages (madvise; Linux): an operator reading a large table at scattered rows (take,
// Embedding) otherwise misses the TLB on nearly every row. Where huge pages are off, or the
// kernel has none to give, the memory is ordinary pages. With the kernel's defragmentation
// set to act on madvise'd memory, a first touch may wait for compaction: a host that would
// rather not sets kNoHostHugePages.
constexpr size_t kNoHostHugePages = SIZE_MAX;
void SetHostHugePageMinBytes(size_t bytes);
size_t HostHugePageMinBytes();

// The memory the system could give this process now, in bytes (MemAvailable plus free swap
// from /proc/meminfo; SIZE_MAX where that cannot be read).
size_t AvailableHostMemory();

}  // namespace mshadow

#endif  // MSHADOW_HOST_MEMORY_H_
