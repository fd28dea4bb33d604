// mshadow's GPU backend against what the hardware allows, each case beside its baseline in
// the same run (ratios printed by //tools/bench:ratio_main; > 1: the project is faster):
//
// - elementwise expressions (A = B*2 + C, exp, tanh, sigmoid) on 256 Mi floats and the
//   reductions sum_rows / sumall_except_dim on 1 GiB, against a device-to-device copy moving
//   the bytes the expression must read and write at least;
// - dot (1024, 4096, 8192) and batch_dot against a direct cuBLAS call on the same buffers.
//
// float32, random inputs, CUDA-event timing, TF32 off (cuBLAS's default math mode).
#include <benchmark/benchmark.h>
#include <cublas_v2.h>

#include "mshadow/tensor.h"
#include "tools/cuda/gpu_bench.h"

namespace {

using gpu_bench::BenchStream;
using gpu_bench::DeviceBuffer;
using gpu_bench::TimeOnGpu;
using mshadow::gpu;
using mshadow::index_t;
using mshadow::Shape1;
using mshadow::Shape2;
using mshadow::Shape3;
using mshadow::Stream;
using mshadow::Tensor;

// A Stream<gpu> on the benchmarks' stream, with its cuBLAS handle made before timing.
Stream<gpu>* BenchTensorStream() {
  static Stream<gpu>* stream = [] {
    auto* s = new Stream<gpu>();
    s->stream_ = BenchStream();
    s->CreateBlasHandle();
    return s;
  }();
  return stream;
}

template <int dim>
Tensor<gpu, dim> View(const DeviceBuffer<float>& buffer, mshadow::Shape<dim> shape) {
  Tensor<gpu, dim> t(buffer.data(), shape);
  t.set_stream(BenchTensorStream());
  return t;
}

constexpr index_t kElements = index_t{256} << 20;  // 256 Mi floats, 1 GiB

// Runs `expression(a, b, c)` assigning into a, with b and c as inputs; bytes = those moved.
template <typename Assign>
void Elementwise(benchmark::State& state, int tensors_moved, Assign assign) {
  DeviceBuffer<float> a(kElements, 1), b(kElements, 2), c(kElements, 3);
  Tensor<gpu, 1> ta = View<1>(a, Shape1(kElements)), tb = View<1>(b, Shape1(kElements)),
                 tc = View<1>(c, Shape1(kElements));
  TimeOnGpu(state, [&] { assign(ta, tb, tc); });
  state.SetBytesProcessed(state.iterations() * tensors_moved * a.bytes());
}

void BM_ScaleAdd_Project(benchmark::State& state) {
  Elementwise(state, 3, [](Tensor<gpu, 1>& a, const Tensor<gpu, 1>& b, const Tensor<gpu, 1>& c) {
    a = b * 2.0f + c;
  });
}
void BM_ScaleAdd_BaselineDeviceCopy(benchmark::State& state) {
  gpu_bench::DeviceCopy(state, 3 * kElements * sizeof(float));
}
// a = OP(b): one read and one write per element.
template <typename OP>
void UnaryMap(benchmark::State& state) {
  Elementwise(state, 2, [](Tensor<gpu, 1>& a, const Tensor<gpu, 1>& b, const Tensor<gpu, 1>&) {
    a = mshadow::expr::F<OP>(b);
  });
}
void BM_Exp_Project(benchmark::State& state) { UnaryMap<mshadow::op::exp>(state); }
void BM_Tanh_Project(benchmark::State& state) { UnaryMap<mshadow::op::tanh>(state); }
void BM_Sigmoid_Project(benchmark::State& state) { UnaryMap<mshadow::op::sigmoid>(state); }
void UnaryMapCopy(benchmark::State& state) {
  gpu_bench::DeviceCopy(state, 2 * kElements * sizeof(float));
}
void BM_Exp_BaselineDeviceCopy(benchmark::State& state) { UnaryMapCopy(state); }
void BM_Tanh_BaselineDeviceCopy(benchmark::State& state) { UnaryMapCopy(state); }
void BM_Sigmoid_BaselineDeviceCopy(benchmark::State& state) { UnaryMapCopy(state); }

// Reductions of a 1 GiB tensor: the output is small, so the bytes are the input's.
constexpr index_t kReduceRows = 16384, kReduceCols = 16384;

void BM_SumRows_Project(benchmark::State& state) {
  DeviceBuffer<float> in(kReduceRows * kReduceCols), out(kReduceCols);
  Tensor<gpu, 2> src = View<2>(in, Shape2(kReduceRows, kReduceCols));
  Tensor<gpu, 1> dst = View<1>(out, Shape1(kReduceCols));
  TimeOnGpu(state, [&] { dst = mshadow::expr::sum_rows(src); });
  state.SetBytesProcessed(state.iterations() * in.bytes());
}
void BM_SumRows_BaselineDeviceCopy(benchmark::State& state) {
  gpu_bench::DeviceCopy(state, kReduceRows * kReduceCols * sizeof(float));
}
// Per-channel sums of an NCHW batch (BatchNorm's statistics): (64, 256, 128, 128).
void BM_SumAllExceptDim_Project(benchmark::State& state) {
  const mshadow::Shape<4> shape = mshadow::Shape4(64, 256, 128, 128);
  DeviceBuffer<float> in(shape.Size()), out(shape[1]);
  Tensor<gpu, 4> src(in.data(), shape);
  src.set_stream(BenchTensorStream());
  Tensor<gpu, 1> dst = View<1>(out, Shape1(shape[1]));
  TimeOnGpu(state, [&] { dst = mshadow::expr::sumall_except_dim<1>(src); });
  state.SetBytesProcessed(state.iterations() * in.bytes());
}
void BM_SumAllExceptDim_BaselineDeviceCopy(benchmark::State& state) {
  gpu_bench::DeviceCopy(state, 64 * 256 * 128 * 128 * sizeof(float));
}

void SetFlops(benchmark::State& state, double flops) {
  state.counters["TFLOP/s"] =
      benchmark::Counter(flops * 1e-12, benchmark::Counter::kIsIterationInvariantRate);
}

// C(n,n) = A(n,n) B(n,n), row-major.
void BM_Dot_Project(benchmark::State& state) {
  const index_t n = state.range(0);
  DeviceBuffer<float> a(n * n, 1), b(n * n, 2), c(n * n, 3);
  Tensor<gpu, 2> ta = View<2>(a, Shape2(n, n)), tb = View<2>(b, Shape2(n, n)),
                 tc = View<2>(c, Shape2(n, n));
  TimeOnGpu(state, [&] { tc = mshadow::expr::dot(ta, tb); });
  SetFlops(state, 2.0 * n * n * n);
}
void BM_Dot_BaselineCublas(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  DeviceBuffer<float> a(size_t(n) * n, 1), b(size_t(n) * n, 2), c(size_t(n) * n, 3);
  cublasHandle_t handle = BenchTensorStream()->blas_handle_;
  const float one = 1, zero = 0;
  // Row-major C = A B is column-major C^T = B^T A^T.
  TimeOnGpu(state, [&] {
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b.data(), n, a.data(), n, &zero,
                c.data(), n);
  });
  SetFlops(state, 2.0 * n * n * n);
}

