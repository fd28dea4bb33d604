#include "mshadow/host_memory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "dmlc/logging.h"
#include "dmlc/testing/error_message.h"
#include "mshadow/tensor.h"

namespace mshadow {
namespace {

using dmlc::testing::ErrorMessageOf;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

// Restores the default limit however a test ends.
struct LimitGuard {
  ~LimitGuard() { SetHostAllocationLimit(0); }
};

// Restores the default huge-page threshold however a test ends.
struct HugePageGuard {
  ~HugePageGuard() { SetHostHugePageMinBytes(0); }
};

constexpr size_t kHugePage = size_t{2} << 20;

// The first word of /sys/kernel/mm/transparent_hugepage/enabled in brackets ("always",
// "madvise", "never"), or "" where the file cannot be read.
std::string TransparentHugePageMode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  const size_t open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos
             ? ""
             : line.substr(open + 1, close - open - 1);
}

// The "THPeligible:" value of the mapping of /proc/self/smaps that holds `p` (-1: none found).
int HugePageEligible(const void* p) {
  std::ifstream in("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  std::string line;
  while (std::getline(in, line)) {
    unsigned long long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx ", &begin, &end) == 2 && line.find(' ') != 0) {
      inside = begin <= at && at < end;
      continue;
    }
    int eligible = 0;
    if (inside && std::sscanf(line.c_str(), "THPeligible: %d", &eligible) == 1) return eligible;
  }
  return -1;
}

constexpr size_t kGiB = size_t{1} << 30;

TEST(HostMemoryTest, AllocatesAlignedAndRoundsZeroUp) {
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{1000}}) {
    void* p = AllocHost(bytes, 64, "a test buffer");
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    FreeHost(p);
  }
  FreeHost(nullptr);
}

TEST(HostMemoryTest, RequestAboveAvailableMemoryIsAnErrorNamingTheSize) {
  const size_t huge = 400 * kGiB;  // more than this machine, or any CI machine, has free
  ASSERT_LT(AvailableHostMemory(), huge);
  EXPECT_THAT(ErrorMessageOf([&] { AllocHost(huge, 64, "a test buffer"); }),
              MatchesRegex("cannot allocate 429496729600 bytes \\(400\\.0 GiB\\) for a test "
                           "buffer: only [0-9]+ bytes \\([0-9.]+ GiB\\) of memory is available"));
}

TEST(HostMemoryTest, LimitIsEnforcedAndNamed) {
  LimitGuard guard;
  SetHostAllocationLimit(1 << 20);
  EXPECT_EQ(HostAllocationLimit(), size_t{1} << 20);
  EXPECT_EQ(ErrorMessageOf([] { AllocHost((1 << 20) + 1, 64, "a test buffer"); }),
            "cannot allocate 1048577 bytes (1.0 MiB) for a test buffer: the host allocation "
            "limit is 1048576 bytes (1.0 MiB)");
  void* at_limit = AllocHost(1 << 20, 64, "a test buffer");
  FreeHost(at_limit);
}

TEST(HostMemoryTest, SizesThatOverflowAreErrors) {
  EXPECT_EQ(
      ErrorMessageOf([] { BytesFor(INT64_MAX, 4, [] { return std::string("a big tensor"); }); }),
      "cannot allocate a big tensor: 9223372036854775807 elements of 4 bytes overflow the "
      "address space");
  EXPECT_EQ(ErrorMessageOf([] { BytesFor(-3, 4, [] { return std::string("a tensor"); }); }),
            "cannot allocate a tensor: -3 elements of 4 bytes is a negative size");
  EXPECT_EQ(BytesFor(6, 8, [] { return std::string("unused"); }), 48u);
  EXPECT_THAT(ErrorMessageOf([] { AllocHost(SIZE_MAX - 10, 64, "a test buffer"); }),
              HasSubstr("it overflows the address space"));
}

TEST(HostMemoryTest, TensorAllocationFailsCleanlyAndLeavesTheTensorUnchanged) {
  // (2^20, 2^20) floats: 4 TiB, more than any machine has available.
  Tensor<cpu, 2, float> big(Shape2(index_t{1} << 20, index_t{1} << 20));
  EXPECT_THAT(ErrorMessageOf([&] { AllocSpace(&big); }),
              HasSubstr("cannot allocate 4398046511104 bytes (4096.0 GiB) for a tensor of shape "
                        "(1048576,1048576): only "));
  EXPECT_EQ(big.dptr_, nullptr);
  // Rows times columns beyond index_t: the product is checked, not wrapped.
  Tensor<cpu, 3, float> wraps(Shape3(index_t{1} << 40, index_t{1} << 40, 2));
  EXPECT_THAT(ErrorMessageOf([&] { AllocSpace(&wraps); }),
              HasSubstr("has more elements than index_t holds"));
  Tensor<cpu, 1, float> negative(Shape1(-5));
  EXPECT_THAT(ErrorMessageOf([&] { AllocSpace(&negative); }), HasSubstr("negative extent"));
}

TEST(HostMemoryTest, PacketBuffersUseTheSameChecks) {
  size_t pitch = 0;
  EXPECT_THAT(ErrorMessageOf([&] { packet::AlignedMallocPitch(&pitch, size_t{1} << 40, 400); }),
              HasSubstr("cannot allocate "));
  void* rows = packet::AlignedMallocPitch(&pitch, 10, 3);
  EXPECT_GE(pitch, 10u);
  packet::AlignedFree(rows);
}

TEST(HostMemoryTest, LargeRequestsAreOfferedHugePages) {
  HugePageGuard guard;
  EXPECT_EQ(HostHugePageMinBytes(), 2 * kHugePage);
  const size_t bytes = 3 * kHugePage + 100;  // rounded to four whole huge pages
  void* p = AllocHost(bytes, 64, "a test table");
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kHugePage, 0u);
  std::memset(p, 1, bytes);  // the whole rounded range belongs to the allocation
  const std::string mode = TransparentHugePageMode();
  const int eligible = HugePageEligible(p);
  if (eligible >= 0 && (mode == "madvise" || mode == "always")) {
    EXPECT_EQ(eligible, 1) << mode;
  }
  if (eligible >= 0 && mode == "never") {
    EXPECT_EQ(eligible, 0);
  }
  FreeHost(p);
}

TEST(HostMemoryTest, HugePageThresholdIsSetAndRestored) {
  HugePageGuard guard;
  SetHostHugePageMinBytes(kHugePage);
  EXPECT_EQ(HostHugePageMinBytes(), kHugePage);
  void* p = AllocHost(kHugePage, 64, "a test table");
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kHugePage, 0u);
  FreeHost(p);
  SetHostHugePageMinBytes(kNoHostHugePages);
  EXPECT_EQ(HostHugePageMinBytes(), kNoHostHugePages);
  if (TransparentHugePageMode() == "madvise") {
    // Without the advice the allocator's own placement stands: not a huge-page candidate.
    void* q = AllocHost(4 * kHugePage, 64, "a test table");
    std::memset(q, 1, 4 * kHugePage);
    const int eligible = HugePageEligible(q);
    if (eligible >= 0) {
      EXPECT_EQ(eligible, 0);
    }
    FreeHost(q);
  }
  SetHostHugePageMinBytes(0);
  EXPECT_EQ(HostHugePageMinBytes(), 2 * kHugePage);
}

TEST(HostMemoryTest, HugePageAlignmentDoesNotHideOverflow) {
  EXPECT_THAT(ErrorMessageOf([&] { AllocHost(SIZE_MAX - 100, 64, "a test buffer"); }),
              HasSubstr("cannot allocate "));
}

}  // namespace
}  // namespace mshadow
