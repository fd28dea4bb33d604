#include "mshadow/parallel.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <thread>

#include "mshadow/host_memory.h"
#include "mshadow/streaming_stores.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mshadow {
namespace {

std::atomic<int> g_num_threads{0};

// OMP_NUM_THREADS (its first entry) when set to a positive number, else the cores this
// process may run on: the convention hosts and MXNet already follow.
int DefaultNumThreads() {
  if (const char* env = std::getenv("OMP_NUM_THREADS")) {
    char* end = nullptr;
    const long value = std::strtol(env, &end, 10);
    if (end != env && value > 0 && value <= 4096) return static_cast<int>(value);
  }
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) > 0) {
    return CPU_COUNT(&cpus);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

inline void CpuRelax() {
#if defined(__SSE2__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// How many WorkersStayAwake scopes exist (SpinUntil spins on while any does).
std::atomic<int> g_stay_awake{0};

// Spins until ready() or for about kSpinTime (longer while a WorkersStayAwake exists);
// returns whether ready() became true. Long enough to catch the next job of a loop of
// operator calls, short enough that an idle library holds no core.
constexpr std::chrono::microseconds kSpinTime{20};
template <typename Ready>
bool SpinUntil(Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
      CpuRelax();
    }
    if (std::chrono::steady_clock::now() >= deadline &&
        g_stay_awake.load(std::memory_order_relaxed) == 0) {
      return ready();
    }
  }
}

// Worker threads that sleep when idle. One ParallelFor at a time uses them; a call that
// finds them busy runs serially (see parallel.h).
class ThreadPool {
 public:
  // Threads a job may have.
  static constexpr int kMaxThreads = 1 << 12;
  // Chunks per thread: a thread whose core is taken away (another process, the host of a VM)
  // holds up the job by one chunk, not by all of its share, which the others take over.
  static constexpr int kChunksPerThread = 4;
  static constexpr int kMaxChunks = kMaxThreads * kChunksPerThread;

  using Body = void (*)(void* context, index_t item);

  // Never destroyed: its workers sleep until the process exits.
  static ThreadPool& Get() {
    static ThreadPool* pool = new ThreadPool();
    return *pool;
  }

  // Runs the job on `threads` threads (the caller among them); false, with nothing run,
  // when the pool is in use.
  bool TryRun(index_t items, int threads, Body body, void* context) {
    bool expected = false;
    if (!busy_.compare_exchange_strong(expected, true, std::memory_order_acquire)) return false;
    struct Release {
      std::atomic<bool>* busy;
      ~Release() { busy->store(false, std::memory_order_release); }
    } release{&busy_};

    threads = static_cast<int>(std::min<index_t>(threads, items));
    const int chunks =
        static_cast<int>(std::min<index_t>(index_t{threads} * kChunksPerThread, items));
    EnsureWorkers(threads - 1);
    job_ = Job{items, chunks, body, context};
    error_ = nullptr;
    remaining_.store(chunks, std::memory_order_relaxed);
    uint64_t tag;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // The job's tag: its number, chunk count and thread count. Each chunk is claimed once
      // (Claim), by the caller too: when a worker is slow to wake (another process has its
      // core), the caller runs the chunks it has not claimed instead of waiting for it.
      ticket_ += uint64_t{1} << kTicketShift;
      tag = ticket_ | static_cast<uint64_t>(chunks) << kChunksShift |
            static_cast<uint64_t>(threads);
      generation_.store(tag, std::memory_order_release);
    }
    // Only the job's workers are woken: others woken for nothing had taken the cores of the
    // threads at work (the caller lost its core for longer than a chunk).
    for (int w = 1; w < threads; ++w) wake_[w - 1].notify_one();

    RunClaimedChunks(tag, 0);
    if (!SpinUntil([this] { return remaining_.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [this] { return remaining_.load(std::memory_order_acquire) == 0; });
    }
    if (error_) std::rethrow_exception(error_);
    return true;
  }

 private:
  // A job's tag: job number (bits 32-63), chunk count (16-31) and thread count (0-15).
  static constexpr int kChunksShift = 16, kTicketShift = 32;
  static constexpr uint64_t kCountMask = (uint64_t{1} << kChunksShift) - 1;
  static int ChunksOf(uint64_t tag) { return static_cast<int>((tag >> kChunksShift) & kCountMask); }
  static int ThreadsOf(uint64_t tag) { return static_cast<int>(tag & kCountMask); }

  struct Job {
    index_t items;
    int chunks;
    Body body;
    void* context;
  };

  ThreadPool() = default;

  // Called with the pool held (busy_), so num_workers_ needs no lock of its own. Workers
  // are detached: they sleep until the process exits.
  void EnsureWorkers(int count) {
    const uint64_t current = generation_.load(std::memory_order_relaxed);
    for (; num_workers_ < count; ++num_workers_) {
      // A worker keeps its own condition variable's address: the deque's elements stay put
      // as it grows, but indexing it while it grows would race.
      std::condition_variable* wake = &wake_.emplace_back();
      const int own = num_workers_ + 1;
      std::thread([this, current, own, wake] { WorkerLoop(current, own, wake); }).detach();
    }
  }

