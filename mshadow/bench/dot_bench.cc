// C = dot(A, B) through the expression engine against a direct cblas_sgemm call on the same
// buffers, at n = 64, 256, 1024 (square float matrices): the ratio of the two times is the
// engine's overhead. And y = dot(x, A.T()) and y = dot(x, A), the engine's gemv (its own
// loops, mshadow/cpu/gemv.h) against a direct cblas_sgemv call, at n = 256 (A in the L2
// cache), 1024 and 4096 (docs/benchmarks.md has the ratios).
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

// y = x A^T (dots of A's rows with x) or y = x A (A's rows weighed by x), A n x n.
void RunGemv(benchmark::State& state, bool dots, bool direct) {
  const int n = static_cast<int>(state.range(0));
  Operands ops(n);
  mshadow::Tensor<cpu, 1> x = ops.b[0], y = ops.c[0];
  for (auto _ : state) {
    if (direct) {
      cblas_sgemv(CblasRowMajor, dots ? CblasNoTrans : CblasTrans, n, n, 1.0f, ops.a.dptr_, n,
                  x.dptr_, 1, 0.0f, y.dptr_, 1);
    } else if (dots) {
      y = mshadow::expr::dot(x, ops.a.T());
    } else {
      y = mshadow::expr::dot(x, ops.a);
    }
    benchmark::DoNotOptimize(y.dptr_);
    benchmark::ClobberMemory();
  }
  state.counters["bytes"] =
      benchmark::Counter(4.0 * n * n, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_GemvExpression_Dots(benchmark::State& state) { RunGemv(state, true, false); }
void BM_DirectSgemv_Dots(benchmark::State& state) { RunGemv(state, true, true); }
void BM_GemvExpression_Combination(benchmark::State& state) { RunGemv(state, false, false); }
void BM_DirectSgemv_Combination(benchmark::State& state) { RunGemv(state, false, true); }

// Interleaved so that both see the same machine state.
BENCHMARK(BM_DirectSgemm)->Arg(64)->Arg(256)->Arg(1024)->UseRealTime();
BENCHMARK(BM_DotExpression)->Arg(64)->Arg(256)->Arg(1024)->UseRealTime();
BENCHMARK(BM_DirectSgemv_Dots)->Arg(256)->Arg(1024)->Arg(4096)->UseRealTime();
BENCHMARK(BM_GemvExpression_Dots)->Arg(256)->Arg(1024)->Arg(4096)->UseRealTime();
BENCHMARK(BM_DirectSgemv_Combination)->Arg(256)->Arg(1024)->Arg(4096)->UseRealTime();
BENCHMARK(BM_GemvExpression_Combination)->Arg(256)->Arg(1024)->Arg(4096)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