// 64 products of (512, 512) matrices.
constexpr index_t kBatch = 64, kSide = 512;

void BM_BatchDot_Project(benchmark::State& state) {
  const size_t n = kBatch * kSide * kSide;
  DeviceBuffer<float> a(n, 1), b(n, 2), c(n, 3);
  Tensor<gpu, 3> ta = View<3>(a, Shape3(kBatch, kSide, kSide)),
                 tb = View<3>(b, Shape3(kBatch, kSide, kSide)),
                 tc = View<3>(c, Shape3(kBatch, kSide, kSide));
  TimeOnGpu(state, [&] { tc = mshadow::expr::batch_dot<false, false>(ta, tb); });
  SetFlops(state, 2.0 * kBatch * kSide * kSide * kSide);
}
void BM_BatchDot_BaselineCublas(benchmark::State& state) {
  const size_t n = kBatch * kSide * kSide;
  DeviceBuffer<float> a(n, 1), b(n, 2), c(n, 3);
  cublasHandle_t handle = BenchTensorStream()->blas_handle_;
  const float one = 1, zero = 0;
  const int side = kSide;
  const long long stride = kSide * kSide;
  TimeOnGpu(state, [&] {
    cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, side, side, side, &one, b.data(),
                              side, stride, a.data(), side, stride, &zero, c.data(), side, stride,
                              kBatch);
  });
  SetFlops(state, 2.0 * kBatch * kSide * kSide * kSide);
}

#define GPU_BENCHMARK(name) BENCHMARK(name)->UseManualTime()->Unit(benchmark::kMicrosecond)
GPU_BENCHMARK(BM_ScaleAdd_Project);
GPU_BENCHMARK(BM_ScaleAdd_BaselineDeviceCopy);
GPU_BENCHMARK(BM_Exp_Project);
GPU_BENCHMARK(BM_Exp_BaselineDeviceCopy);
GPU_BENCHMARK(BM_Tanh_Project);
GPU_BENCHMARK(BM_Tanh_BaselineDeviceCopy);
GPU_BENCHMARK(BM_Sigmoid_Project);
GPU_BENCHMARK(BM_Sigmoid_BaselineDeviceCopy);
GPU_BENCHMARK(BM_SumRows_Project);
GPU_BENCHMARK(BM_SumRows_BaselineDeviceCopy);
GPU_BENCHMARK(BM_SumAllExceptDim_Project);
GPU_BENCHMARK(BM_SumAllExceptDim_BaselineDeviceCopy);
GPU_BENCHMARK(BM_Dot_Project)->Arg(1024)->Arg(4096)->Arg(8192);
GPU_BENCHMARK(BM_Dot_BaselineCublas)->Arg(1024)->Arg(4096)->Arg(8192);
GPU_BENCHMARK(BM_BatchDot_Project);
GPU_BENCHMARK(BM_BatchDot_BaselineCublas);

}  // namespace
