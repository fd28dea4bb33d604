#include "mshadow/host_memory.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "dmlc/logging.h"

namespace mshadow {
namespace {

// Below this a request is granted without reading /proc/meminfo (a few microseconds).
constexpr size_t kCheckAvailableFrom = size_t{1} << 30;

std::atomic<size_t> allocation_limit{0};

// A transparent huge page on x86-64 and most aarch64 kernels.
constexpr size_t kHugePageBytes = size_t{2} << 20;
// Rounding a request of at least this to whole huge pages adds under half of it.
constexpr size_t kDefaultHugePagesFrom = size_t{2} * kHugePageBytes;
std::atomic<size_t> huge_pages_from{kDefaultHugePagesFrom};

// Asks the kernel to back [ptr, ptr + bytes) with huge pages where transparent huge pages are
// enabled for madvise'd memory only (the common default); a hint: refusal changes nothing.
void AdviseHugePages(void* ptr, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  madvise(ptr, bytes, MADV_HUGEPAGE);
#else
  (void)ptr;
  (void)bytes;
#endif
}

// "17179869184 bytes (16.0 GiB)", "1048576 bytes (1.0 MiB)", "100 bytes".
std::string SizeText(size_t bytes) {
  std::ostringstream os;
  os << bytes << " bytes";
  os.precision(1);
  os << std::fixed;
  if (bytes >= (size_t{1} << 30)) {
    os << " (" << static_cast<double>(bytes) / (size_t{1} << 30) << " GiB)";
  } else if (bytes >= (size_t{1} << 20)) {
    os << " (" << static_cast<double>(bytes) / (size_t{1} << 20) << " MiB)";
  }
  return os.str();
}

[[noreturn]] void AllocationError(size_t bytes, const AllocationPurpose& what,
                                  const std::string& why) {
  throw dmlc::Error("cannot allocate " + SizeText(bytes) + " for " + what() + ": " + why);
}

}  // namespace

size_t AvailableHostMemory() {
  std::FILE* meminfo = std::fopen("/proc/meminfo", "r");
  if (meminfo == nullptr) return SIZE_MAX;
  unsigned long long available_kib = 0, swap_free_kib = 0, value = 0;
  bool found = false;
  char line[256];
  while (std::fgets(line, sizeof(line), meminfo) != nullptr) {
    if (std::sscanf(line, "MemAvailable: %llu kB", &value) == 1) {
      available_kib = value;
      found = true;
    } else if (std::sscanf(line, "SwapFree: %llu kB", &value) == 1) {
      swap_free_kib = value;
    }
  }
  std::fclose(meminfo);
  return found ? static_cast<size_t>((available_kib + swap_free_kib) * 1024) : SIZE_MAX;
}

void SetHostAllocationLimit(size_t bytes) { allocation_limit.store(bytes); }
size_t HostAllocationLimit() { return allocation_limit.load(); }

size_t BytesFor(long long count, size_t element_size, const AllocationPurpose& what) {
  size_t bytes = 0;
  if (count < 0 || __builtin_mul_overflow(static_cast<size_t>(count), element_size, &bytes)) {
    std::ostringstream os;
    os << "cannot allocate " << what() << ": " << count << " elements of " << element_size
       << " bytes " << (count < 0 ? "is a negative size" : "overflow the address space");
    throw dmlc::Error(os.str());
  }
  return bytes;
}

void* AllocHost(size_t bytes, size_t alignment, const char* what) {
  return AllocHost(bytes, alignment, [what] { return std::string(what); });
}

void* AllocHost(size_t bytes, size_t alignment, const AllocationPurpose& what) {
  CHECK(alignment != 0 && (alignment & (alignment - 1)) == 0)
      << "AllocHost: alignment " << alignment << " is not a power of two";
  const size_t limit = allocation_limit.load();
  if (limit != 0 && bytes > limit) {
    AllocationError(bytes, what, "the host allocation limit is " + SizeText(limit));
  }
  const bool huge = bytes >= huge_pages_from.load(std::memory_order_relaxed);
  if (huge && alignment < kHugePageBytes) alignment = kHugePageBytes;
  if (bytes > SIZE_MAX - alignment) AllocationError(bytes, what, "it overflows the address space");
  // aligned_alloc needs a non-zero size that is a multiple of the alignment.
  const size_t rounded = bytes == 0 ? alignment : (bytes + alignment - 1) / alignment * alignment;
  if (rounded >= kCheckAvailableFrom) {
    const size_t available = AvailableHostMemory();
    if (rounded > available) {
      AllocationError(bytes, what, "only " + SizeText(available) + " of memory is available");
    }
  }
  void* ptr = std::aligned_alloc(alignment, rounded);
  if (ptr == nullptr) AllocationError(bytes, what, "the allocator refused it");
  if (huge) AdviseHugePages(ptr, rounded);
  return ptr;
}

void FreeHost(void* ptr) { std::free(ptr); }

void SetHostHugePageMinBytes(size_t bytes) {
  huge_pages_from.store(bytes == 0 ? kDefaultHugePagesFrom : bytes, std::memory_order_relaxed);
}

size_t HostHugePageMinBytes() { return huge_pages_from.load(std::memory_order_relaxed); }

}  // namespace mshadow
