// C = dot(A, B) through the expression engine against a direct cblas_sgemm call on the same
// buffers, at n = 64, 256, 1024 (square float matrices). The ratio of the two times is the
// engine's overhead (see docs/benchmarks.md for measured ratios).
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <random>

#include "mshadow/tensor.h"

namespace {

using mshadow::cpu;
using mshadow::Shape2;
using mshadow::TensorContainer;

struct Operands {
  explicit Operands(int n)
      : a(Shape2(n, n), 0.0f, false), b(Shape2(n, n), 0.0f, false), c(Shape2(n, n), 0.0f, false) {
    std::mt19937 gen(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float* p = a.dptr_; p != a.dptr_ + n * n; ++p) *p = dist(gen);
    for (float* p = b.dptr_; p != b.dptr_ + n * n; ++p) *p = dist(gen);
  }
  TensorContainer<cpu, 2> a, b, c;
};

void SetCounters(benchmark::State& state, int n) {
  state.counters["flops"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_DotExpression(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Operands ops(n);
  for (auto _ : state) {
    ops.c = mshadow::expr::dot(ops.a, ops.b);
    benchmark::DoNotOptimize(ops.c.dptr_);
    benchmark::ClobberMemory();
  }
  SetCounters(state, n);
}

void BM_DirectSgemm(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Operands ops(n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, ops.a.dptr_, n,
                ops.b.dptr_, n, 0.0f, ops.c.dptr_, n);
    benchmark::DoNotOptimize(ops.c.dptr_);
    benchmark::ClobberMemory();
  }
  SetCounters(state, n);
}

// Interleaved so that both see the same machine state.
BENCHMARK(BM_DirectSgemm)->Arg(64)->Arg(256)->Arg(1024)->UseRealTime();
BENCHMARK(BM_DotExpression)->Arg(64)->Arg(256)->Arg(1024)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