  // Claims chunk c for the job with this tag: false when it was claimed already. Tags only
  // grow, so a chunk is free while its claimed_ entry is below the tag, and a late worker
  // holding a finished job's tag claims nothing (without reading job_, which the next job
  // may be writing).
  bool Claim(uint64_t tag, int c) {
    uint64_t seen = claimed_[c].load(std::memory_order_relaxed);
    while (seen < tag) {
      if (claimed_[c].compare_exchange_weak(seen, tag, std::memory_order_acq_rel)) return true;
    }
    return false;
  }

  // Runs the chunks of thread `own`'s share of the job with this tag (thread t's share is
  // chunks [t * chunks / threads, (t + 1) * chunks / threads), the t-th run of the items), in
  // order, then any chunk still unclaimed, last first: what is left of the share of a thread
  // that lost its core, from the end that thread would reach last. Each thread starting on
  // its own share (the caller on the first, worker w on the w-th) keeps a loop of calls over
  // the same data on the same cores, with their caches; workers past the job's threads take
  // no part.
  void RunClaimedChunks(uint64_t tag, int own) {
    const int chunks = ChunksOf(tag), threads = ThreadsOf(tag);
    if (own >= threads) return;
    auto run = [&](int c) {
      RunChunk(c);
      if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mutex_);
        done_.notify_one();
      }
    };
    const auto share_start = [&](int t) {
      return static_cast<int>(static_cast<int64_t>(t) * chunks / threads);
    };
    for (int c = share_start(own); c < share_start(own + 1); ++c) {
      if (Claim(tag, c)) run(c);
    }
    for (int c = chunks - 1; c >= 0; --c) {
      if (Claim(tag, c)) run(c);
    }
  }

  // Chunk c covers items [c * q + min(c, r), ...), q = items / chunks, r = items % chunks.
  void RunChunk(int chunk) {
    const index_t q = job_.items / job_.chunks, r = job_.items % job_.chunks;
    const index_t begin = chunk * q + std::min<index_t>(chunk, r);
    const index_t end = begin + q + (chunk < r ? 1 : 0);
    try {
      for (index_t i = begin; i < end; ++i) job_.body(job_.context, i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
    }
    // A body may have written with streaming stores; they must land before the join.
    FenceStreamingStores();
  }

  void WorkerLoop(uint64_t seen, int own, std::condition_variable* wake) {
    for (;;) {
      auto changed = [&] { return generation_.load(std::memory_order_acquire) != seen; };
      // Only a worker the last job used spins for the next: the others would take cores from
      // the threads at work.
      const bool took_part = own < ThreadsOf(seen);
      if (!(took_part && SpinUntil(changed))) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake->wait(lock, changed);
      }
      seen = generation_.load(std::memory_order_acquire);
      RunClaimedChunks(seen, own);
    }
  }

  std::atomic<bool> busy_{false};
  int num_workers_ = 0;
  Job job_{};
  std::exception_ptr error_;
  std::mutex error_mutex_;
  std::atomic<int> remaining_{0};               // chunks of the current job not yet done
  uint64_t ticket_ = 0;                          // the job number, in bits 32-63
  std::atomic<uint64_t> claimed_[kMaxChunks] = {};  // per chunk, the tag that claimed it
  std::atomic<uint64_t> generation_{0};          // the tag of the latest job
  std::mutex mutex_;
  std::deque<std::condition_variable> wake_;  // per worker (grown by EnsureWorkers)
  std::condition_variable done_;
};

}  // namespace

WorkersStayAwake::WorkersStayAwake() { g_stay_awake.fetch_add(1, std::memory_order_relaxed); }
WorkersStayAwake::~WorkersStayAwake() { g_stay_awake.fetch_sub(1, std::memory_order_relaxed); }

void SetNumThreads(int num_threads) { g_num_threads.store(num_threads < 0 ? 0 : num_threads); }

int GetNumThreads() {
  const int set = g_num_threads.load(std::memory_order_relaxed);
  if (set > 0) return set;
  static const int default_threads = DefaultNumThreads();
  return default_threads;
}

namespace detail {

void ParallelForImpl(index_t items, int threads, void (*body)(void* context, index_t item),
                     void* context) {
  threads = std::min(threads, ThreadPool::kMaxThreads);
  if (ThreadPool::Get().TryRun(items, threads, body, context)) return;
  for (index_t i = 0; i < items; ++i) body(context, i);
}

}  // namespace detail
void* ThreadScratch(size_t bytes) {
  struct Scratch {
    void* memory = nullptr;
    size_t bytes = 0;
    ~Scratch() { FreeHost(memory); }
  };
  thread_local Scratch scratch;
  if (bytes > scratch.bytes) {
    const size_t rounded = (bytes + 63) / 64 * 64;
    void* memory = AllocHost(rounded, 64, "a thread's scratch space");
    FreeHost(scratch.memory);
    scratch.memory = memory;
    scratch.bytes = rounded;
  }
  return scratch.memory;
}

}  // namespace mshadow
