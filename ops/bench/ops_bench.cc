// What a host pays per operator call, and whether FullyConnected is as fast as the BLAS call
// it is built on.
//
// - BM_Dispatch_Project: look up "clip", parse its two parameters, infer shapes and types,
//   run it on a 1-element tensor (goal: median <= 1 us). Baseline: the same clamp written
//   inline, which shows what the computation itself costs.
// - BM_DispatchPreParsed_Project: the operator and its parsed attributes kept; infer shapes
//   and types, then run (goal: <= 200 ns).
// - BM_FullyConnected_Project: FullyConnected forward, batch 256, 1024 -> 1024, with bias,
//   against BM_FullyConnected_BaselineSgemm, one cblas_sgemm on the same buffers without the
//   bias (goal: within 5%).
// - BM_TiledGemm_Project: the register-tiled product operators use on the CPU
//   (ops/register_gemm.h) against BM_TiledGemm_BaselineSgemm, cblas_sgemm on the same row-major
//   operands, on the shapes of the operators that use it: /0 an LSTM step (32 x 256 times
//   256 x 1024), /1 an LSTM weight gradient (its left operand transposed, 1024 x 1120 times
//   1120 x 256), /2 a Deconvolution's column matrix (transposed, 1024 x 64 times 64 x 784),
//   /3 and /4 FullyConnected's gradients at batch 256, 1024 -> 1024 (data: 256 x 1024 times
//   1024 x 1024; weight: transposed, 1024 x 256 times 256 x 1024).
// - BM_Trsm_Project: the blocked triangular solve of the linear-algebra operators
//   (ops/blocked_triangular.h) against BM_Trsm_BaselineStrsm, cblas_strsm on the same
//   operands: /0 _linalg_trsm's MXNet comparison case (b 1024 x 1024 times the inverse of a
//   lower triangle's transpose, from the right), /1 the left side of the same, /2 an upper
//   triangle, transposed, of order 512 from the left, /3 32 rows from the right and /4 16
//   columns from the left of order-1024 triangles, /5 the trsm of _linalg_trsm's gradient in /0
//   (the triangle not transposed: solved right to left). b is restored between solves, untimed.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <algorithm>
#include <random>
#include <vector>

#include "ops/blocked_triangular.h"
#include "ops/imperative.h"
#include "ops/register_gemm.h"

