// A = B * 2 + C in float through the expression engine, against its baselines on the same
// buffers: a hand-written loop (same flags), Eigen's Tensor module, and (out of cache) a
// memcpy moving the same number of bytes. In cache: 16 KiB per operand (4096 floats); out
// of cache: 64 MiB per operand.
//
// Ratios print at the end (baseline time / project time). For memcpy the byte counts are
// equal by construction (the copy moves 1.5x an operand: read + write = 3 operands, as
// B, C read and A written), so the time ratio is the bandwidth ratio.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

// Before Eigen, whose AVX-512 code then uses the intrinsics without GCC 12.2's false
// warnings (see the header).
#include "mshadow/packet/x86_intrinsics.h"

#include <unsupported/Eigen/CXX11/Tensor>

#include "mshadow/bench/aligned_vector.h"
#include "mshadow/bench/once_per_size.h"
#include "mshadow/parallel.h"
#include "mshadow/tensor.h"

namespace {

using mshadow::bench::AlignedVector;
using mshadow::bench::OncePerSize;
using mshadow::cpu;
using mshadow::index_t;
using mshadow::Shape1;
using mshadow::Tensor;

constexpr index_t kInCache = 16 * 1024 / sizeof(float);
constexpr index_t kOutOfCache = 64 * 1024 * 1024 / sizeof(float);

// A = B * 2 + C's operands of size n, shared by the project and its baselines through
// OncePerSize.
struct Operands {
  explicit Operands(index_t n) : a(n), b(n), c(n) {
    for (index_t i = 0; i < n; ++i) {
      b[i] = static_cast<float>(i % 97) * 0.5f;
      c[i] = static_cast<float>(i % 13);
    }
  }
  AlignedVector<float> a, b, c;
};

void SetBytes(benchmark::State& state, index_t n) {
  state.SetBytesProcessed(state.iterations() * 3 * n * static_cast<int64_t>(sizeof(float)));
}

// A = B * 2 + C on `threads` threads (0: all).
void RunAxpyOnThreads(benchmark::State& state, int threads) {
  mshadow::SetNumThreads(threads);
  const index_t n = state.range(0);
  Operands& ops = OncePerSize<Operands>(n);
  Tensor<cpu, 1, float> a(ops.a.data(), Shape1(n)), b(ops.b.data(), Shape1(n)),
      c(ops.c.data(), Shape1(n));
  // The buffers are shared: wipe what a baseline left in A so the check below sees ours.
  std::fill(ops.a.begin(), ops.a.end(), std::nanf(""));
  for (auto _ : state) {
    a = b * 2.0f + c;
    benchmark::ClobberMemory();
  }
  for (index_t i = 0; i < n; ++i) {
    if (ops.a[i] != ops.b[i] * 2.0f + ops.c[i]) {
      state.SkipWithError("wrong result");
      break;
    }
  }
  SetBytes(state, n);
  mshadow::SetNumThreads(0);
}

// The comparisons with single-threaded baselines run the project on one thread too.
void BM_Axpy_Project(benchmark::State& state) { RunAxpyOnThreads(state, 1); }

void BM_Axpy_BaselineLoop(benchmark::State& state) {
  const index_t n = state.range(0);
  Operands& ops = OncePerSize<Operands>(n);
  // GCC 12 at -O2 leaves this loop scalar (its "very cheap" vectorizer takes no loop whose
  // trip count needs a remainder loop, __restrict or not); Eigen is the vectorized baseline.
  float* a = ops.a.data();
  const float* b = ops.b.data();
  const float* c = ops.c.data();
  for (auto _ : state) {
    for (index_t i = 0; i < n; ++i) a[i] = b[i] * 2.0f + c[i];
    benchmark::ClobberMemory();
  }
  SetBytes(state, n);
}

void BM_Axpy_BaselineEigen(benchmark::State& state) {
  const index_t n = state.range(0);
  Operands& ops = OncePerSize<Operands>(n);
  Eigen::TensorMap<Eigen::Tensor<float, 1>> a(ops.a.data(), n);
  Eigen::TensorMap<Eigen::Tensor<const float, 1>> b(ops.b.data(), n), c(ops.c.data(), n);
  for (auto _ : state) {
    a = b * 2.0f + c;
    benchmark::ClobberMemory();
  }
  SetBytes(state, n);
}

// Moves as many bytes as A = B * 2 + C does: reads and writes 1.5 operands.
void BM_Axpy_BaselineMemcpy(benchmark::State& state) {
  const index_t n = state.range(0);
  const index_t copied = n * 3 / 2;
  AlignedVector<float> from(copied, 1.0f), to(copied);
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), copied * sizeof(float));
    benchmark::ClobberMemory();
  }
  SetBytes(state, n);
}

