#include "mshadow/parallel.h"

#include <gtest/gtest.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace mshadow {
namespace {

TEST(ParallelForTest, RunsEveryItemOnceForAnyThreadCount) {
  for (int threads : {1, 2, 3, 8}) {
    for (index_t items : {0, 1, 2, 7, 64, 1001}) {
      std::vector<std::atomic<int>> runs(items);
      ParallelFor(items, threads, [&](index_t i) { runs[i].fetch_add(1); });
      for (index_t i = 0; i < items; ++i) {
        ASSERT_EQ(runs[i].load(), 1) << "item " << i << " of " << items << ", " << threads
                                     << " threads";
      }
    }
  }
}

TEST(ParallelForTest, UsesSeveralThreadsWhenAsked) {
  std::mutex mutex;
  std::set<std::thread::id> ids;
  ParallelFor(4, 4, [&](index_t) {
    std::lock_guard<std::mutex> lock(mutex);
    ids.insert(std::this_thread::get_id());
    // Each item holds the lock long enough for a worker to wake and claim one; the caller
    // runs chunks no worker has claimed, so a loaded machine may use fewer than four.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  });
  EXPECT_GE(ids.size(), 2u);
}

// Loops of calls keep their data in the same cores' caches: each thread starts on its own
// chunk (the caller on the first, worker w on chunk w) and only then runs chunks nobody has
// claimed. Whichever threads the machine lets run, the caller's first chunk is chunk 0 and a
// worker's its own: a worker that ran chunk 0 (the caller slow) ran chunk 1 before it.
TEST(ParallelForTest, EachThreadStartsOnItsOwnChunk) {
  const std::thread::id caller = std::this_thread::get_id();
  for (int call = 0; call < 200; ++call) {
    std::thread::id ran[2];
    int order[2];
    std::atomic<int> started{0};
    ParallelFor(2, 2, [&](index_t i) {
      order[i] = started.fetch_add(1);
      ran[i] = std::this_thread::get_id();
      // Long enough that both threads usually take part.
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(20);
      while (std::chrono::steady_clock::now() < until) {
      }
    });
    if (ran[1] == caller) {
      ASSERT_EQ(ran[0], caller) << "call " << call << ": the caller took chunk 1, not its own";
      ASSERT_LT(order[0], order[1]) << "call " << call;
    }
    if (ran[0] != caller) {
      ASSERT_EQ(ran[1], ran[0]) << "call " << call << ": a worker started on the caller's chunk";
      ASSERT_LT(order[1], order[0]) << "call " << call;
    }
  }
}

// A thread held up inside its share of a job (its core taken by another process) delays the
// job by the item it is in, not by the rest of its share: the other threads take that over.
// Of 8 items on 2 threads the worker's share is items 4-7; its first waits (up to 10 s) for
// 5, 6 and 7, which only another thread can run while it waits. The caller's share takes
// long enough (8 ms) for the worker to wake and start on its own.
TEST(ParallelForTest, OthersTakeOverTheShareOfAThreadHeldUp) {
  const std::thread::id caller = std::this_thread::get_id();
  int worker_held_up = 0;
  for (int call = 0; call < 20; ++call) {
    std::atomic<int> rest_done{0};
    std::thread::id ran[8];
    bool waited_in_vain = false;
    ParallelFor(8, 2, [&](index_t i) {
      ran[i] = std::this_thread::get_id();
      if (i < 4) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      if (i > 4) rest_done.fetch_add(1);
      if (i != 4 || ran[4] == caller) return;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (rest_done.load() < 3 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
      waited_in_vain = rest_done.load() < 3;
    });
    ASSERT_FALSE(waited_in_vain) << "call " << call << ": items 5-7 waited for the worker";
    if (ran[4] != caller) {
      ++worker_held_up;
      for (int i = 5; i < 8; ++i) EXPECT_EQ(ran[i], caller) << "call " << call << ", item " << i;
    }
  }
  EXPECT_GT(worker_held_up, 0) << "the worker never started on its share in 20 calls";
}

// A job whose worker cannot start at once (its chunks claimed by the caller) still runs
// every item once, and back-to-back jobs never mix.
TEST(ParallelForTest, ManySmallJobsBackToBack) {
  for (int job = 0; job < 2000; ++job) {
    std::vector<int> out(5, -1);
    ParallelFor(5, 3, [&](index_t i) { out[i] = job; });
    for (int v : out) ASSERT_EQ(v, job);
  }
}

TEST(ParallelForTest, ExceptionReachesTheCallerAndThePoolStaysUsable) {
  for (index_t bad : {index_t{0}, index_t{99}}) {  // the caller's chunk, a worker's chunk
    EXPECT_THROW(ParallelFor(100, 4,
                             [&](index_t i) {
                               if (i == bad) throw std::runtime_error("item failed");
                             }),
                 std::runtime_error);
  }
  std::atomic<index_t> sum{0};
  ParallelFor(100, 4, [&](index_t i) { sum += i; });
  EXPECT_EQ(sum.load(), 4950);
}

TEST(ParallelForTest, NestedCallsRunSerially) {
  std::vector<std::atomic<int>> runs(16 * 16);
  ParallelFor(16, 4, [&](index_t outer) {
    ParallelFor(16, 4, [&](index_t inner) { runs[outer * 16 + inner].fetch_add(1); });
  });
  for (auto& r : runs) ASSERT_EQ(r.load(), 1);
}

TEST(ParallelForTest, ConcurrentCallersFromHostThreads) {
  constexpr int kCallers = 6, kCalls = 200, kItems = 37;
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&] {
      for (int call = 0; call < kCalls; ++call) {
        std::vector<int> out(kItems, 0);
        ParallelFor(kItems, 3, [&](index_t i) { out[i] = static_cast<int>(i) * 2; });
        for (int i = 0; i < kItems; ++i) wrong += out[i] != i * 2;
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

double ProcessCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// The workers must sleep when there is no work: an idle library may not hold a core that
// a host framework's threads want (OpenMP's default spin-wait did).
TEST(ParallelForTest, IdleWorkersSleep) {
  std::atomic<index_t> sum{0};
  ParallelFor(64, 4, [&](index_t i) { sum += i; });  // start the workers
  const double before = ProcessCpuSeconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double used = ProcessCpuSeconds() - before;
  // Three spinning workers would use about 0.9 s here; sleeping ones next to nothing.
  EXPECT_LT(used, 0.05) << "CPU seconds used by idle workers in 0.3 s";
}

// Within a WorkersStayAwake scope the last job's workers keep spinning (so that the job
// after an operator's serial work finds them awake); once the scope ends they sleep again.
TEST(ParallelForTest, WorkersStayAwakeOnlyWithinTheScope) {
  std::atomic<index_t> sum{0};
  double used_awake;
  {
    const WorkersStayAwake awake;
    ParallelFor(64, 2, [&](index_t i) { sum += i; });  // one worker takes part
    // The spinning worker uses a core's time; with other tests on the cores it gets less of
    // it, so wait (up to 5 s) until it has used 0.1 s: a sleeping one never does.
    const double before = ProcessCpuSeconds();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    do {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      used_awake = ProcessCpuSeconds() - before;
    } while (used_awake <= 0.1 && std::chrono::steady_clock::now() < deadline);
    ParallelFor(64, 2, [&](index_t i) { sum += i; });  // and finds it awake
  }
  const double before = ProcessCpuSeconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double used_after = ProcessCpuSeconds() - before;
  EXPECT_EQ(sum.load(), 2 * 63 * 64 / 2);
  EXPECT_GT(used_awake, 0.1) << "CPU seconds used by the worker kept awake, within 5 s";
  EXPECT_LT(used_after, 0.03) << "CPU seconds used by the worker after the scope in 0.2 s";
}

TEST(ParallelForTest, NumThreadsSetting) {
  SetNumThreads(3);
  EXPECT_EQ(GetNumThreads(), 3);
  SetNumThreads(0);
  EXPECT_GE(GetNumThreads(), 1);
  SetNumThreads(-5);
  EXPECT_GE(GetNumThreads(), 1);
}

}  // namespace
}  // namespace mshadow
