// sum_rows (every row added into one) and sumall_except_dim<0> (one sum per row) through the
// expression engine, against hand-written loops on the same buffers: in cache (rows x 256
// floats, 16 KiB) and out of cache (64 MiB).
#include <benchmark/benchmark.h>

#include <vector>

#include "mshadow/parallel.h"
#include "mshadow/tensor.h"

namespace {

using mshadow::cpu;
using mshadow::index_t;
using mshadow::Shape1;
using mshadow::Shape2;
using mshadow::Tensor;

constexpr index_t kWidth = 256;

struct Matrix {
  explicit Matrix(index_t rows) : data(rows * kWidth), rows(rows) {
    for (index_t i = 0; i < rows * kWidth; ++i) data[i] = static_cast<float>(i % 31) * 0.25f;
  }
  Tensor<cpu, 2, float> tensor() { return Tensor<cpu, 2, float>(data.data(), Shape2(rows, kWidth)); }
  std::vector<float> data;
  index_t rows;
};

void SetBytes(benchmark::State& state, index_t rows) {
  state.SetBytesProcessed(state.iterations() * rows * kWidth * static_cast<int64_t>(sizeof(float)));
}

// sum_rows on `threads` threads (0: all).
void RunSumRowsOnThreads(benchmark::State& state, int threads) {
  mshadow::SetNumThreads(threads);
  Matrix m(state.range(0));
  std::vector<float> out(kWidth);
  Tensor<cpu, 1, float> col(out.data(), Shape1(kWidth));
  for (auto _ : state) {
    col = mshadow::expr::sum_rows(m.tensor());
    benchmark::ClobberMemory();
  }
  SetBytes(state, m.rows);
  mshadow::SetNumThreads(0);
}

// The comparisons with single-threaded hand loops run the project on one thread too.
void BM_SumRows_Project(benchmark::State& state) { RunSumRowsOnThreads(state, 1); }

void BM_SumRows_BaselineLoop(benchmark::State& state) {
  Matrix m(state.range(0));
  std::vector<float> out(kWidth);
  for (auto _ : state) {
    std::fill(out.begin(), out.end(), 0.0f);
    for (index_t y = 0; y < m.rows; ++y) {
      const float* row = m.data.data() + y * kWidth;
      for (index_t x = 0; x < kWidth; ++x) out[x] += row[x];
    }
    benchmark::ClobberMemory();
  }
  SetBytes(state, m.rows);
}

void RunSumAllExceptDim0OnThreads(benchmark::State& state, int threads) {
  mshadow::SetNumThreads(threads);
  Matrix m(state.range(0));
  std::vector<float> out(m.rows);
  Tensor<cpu, 1, float> sums(out.data(), Shape1(m.rows));
  for (auto _ : state) {
    sums = mshadow::expr::sumall_except_dim<0>(m.tensor());
    benchmark::ClobberMemory();
  }
  SetBytes(state, m.rows);
  mshadow::SetNumThreads(0);
}

void BM_SumAllExceptDim0_Project(benchmark::State& state) {
  RunSumAllExceptDim0OnThreads(state, 1);
}

void BM_SumAllExceptDim0_BaselineLoop(benchmark::State& state) {
  Matrix m(state.range(0));
  std::vector<float> out(m.rows);
  for (auto _ : state) {
    for (index_t y = 0; y < m.rows; ++y) {
      const float* row = m.data.data() + y * kWidth;
      float sum = 0;
      for (index_t x = 0; x < kWidth; ++x) sum += row[x];
      out[y] = sum;
    }
    benchmark::ClobberMemory();
  }
  SetBytes(state, m.rows);
}

constexpr index_t kInCacheRows = 16;                    // 16 KiB
constexpr index_t kOutOfCacheRows = 64 * 1024 * 1024 / (kWidth * 4);  // 64 MiB

// All threads against one, out of cache.
void BM_SumRowsThreads_Project(benchmark::State& state) { RunSumRowsOnThreads(state, 0); }
void BM_SumRowsThreads_BaselineOneThread(benchmark::State& state) {
  RunSumRowsOnThreads(state, 1);
}
void BM_SumAllExceptDim0Threads_Project(benchmark::State& state) {
  RunSumAllExceptDim0OnThreads(state, 0);
}
void BM_SumAllExceptDim0Threads_BaselineOneThread(benchmark::State& state) {
  RunSumAllExceptDim0OnThreads(state, 1);
}

BENCHMARK(BM_SumRowsThreads_BaselineOneThread)->Arg(kOutOfCacheRows)->UseRealTime();
BENCHMARK(BM_SumRowsThreads_Project)->Arg(kOutOfCacheRows)->UseRealTime();
BENCHMARK(BM_SumAllExceptDim0Threads_BaselineOneThread)->Arg(kOutOfCacheRows)->UseRealTime();
BENCHMARK(BM_SumAllExceptDim0Threads_Project)->Arg(kOutOfCacheRows)->UseRealTime();

BENCHMARK(BM_SumRows_BaselineLoop)->Arg(kInCacheRows)->Arg(kOutOfCacheRows);
BENCHMARK(BM_SumRows_Project)->Arg(kInCacheRows)->Arg(kOutOfCacheRows);
BENCHMARK(BM_SumAllExceptDim0_BaselineLoop)->Arg(kInCacheRows)->Arg(kOutOfCacheRows);
BENCHMARK(BM_SumAllExceptDim0_Project)->Arg(kInCacheRows)->Arg(kOutOfCacheRows);

}  // namespace