// ---- Transcendentals, in cache: A = F<op>(B) against Eigen's vectorized version, and exp
// against a scalar std::exp loop.

// Inputs in [-10, 10): the range activations live in.
AlignedVector<float> ActivationInputs(index_t n) {
  AlignedVector<float> x(n);
  for (index_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 2000) * 0.01f - 10.0f;
  return x;
}

template <typename OP>
void RunProject(benchmark::State& state) {
  mshadow::SetNumThreads(1);
  const index_t n = state.range(0);
  AlignedVector<float> in = ActivationInputs(n), out(n);
  Tensor<cpu, 1, float> a(out.data(), Shape1(n)), b(in.data(), Shape1(n));
  for (auto _ : state) {
    a = mshadow::expr::F<OP>(b);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
}

template <typename EigenFn>
void RunEigen(benchmark::State& state, EigenFn fn) {
  const index_t n = state.range(0);
  AlignedVector<float> in = ActivationInputs(n), out(n);
  Eigen::TensorMap<Eigen::Tensor<float, 1>> a(out.data(), n);
  Eigen::TensorMap<Eigen::Tensor<const float, 1>> b(in.data(), n);
  for (auto _ : state) {
    a = fn(b);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_Exp_Project(benchmark::State& state) { RunProject<mshadow::op::exp>(state); }
void BM_Exp_BaselineEigen(benchmark::State& state) {
  RunEigen(state, [](const auto& b) { return b.exp(); });
}
void BM_Exp_BaselineStdExpLoop(benchmark::State& state) {
  const index_t n = state.range(0);
  AlignedVector<float> in = ActivationInputs(n), out(n);
  for (auto _ : state) {
    for (index_t i = 0; i < n; ++i) out[i] = std::exp(in[i]);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
}
void BM_Tanh_Project(benchmark::State& state) { RunProject<mshadow::op::tanh>(state); }
void BM_Tanh_BaselineEigen(benchmark::State& state) {
  RunEigen(state, [](const auto& b) { return b.tanh(); });
}
void BM_Sigmoid_Project(benchmark::State& state) { RunProject<mshadow::op::sigmoid>(state); }
void BM_Sigmoid_BaselineEigen(benchmark::State& state) {
  RunEigen(state, [](const auto& b) { return b.sigmoid(); });
}

// ---- Threads: the same A = B * 2 + C on all threads against one thread.

void BM_Threads_Project(benchmark::State& state) { RunAxpyOnThreads(state, 0); }
void BM_Threads_BaselineOneThread(benchmark::State& state) { RunAxpyOnThreads(state, 1); }

BENCHMARK(BM_Threads_BaselineOneThread)->Arg(1024)->Arg(1 << 16)->Arg(kOutOfCache)->UseRealTime();
BENCHMARK(BM_Threads_Project)->Arg(1024)->Arg(1 << 16)->Arg(kOutOfCache)->UseRealTime();

BENCHMARK(BM_Exp_BaselineStdExpLoop)->Arg(kInCache);
BENCHMARK(BM_Exp_BaselineEigen)->Arg(kInCache);
BENCHMARK(BM_Exp_Project)->Arg(kInCache);
BENCHMARK(BM_Tanh_BaselineEigen)->Arg(kInCache);
BENCHMARK(BM_Tanh_Project)->Arg(kInCache);
BENCHMARK(BM_Sigmoid_BaselineEigen)->Arg(kInCache);
BENCHMARK(BM_Sigmoid_Project)->Arg(kInCache);

BENCHMARK(BM_Axpy_BaselineLoop)->Arg(kInCache)->Arg(kOutOfCache);
BENCHMARK(BM_Axpy_BaselineEigen)->Arg(64)->Arg(kInCache)->Arg(kOutOfCache);
BENCHMARK(BM_Axpy_Project)->Arg(64)->Arg(kInCache)->Arg(kOutOfCache);
BENCHMARK(BM_Axpy_BaselineMemcpy)->Arg(kOutOfCache);

}  // namespace
