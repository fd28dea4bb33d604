// sum_rows (every row added into one) and sumall_except_dim<0> (one sum per row) through the
// expression engine, against hand-written loops on the same buffers: in cache (rows x 256
// floats, 16 KiB) and out of cache (64 MiB).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

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
using mshadow::Shape2;
using mshadow::Tensor;

constexpr index_t kWidth = 256;

// A rows x kWidth matrix and room for its sums, shared by the project and its baselines
// through OncePerSize.
struct Matrix {
  explicit Matrix(index_t rows)
      : data(rows * kWidth), rows(rows), sums_storage(std::max(rows, kWidth) + 1024) {
    for (index_t i = 0; i < rows * kWidth; ++i) data[i] = static_cast<float>(i % 31) * 0.25f;
  }
  Tensor<cpu, 2, float> tensor() { return Tensor<cpu, 2, float>(data.data(), Shape2(rows, kWidth)); }

  // Where sums go: at the same address modulo 4 KiB as the data. Placed anywhere, a store to
  // sums[x] can share its low 12 address bits with a load of row[x + 8] a packet later; the
  // core then takes the load to depend on the store (4K aliasing), and the hand loop ran 4x
  // slower for that accident of the allocator.
  float* sums() {
    const uintptr_t data_offset = reinterpret_cast<uintptr_t>(data.data()) % 4096;
    const uintptr_t storage_offset = reinterpret_cast<uintptr_t>(sums_storage.data()) % 4096;
    return sums_storage.data() + (data_offset + 4096 - storage_offset) % 4096 / sizeof(float);
  }

  AlignedVector<float> data;
  index_t rows;
  AlignedVector<float> sums_storage;
};

// Whether `sums` holds the sums of m along `axis` (0: the sum of the rows, 1: each row's
// sum), up to the rounding of a different order.
bool SumsAreRight(Matrix& m, int axis) {
  const index_t count = axis == 0 ? kWidth : m.rows;
  std::vector<double> expected(count, 0.0);
  for (index_t y = 0; y < m.rows; ++y) {
    for (index_t x = 0; x < kWidth; ++x) expected[axis == 0 ? x : y] += m.data[y * kWidth + x];
  }
  const float* sums = m.sums();
  for (index_t i = 0; i < count; ++i) {
    if (std::abs(sums[i] - expected[i]) > 1e-4 * std::abs(expected[i]) + 1e-3) return false;
  }
  return true;
}

void SetBytes(benchmark::State& state, index_t rows) {
  state.SetBytesProcessed(state.iterations() * rows * kWidth * static_cast<int64_t>(sizeof(float)));
}

// sum_rows on `threads` threads (0: all).
void RunSumRowsOnThreads(benchmark::State& state, int threads) {
  mshadow::SetNumThreads(threads);
  Matrix& m = OncePerSize<Matrix>(state.range(0));
  std::fill(m.sums(), m.sums() + kWidth, std::nanf(""));  // a baseline's sums are not ours
  Tensor<cpu, 1, float> col(m.sums(), Shape1(kWidth));
  for (auto _ : state) {
    col = mshadow::expr::sum_rows(m.tensor());
    benchmark::ClobberMemory();
  }
  if (!SumsAreRight(m, 0)) state.SkipWithError("wrong sums");
  SetBytes(state, m.rows);
  mshadow::SetNumThreads(0);
}

// The comparisons with single-threaded hand loops run the project on one thread too.
void BM_SumRows_Project(benchmark::State& state) { RunSumRowsOnThreads(state, 1); }

// The hand loop: __restrict parameters let GCC vectorize it at -O2 (it takes no runtime
// alias checks there), as a careful author would write it.
void SumRowsLoop(const float* __restrict data, index_t rows, float* __restrict sums) {
  std::fill(sums, sums + kWidth, 0.0f);
  for (index_t y = 0; y < rows; ++y) {
    const float* row = data + y * kWidth;
    for (index_t x = 0; x < kWidth; ++x) sums[x] += row[x];
  }
}

void BM_SumRows_BaselineLoop(benchmark::State& state) {
  Matrix& m = OncePerSize<Matrix>(state.range(0));
  for (auto _ : state) {
    SumRowsLoop(m.data.data(), m.rows, m.sums());
    benchmark::ClobberMemory();
  }
  SetBytes(state, m.rows);
}

void RunSumAllExceptDim0OnThreads(benchmark::State& state, int threads) {
  mshadow::SetNumThreads(threads);
  Matrix& m = OncePerSize<Matrix>(state.range(0));
  std::fill(m.sums(), m.sums() + m.rows, std::nanf(""));
  Tensor<cpu, 1, float> sums(m.sums(), Shape1(m.rows));
  for (auto _ : state) {
    sums = mshadow::expr::sumall_except_dim<0>(m.tensor());
    benchmark::ClobberMemory();
  }
  if (!SumsAreRight(m, 1)) state.SkipWithError("wrong sums");
  SetBytes(state, m.rows);
  mshadow::SetNumThreads(0);
}

void BM_SumAllExceptDim0_Project(benchmark::State& state) {
  RunSumAllExceptDim0OnThreads(state, 1);
}

// The plain hand loop: one running sum per row. Without -ffast-math the compiler keeps the
// additions in order, so it stays scalar.
void BM_SumAllExceptDim0_BaselineLoop(benchmark::State& state) {
  Matrix& m = OncePerSize<Matrix>(state.range(0));
  float* sums = m.sums();
  const float* data = m.data.data();
  for (auto _ : state) {
    for (index_t y = 0; y < m.rows; ++y) {
      const float* row = data + y * kWidth;
      float sum = 0;
      for (index_t x = 0; x < kWidth; ++x) sum += row[x];
      sums[y] = sum;
    }
    benchmark::ClobberMemory();
  }
  SetBytes(state, m.rows);
}

// The careful hand loop: eight running sums per row (one vector register's worth), which
// GCC turns into vector adds; the reordering a vectorized reduction makes anyway.
void SumEachRowInLanes(const float* __restrict data, index_t rows, float* __restrict sums) {
  constexpr index_t kLanes = 8;
  for (index_t y = 0; y < rows; ++y) {
    const float* row = data + y * kWidth;
    float lanes[kLanes] = {};
    for (index_t x = 0; x < kWidth; x += kLanes) {
      for (index_t lane = 0; lane < kLanes; ++lane) lanes[lane] += row[x + lane];
    }
    float sum = 0;
    for (index_t lane = 0; lane < kLanes; ++lane) sum += lanes[lane];
    sums[y] = sum;
  }
}

void BM_SumAllExceptDim0_BaselineLanesLoop(benchmark::State& state) {
  Matrix& m = OncePerSize<Matrix>(state.range(0));
  for (auto _ : state) {
    SumEachRowInLanes(m.data.data(), m.rows, m.sums());
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
BENCHMARK(BM_SumAllExceptDim0_BaselineLanesLoop)->Arg(kInCacheRows)->Arg(kOutOfCacheRows);
BENCHMARK(BM_SumAllExceptDim0_Project)->Arg(kInCacheRows)->Arg(kOutOfCacheRows);

}  // namespace
