// The operator benchmark harness: times registered operators on the cases of
// ops/bench/op_bench.txt (see ops/bench/bench_cases.h), one Google Benchmark per case,
// direction and type, named "<case>/<forward|backward>/<type>".
//
//   op_bench [--suite=smoke|full|mxnet] [--cases=PATH] [--op_cases=PATH]
//            [--min_elements=N] [--huge_pages=0|1] [--streaming_stores=0|1] [--list]
//            [Google Benchmark flags]
//
// The timed loop is the compute alone (ops::InvokeUnchecked on inputs and outputs allocated
// and filled beforehand, attributes parsed once). What a host pays on top is reported beside
// it, per call, as counters: parse_ns (ops::ParseAttrs of the case's keyword arguments) and
// check_ns (the checks ops::Invoke makes: counts, types, shapes against inference).
// bytes_per_second counts every input and output byte once. --huge_pages=0 allocates every
// array in ordinary pages (mshadow::SetHostHugePageMinBytes), as a host whose allocator does
// not ask for huge pages gives them. --streaming_stores=0 writes every output through the
// caches (mshadow::SetStreamingStoreMinBytes), where by default outputs of half the last-level
// cache or more bypass them (a register-tiled kernel's from 16 MiB where the cache is larger).
//
// Threads: the engine's (OMP_NUM_THREADS, or all cores) and OpenBLAS's (OPENBLAS_NUM_THREADS),
// from the environment. CPU only: ops/bench/gpu_ops_bench.cc times the GPU operators.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "mshadow/host_memory.h"
#include "mshadow/streaming_stores.h"
#include "ops/bench/bench_cases.h"

namespace {

using ops::bench::BenchCase;
using ops::bench::Direction;

struct Flags {
  std::string suite = "full";
  std::string cases = "ops/bench/op_bench.txt";
  std::string op_cases = "ops/testing/op_cases.txt";
  int64_t min_elements = int64_t{1} << 20;
  bool list = false;
};

// Mean nanoseconds of `f` over enough calls to take about a millisecond.
template <typename F>
double MeanNanoseconds(F&& f) {
  using Clock = std::chrono::steady_clock;
  f();
  int calls = 0;
  const Clock::time_point start = Clock::now();
  Clock::duration elapsed{};
  do {
    f();
    ++calls;
    elapsed = Clock::now() - start;
  } while (elapsed < std::chrono::milliseconds(1) && calls < 100000);
  return std::chrono::duration<double, std::nano>(elapsed).count() / calls;
}

void RunCase(benchmark::State& state, const BenchCase& c, Direction direction, int type_flag) {
  ops::bench::PreparedCall call;
  try {
    call = ops::bench::Prepare(c, direction, type_flag);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const ops::OpContext ctx = ops::MakeCpuContext(call.attrs, call.is_train);
  for (auto _ : state) {
    try {
      ops::InvokeUnchecked<mshadow::cpu>(call.attrs, ctx, call.input_blobs, call.req,
                                         call.output_blobs);
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      break;
    }
    benchmark::ClobberMemory();
  }
  if (state.error_occurred()) return;
  state.SetBytesProcessed(static_cast<int64_t>(call.bytes * state.iterations()));
  // Outside the timed loop: what parsing and Invoke's checks add to a call.
  state.counters["parse_ns"] = MeanNanoseconds(
      [&] { benchmark::DoNotOptimize(ops::ParseAttrs(call.attrs.op, call.attrs.dict)); });
  state.counters["check_ns"] = MeanNanoseconds([&] {
    ops::CheckInvocation(call.attrs, ctx, call.input_blobs, call.req, call.output_blobs,
                         mshadow::cpu::kDevMask, "cpu");
  });
}

bool TakeFlag(const char* arg, const char* name, std::string* value) {
  const size_t length = std::strlen(name);
  if (std::strncmp(arg, name, length) != 0 || arg[length] != '=') return false;
  *value = arg + length + 1;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  std::vector<char*> benchmark_args;
  try {
    for (int i = 0; i < argc; ++i) {
      std::string min_elements, huge_pages, streaming_stores;
      if (TakeFlag(argv[i], "--suite", &flags.suite) ||
          TakeFlag(argv[i], "--cases", &flags.cases) ||
          TakeFlag(argv[i], "--op_cases", &flags.op_cases)) {
        continue;
      }
      if (TakeFlag(argv[i], "--min_elements", &min_elements)) {
        flags.min_elements = std::stoll(min_elements);
      } else if (TakeFlag(argv[i], "--huge_pages", &huge_pages)) {
        if (huge_pages != "0" && huge_pages != "1") {
          std::cerr << "op_bench: --huge_pages is 0 or 1, not '" << huge_pages << "'\n";
          return 2;
        }
        if (huge_pages == "0") mshadow::SetHostHugePageMinBytes(mshadow::kNoHostHugePages);
      } else if (TakeFlag(argv[i], "--streaming_stores", &streaming_stores)) {
        if (streaming_stores != "0" && streaming_stores != "1") {
          std::cerr << "op_bench: --streaming_stores is 0 or 1, not '" << streaming_stores << "'\n";
          return 2;
        }
        if (streaming_stores == "0")
          mshadow::SetStreamingStoreMinBytes(mshadow::kNoStreamingStores);
      } else if (std::strcmp(argv[i], "--list") == 0) {
        flags.list = true;
      } else {
        benchmark_args.push_back(argv[i]);
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "op_bench: bad --min_elements: " << e.what() << "\n";
    return 2;
  }

  std::vector<BenchCase> cases;
  try {
    cases = ops::bench::CasesForSuite(ops::bench::LoadBenchCases(flags.cases),
                                      ops::testing::LoadOpCases(flags.op_cases), flags.suite,
                                      flags.min_elements);
  } catch (const std::exception& e) {
    std::cerr << "op_bench: " << e.what() << "\n";
    return 2;
  }

  for (const BenchCase& c : cases) {
    for (const Direction direction : c.directions) {
      for (const int type_flag : c.type_flags) {
        const std::string name = ops::bench::BenchmarkName(c, direction, type_flag);
        if (flags.list) {
          std::cout << name << "  [" << ops::testing::CaseName(c.call) << "; " << c.origin << "]\n";
          continue;
        }
        benchmark::RegisterBenchmark(name.c_str(),
                                     [c, direction, type_flag](benchmark::State& state) {
                                       RunCase(state, c, direction, type_flag);
                                     })
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
  if (flags.list) return 0;

  benchmark::AddCustomContext("op_bench_suite", flags.suite);
  const char* threads = std::getenv("OMP_NUM_THREADS");
  benchmark::AddCustomContext("omp_num_threads", threads != nullptr ? threads : "all cores");
  int count = static_cast<int>(benchmark_args.size());
  benchmark::Initialize(&count, benchmark_args.data());
  if (benchmark::ReportUnrecognizedArguments(count, benchmark_args.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
