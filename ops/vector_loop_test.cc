// Tests for ops/vector_loop.h: CopyRun's copies and additions at every length (whole packets
// and each narrower tail), CopyToEach's blocks, RunWriter's pieces on and off alignment, the batch loops' every
// image once, on the threads asked for.
#include "ops/vector_loop.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"

namespace ops {
namespace {

// dst[0, n) = src or += src for every n up to five packets, src and dst a lane off a packet
// boundary: exact sums, and nothing written before dst or past dst + n.
template <typename DType>
void CheckCopyRuns() {
  constexpr index_t kLanes = vec::Full<DType>::kSize;
  for (index_t n = 0; n <= 5 * kLanes; ++n) {
    std::vector<DType> src(n + 2), dst(n + 2), before(n + 2);
    for (index_t i = 0; i < n + 2; ++i) {
      src[i] = DType(i + 1) / 4;
      before[i] = dst[i] = DType(3 * i + 7) / 8;
    }
    CopyRun<true>(dst.data() + 1, src.data() + 1, n);
    for (index_t i = 0; i < n + 2; ++i) {
      const DType expected = i == 0 || i > n ? before[i] : before[i] + src[i];
      ASSERT_EQ(dst[i], expected) << "adding " << n << " elements, at " << i;
    }
    CopyRun<false>(dst.data() + 1, src.data() + 1, n);
    for (index_t i = 0; i < n + 2; ++i) {
      const DType expected = i == 0 || i > n ? before[i] : src[i];
      ASSERT_EQ(dst[i], expected) << "copying " << n << " elements, at " << i;
    }
  }
}

TEST(CopyRunTest, EveryLengthFloat) { CheckCopyRuns<float>(); }
TEST(CopyRunTest, EveryLengthDouble) { CheckCopyRuns<double>(); }

// CopyToEach over 4 KiB blocks on one and two threads, a partial block last, streamed or not:
// a written output holds src, an added one its values plus src, a kNullOp one is untouched,
// and an output that is src itself keeps it.
template <typename DType>
void CheckCopyToEach() {
  struct StreamingFrom {
    explicit StreamingFrom(index_t bytes) { mshadow::SetStreamingStoreMinBytes(bytes); }
    ~StreamingFrom() { mshadow::SetStreamingStoreMinBytes(0); }
  };
  constexpr index_t kN = 40037;
  std::vector<DType> src(kN);
  for (index_t i = 0; i < kN; ++i) src[i] = DType(i % 251) / 8;
  for (const index_t streaming_from : {index_t{1}, mshadow::kNoStreamingStores}) {
    const StreamingFrom streaming(streaming_from);
    for (const int threads : {1, 2}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, streaming from " +
                   std::to_string(streaming_from) + " bytes");
      mshadow::SetNumThreads(threads);
      std::vector<DType> written(kN, DType(-1)), added(kN), untouched(kN, DType(5));
      for (index_t i = 0; i < kN; ++i) added[i] = DType(i % 7);
      std::vector<DType> self = src;
      CopyToEach(self.data(), kN, {written.data(), added.data(), untouched.data(), self.data()},
                 {kWriteTo, kAddTo, kNullOp, kWriteTo});
      for (index_t i = 0; i < kN; ++i) {
        ASSERT_EQ(written[i], src[i]) << i;
        ASSERT_EQ(added[i], DType(i % 7) + src[i]) << i;
        ASSERT_EQ(untouched[i], DType(5)) << i;
        ASSERT_EQ(self[i], src[i]) << i;
      }
    }
  }
  mshadow::SetNumThreads(1);
}

TEST(CopyToEachTest, BlocksOnTwoThreadsStreamedOrNotFloat) { CheckCopyToEach<float>(); }
TEST(CopyToEachTest, BlocksOnTwoThreadsStreamedOrNotDouble) { CheckCopyToEach<double>(); }

// RunWriter with and without streaming stores: copied rows and filled runs narrower and wider
// than its 2 KiB blocks, pieces that cross a block, outputs on and off a packet's alignment:
// every element in order, nothing written before the output or past its end.
template <typename DType, bool kStream>
void CheckRunWriter() {
  for (const index_t rows : {0, 1, 3, 40}) {
    for (const index_t n : {1, 7, 56, 300}) {
      for (const size_t offset_bytes : {size_t{0}, sizeof(DType), size_t{24}}) {
        std::vector<DType> src(n), expected;
        for (index_t i = 0; i < n; ++i) src[i] = DType(i + 1) / 4;
        const index_t total = rows * (n + 2 * n / 3 + 1);
        std::vector<unsigned char> bytes((total + 2) * sizeof(DType) + 128, 0xA5);
        unsigned char* aligned =
            bytes.data() + (64 - reinterpret_cast<uintptr_t>(bytes.data()) % 64);
        DType* dst = reinterpret_cast<DType*>(aligned + offset_bytes + sizeof(DType));
        {
          RunWriter<DType, kStream> writer(dst);
          for (index_t y = 0; y < rows; ++y) {
            writer.Copy(src.data(), n);
            writer.Fill(DType(-y), 2 * n / 3 + 1);
            expected.insert(expected.end(), src.begin(), src.end());
            expected.insert(expected.end(), 2 * n / 3 + 1, DType(-y));
          }
        }
        mshadow::FenceStreamingStores();
        ASSERT_EQ(static_cast<index_t>(expected.size()), total);
        for (index_t i = 0; i < total; ++i) {
          DType value;
          std::memcpy(&value, dst + i, sizeof(DType));
          ASSERT_EQ(value, expected[i])
              << rows << " rows of " << n << ", offset " << offset_bytes << ", at " << i;
        }
        for (const unsigned char* edge :
             {aligned + offset_bytes, reinterpret_cast<unsigned char*>(dst + total)}) {
          for (size_t b = 0; b < sizeof(DType); ++b) ASSERT_EQ(edge[b], 0xA5);
        }
      }
    }
  }
}

TEST(RunWriterTest, StreamedPiecesInOrderFloat) { CheckRunWriter<float, true>(); }
TEST(RunWriterTest, StreamedPiecesInOrderDouble) { CheckRunWriter<double, true>(); }
TEST(RunWriterTest, CachedPiecesInOrder) { CheckRunWriter<float, false>(); }

// The images each thread index ran, and the OS threads behind each index.
struct Visits {
  std::mutex mutex;
  std::vector<int> count;
  std::vector<std::set<std::thread::id>> os_threads;