namespace {

using mshadow::index_t;
using mshadow::TShape;
using ops::CpuTensor;

void RunClip(const ops::NodeAttrs& attrs, const CpuTensor& x, const CpuTensor& y) {
  std::vector<TShape> in_shapes = {x.shape()}, out_shapes;
  std::vector<int> in_types = {x.type_flag()}, out_types;
  ops::InferShapes(attrs, &in_shapes, &out_shapes);
  ops::InferTypes(attrs, &in_types, &out_types);
  ops::Invoke<mshadow::cpu>(attrs, ops::OpContext(), {x.blob()}, {ops::kWriteTo}, {y.blob()});
}

void BM_Dispatch_Project(benchmark::State& state) {
  CpuTensor x(TShape{1}, mshadow::kFloat32), y(TShape{1}, mshadow::kFloat32);
  x.data<float>()[0] = 3.0f;
  for (auto _ : state) {
    const ops::NodeAttrs attrs =
        ops::ParseAttrs(ops::Op::Get("clip"), {{"a_min", "-1.5"}, {"a_max", "2"}});
    RunClip(attrs, x, y);
    benchmark::DoNotOptimize(y.data<float>()[0]);
  }
  if (y.data<float>()[0] != 2.0f) state.SkipWithError("wrong result");
}

void BM_Dispatch_BaselineInlineClamp(benchmark::State& state) {
  CpuTensor x(TShape{1}, mshadow::kFloat32), y(TShape{1}, mshadow::kFloat32);
  x.data<float>()[0] = 3.0f;
  for (auto _ : state) {
    float* in = x.data<float>();
    benchmark::DoNotOptimize(in);
    y.data<float>()[0] = std::min(std::max(in[0], -1.5f), 2.0f);
    benchmark::DoNotOptimize(y.data<float>()[0]);
  }
}

// As a host runs a node it has seen before: the parsed attributes, and the vectors of
// shapes, types, blobs and requests, are kept from call to call.
void BM_DispatchPreParsed_Project(benchmark::State& state) {
  CpuTensor x(TShape{1}, mshadow::kFloat32), y(TShape{1}, mshadow::kFloat32);
  x.data<float>()[0] = 3.0f;
  const ops::NodeAttrs attrs =
      ops::ParseAttrs(ops::Op::Get("clip"), {{"a_min", "-1.5"}, {"a_max", "2"}});
  std::vector<TShape> in_shapes(1), out_shapes;
  std::vector<int> in_types(1), out_types;
  const std::vector<ops::TBlob> inputs = {x.blob()}, outputs = {y.blob()};
  const std::vector<ops::OpReqType> req = {ops::kWriteTo};
  const ops::OpContext ctx;
  for (auto _ : state) {
    in_shapes[0] = inputs[0].shape_;
    in_types[0] = inputs[0].type_flag_;
    out_shapes.assign(1, TShape());  // outputs unknown again: inference fills them
    out_types.assign(1, -1);
    ops::InferShapes(attrs, &in_shapes, &out_shapes);
    ops::InferTypes(attrs, &in_types, &out_types);
    ops::Invoke<mshadow::cpu>(attrs, ctx, inputs, req, outputs);
    benchmark::DoNotOptimize(y.data<float>()[0]);
  }
  if (y.data<float>()[0] != 2.0f) state.SkipWithError("wrong result");
}

// What Invoke's checks cost: the same pre-parsed call through the checked Invoke (which runs
// inference itself) and through InvokeUnchecked (the host has inferred already).
template <bool kChecked>
void InvokeOnly(benchmark::State& state) {
  CpuTensor x(TShape{1}, mshadow::kFloat32), y(TShape{1}, mshadow::kFloat32);
  x.data<float>()[0] = 3.0f;
  const ops::NodeAttrs attrs =
      ops::ParseAttrs(ops::Op::Get("clip"), {{"a_min", "-1.5"}, {"a_max", "2"}});
  const std::vector<ops::TBlob> inputs = {x.blob()}, outputs = {y.blob()};
  const std::vector<ops::OpReqType> req = {ops::kWriteTo};
  const ops::OpContext ctx;
  for (auto _ : state) {
    if (kChecked) {
      ops::Invoke<mshadow::cpu>(attrs, ctx, inputs, req, outputs);
    } else {
      ops::InvokeUnchecked<mshadow::cpu>(attrs, ctx, inputs, req, outputs);
    }
    benchmark::DoNotOptimize(y.data<float>()[0]);
  }
  if (y.data<float>()[0] != 2.0f) state.SkipWithError("wrong result");
}
void BM_InvokeChecked_Project(benchmark::State& state) { InvokeOnly<true>(state); }
void BM_InvokeUnchecked_Project(benchmark::State& state) { InvokeOnly<false>(state); }

struct FullyConnectedBuffers {
  static constexpr int kBatch = 256, kIn = 1024, kOut = 1024;
  CpuTensor data{TShape{kBatch, kIn}, mshadow::kFloat32};
  CpuTensor weight{TShape{kOut, kIn}, mshadow::kFloat32};
  CpuTensor bias{TShape{kOut}, mshadow::kFloat32};
  CpuTensor out{TShape{kBatch, kOut}, mshadow::kFloat32};
  FullyConnectedBuffers() {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (const CpuTensor* t : {&data, &weight, &bias}) {
      for (index_t i = 0; i < t->shape().Size(); ++i) t->data<float>()[i] = dist(rng);
    }
  }
};

void SetFlops(benchmark::State& state) {
  state.counters["flops"] =
      benchmark::Counter(2.0 * FullyConnectedBuffers::kBatch * FullyConnectedBuffers::kIn *
                             FullyConnectedBuffers::kOut,
                         benchmark::Counter::kIsIterationInvariantRate);
}

void BM_FullyConnected_Project(benchmark::State& state) {
  FullyConnectedBuffers b;
  const ops::NodeAttrs attrs =
      ops::ParseAttrs(ops::Op::Get("FullyConnected"), {{"num_hidden", "1024"}});
  for (auto _ : state) {
    ops::Invoke<mshadow::cpu>(attrs, ops::OpContext(),
                              {b.data.blob(), b.weight.blob(), b.bias.blob()}, {ops::kWriteTo},
                              {b.out.blob()});
    benchmark::ClobberMemory();
  }
  SetFlops(state);
}

// Without the bias: the operator's own overhead over the BLAS call.
void BM_FullyConnectedNoBias_Project(benchmark::State& state) {
  FullyConnectedBuffers b;
  const ops::NodeAttrs attrs = ops::ParseAttrs(ops::Op::Get("FullyConnected"),
                                               {{"num_hidden", "1024"}, {"no_bias", "true"}});
  for (auto _ : state) {
    ops::Invoke<mshadow::cpu>(attrs, ops::OpContext(), {b.data.blob(), b.weight.blob()},
                              {ops::kWriteTo}, {b.out.blob()});
    benchmark::ClobberMemory();
  }
  SetFlops(state);
}

void BM_FullyConnected_BaselineSgemm(benchmark::State& state) {
  FullyConnectedBuffers b;
  const int m = b.kBatch, n = b.kOut, k = b.kIn;
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, b.data.data<float>(), k,
                b.weight.data<float>(), k, 0.0f, b.out.data<float>(), n);
    benchmark::ClobberMemory();
  }
  SetFlops(state);
}