  Visits(index_t images, index_t threads) : count(images), os_threads(threads) {}
  void Record(index_t t, index_t n) {
    std::lock_guard<std::mutex> lock(mutex);
    ++count[n];
    os_threads[t].insert(std::this_thread::get_id());
  }
};

TEST(ForEachImageTest, RunsEveryImageOnceOnEachThreadCount) {
  for (index_t threads : {1, 2, 3}) {
    mshadow::SetNumThreads(static_cast<int>(threads));
    for (index_t images : {0, 1, 2, 7, 64}) {
      const index_t used = BatchThreads(images);
      Visits visits(images, used);
      ForEachImage(images, used, [&](index_t t, index_t n) {
        ASSERT_GE(t, 0);
        ASSERT_LT(t, used);
        visits.Record(t, n);
      });
      for (index_t n = 0; n < images; ++n) {
        EXPECT_EQ(visits.count[n], 1)
            << "image " << n << " of " << images << ", " << threads << " threads";
      }
      // A thread index is one thread at a time: its scratch is never shared.
      for (const auto& ids : visits.os_threads) EXPECT_LE(ids.size(), 1u);
    }
  }
  mshadow::SetNumThreads(0);
}

// A slow image does not keep the others waiting for its thread: the other thread takes them.
TEST(ForEachImageTest, AFreeThreadTakesTheImagesLeft) {
  mshadow::SetNumThreads(2);
  std::atomic<bool> slow_done{false};
  std::vector<std::atomic<index_t>> ran_by(16);
  for (auto& r : ran_by) r = -1;
  std::atomic<index_t> slow_thread{-1};
  ForEachImage(16, 2, [&](index_t t, index_t n) {
    if (n == 0) {
      slow_thread = t;
      // Hold this thread until every other image has run (or give up after 5 s).
      for (int i = 0; i < 5000; ++i) {
        bool others_done = true;
        for (index_t m = 1; m < 16; ++m) others_done = others_done && ran_by[m] >= 0;
        if (others_done) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      slow_done = true;
    }
    ran_by[n] = t;
  });
  ASSERT_TRUE(slow_done);
  // Runs fixed beforehand would have given the slow thread half of the images.
  for (index_t m = 1; m < 16; ++m) EXPECT_NE(ran_by[m], slow_thread) << "image " << m;
  mshadow::SetNumThreads(0);
}

}  // namespace
}  // namespace ops