struct GemmShape {
  index_t rows, depth, cols;
  bool a_transposed;
};
constexpr GemmShape kGemmShapes[] = {{32, 256, 1024, false},
                                     {1024, 1120, 256, true},
                                     {1024, 64, 784, true},
                                     {256, 1024, 1024, false},
                                     {1024, 256, 1024, true},
                                     // a 14x14 1x1 layer's data gradient per image: 196
                                     // columns, a part of a packet past the last whole one
                                     {256, 64, 196, false},
                                     // FullyConnected's batch of 32, 2048 -> 1000: its data
                                     // gradient and its weight gradient
                                     {32, 1000, 2048, false},
                                     {1000, 32, 2048, true}};

// The operands of shape kGemmShapes[state.range(0)], filled at random.
struct GemmOperands {
  GemmShape shape;
  std::vector<float> a, b, c;

  explicit GemmOperands(const benchmark::State& state)
      : shape(kGemmShapes[state.range(0)]),
        a(shape.rows * shape.depth),
        b(shape.depth * shape.cols),
        c(shape.rows * shape.cols) {
    std::mt19937 gen(1);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (float& x : a) x = dist(gen);
    for (float& x : b) x = dist(gen);
  }
  index_t lda() const { return shape.a_transposed ? shape.rows : shape.depth; }
  void SetFlops(benchmark::State& state) const {
    state.counters["GFLOPS"] = benchmark::Counter(
        2.0 * shape.rows * shape.depth * shape.cols * static_cast<double>(state.iterations()),
        benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  }
};

void BM_TiledGemm_Project(benchmark::State& state) {
  GemmOperands g(state);
  const GemmShape& s = g.shape;
  for (auto _ : state) {
    ops::register_gemm::TiledGemm<float>(s.rows, s.depth, s.cols,
                                         {g.a.data(), g.lda(), s.a_transposed}, g.b.data(), s.cols,
                                         g.c.data(), s.cols, false);
    benchmark::DoNotOptimize(g.c.data());
  }
  g.SetFlops(state);
}

void BM_TiledGemm_BaselineSgemm(benchmark::State& state) {
  GemmOperands g(state);
  const GemmShape& s = g.shape;
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, s.a_transposed ? CblasTrans : CblasNoTrans, CblasNoTrans,
                static_cast<int>(s.rows), static_cast<int>(s.cols), static_cast<int>(s.depth), 1.0f,
                g.a.data(), static_cast<int>(g.lda()), g.b.data(), static_cast<int>(s.cols), 0.0f,
                g.c.data(), static_cast<int>(s.cols));
    benchmark::DoNotOptimize(g.c.data());
  }
  g.SetFlops(state);
}

struct TrsmShape {
  index_t n, other;  // the triangle's order; b's rows (rightside) or columns
  bool rightside, lower, transpose;
};
constexpr TrsmShape kTrsmShapes[] = {
    {1024, 1024, true, true, true}, {1024, 1024, false, true, false},
    {512, 512, false, false, true}, {1024, 32, true, true, false},
    {1024, 16, false, true, false}, {1024, 1024, true, true, false}};

// A triangle of kTrsmShapes[state.range(0)] (random, n added to its diagonal, both triangles
// filled: the other must not be read) and b at random.
struct TrsmOperands {
  TrsmShape shape;
  index_t rows, cols;
  std::vector<float> a, b, solved;

  explicit TrsmOperands(const benchmark::State& state)
      : shape(kTrsmShapes[state.range(0)]),
        rows(shape.rightside ? shape.other : shape.n),
        cols(shape.rightside ? shape.n : shape.other),
        a(shape.n * shape.n),
        b(rows * cols),
        solved(b.size()) {
    std::mt19937 gen(2);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (float& x : a) x = dist(gen);
    for (index_t i = 0; i < shape.n; ++i) a[i * shape.n + i] += static_cast<float>(shape.n);
    for (float& x : b) x = dist(gen);
  }
  // Before each solve: the last one left its solution in place.
  void Restore(benchmark::State& state) {
    state.PauseTiming();
    std::copy(b.begin(), b.end(), solved.begin());
    state.ResumeTiming();
  }
  void SetFlops(benchmark::State& state) const {
    state.counters["GFLOPS"] = benchmark::Counter(
        static_cast<double>(shape.n) * shape.n * shape.other * state.iterations(),
        benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  }
};

void BM_Trsm_Project(benchmark::State& state) {
  TrsmOperands t(state);
  const TrsmShape& s = t.shape;
  for (auto _ : state) {
    t.Restore(state);
    ops::blocked_triangular::Solve(t.a.data(), s.n, s.n, s.lower, s.transpose, s.rightside, 0.5f,
                                   t.solved.data(), t.cols, t.rows, t.cols);
    benchmark::DoNotOptimize(t.solved.data());
  }
  t.SetFlops(state);
}

void BM_Trsm_BaselineStrsm(benchmark::State& state) {
  TrsmOperands t(state);
  const TrsmShape& s = t.shape;
  for (auto _ : state) {
    t.Restore(state);
    cblas_strsm(CblasRowMajor, s.rightside ? CblasRight : CblasLeft,
                s.lower ? CblasLower : CblasUpper, s.transpose ? CblasTrans : CblasNoTrans,
                CblasNonUnit, static_cast<int>(t.rows), static_cast<int>(t.cols), 0.5f, t.a.data(),
                static_cast<int>(s.n), t.solved.data(), static_cast<int>(t.cols));
    benchmark::DoNotOptimize(t.solved.data());
  }
  t.SetFlops(state);
}

BENCHMARK(BM_Dispatch_BaselineInlineClamp);
BENCHMARK(BM_Dispatch_Project);
BENCHMARK(BM_DispatchPreParsed_Project);
BENCHMARK(BM_InvokeUnchecked_Project);
BENCHMARK(BM_InvokeChecked_Project);
// Interleaved so that both see the same machine state.
BENCHMARK(BM_FullyConnected_BaselineSgemm)->UseRealTime();
BENCHMARK(BM_FullyConnected_Project)->UseRealTime();
BENCHMARK(BM_FullyConnectedNoBias_Project)->UseRealTime();
BENCHMARK(BM_TiledGemm_BaselineSgemm)->DenseRange(0, 7)->UseRealTime();
BENCHMARK(BM_TiledGemm_Project)->DenseRange(0, 7)->UseRealTime();
BENCHMARK(BM_Trsm_BaselineStrsm)->DenseRange(0, 5)->UseRealTime();
BENCHMARK(BM_Trsm_Project)->DenseRange(0, 5)->UseRealTime();

}  // namespace
