// Operators on the GPU against what the hardware allows, each in the same run as its
// baseline (ratio printed by //tools/bench:ratio_main; > 1: the operator is faster):
//
// - memory-bound operators (relu, elemwise_add, broadcast_add, sum, softmax, transpose)
//   against a device-to-device cudaMemcpyAsync moving the bytes the operator must read and
//   write at least (BaselineDeviceCopy): a ratio near 1 is memory speed;
// - FullyConnected against one cublasSgemm on the same buffers (BaselineCublas);
// - the host time of one Invoke<gpu> on a 1-element tensor (goal <= 5 us) against one bare
//   CUDA call (cudaMemsetAsync of 4 bytes) and one empty kernel's launch, the floors of any
//   launch.
//
// Times come from CUDA events around each call on one stream (manual time), float32, TF32
// off. Built with --config=cuda; tools/cuda/gpu_bundle.sh packs it, run_all.sh runs it.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mshadow/cuda/check.h"
#include "ops/gpu_context.h"
#include "ops/infer.h"
#include "ops/invoke.h"
#include "tools/cuda/gpu_bench.h"

namespace {

using mshadow::index_t;
using mshadow::TShape;

using gpu_bench::BenchStream;
using gpu_bench::DeviceBuffer;
using gpu_bench::DeviceCopy;
using gpu_bench::TimeOnGpu;

mshadow::TBlob BlobOf(const DeviceBuffer<float>& buffer, const TShape& shape) {
  return mshadow::TBlob(buffer.data(), shape, mshadow::gpu::kDevMask, mshadow::kFloat32);
}

// One operator call on device tensors of the given input shapes (outputs inferred).
// `calls` calls an iteration (back to back: the host's time per call is hidden where the GPU's
// is longer), each writing its outputs as `req` says.
void RunOperator(benchmark::State& state, const std::string& op,
                 const std::map<std::string, std::string>& params,
                 const std::vector<TShape>& input_shapes, ops::OpReqType req_type = ops::kWriteTo,
                 int calls = 1) {
  const ops::NodeAttrs attrs = ops::ParseAttrs(ops::Op::Get(op), params);
  std::vector<TShape> in_shapes = input_shapes, out_shapes;
  std::vector<int> in_types(in_shapes.size(), mshadow::kFloat32), out_types;
  ops::InferShapes(attrs, &in_shapes, &out_shapes);
  ops::InferTypes(attrs, &in_types, &out_types);
  std::vector<std::unique_ptr<DeviceBuffer<float>>> buffers;
  std::vector<mshadow::TBlob> inputs, outputs;
  size_t bytes = 0;
  uint64_t seed = 1;
  for (const TShape& s : in_shapes) {
    buffers.push_back(std::make_unique<DeviceBuffer<float>>(s.Size(), seed++));
    inputs.push_back(BlobOf(*buffers.back(), s));
    bytes += buffers.back()->bytes();
  }
  for (const TShape& s : out_shapes) {
    buffers.push_back(std::make_unique<DeviceBuffer<float>>(s.Size(), seed++));
    outputs.push_back(BlobOf(*buffers.back(), s));
    bytes += buffers.back()->bytes();
  }
  ops::GpuCall call(attrs, BenchStream());
  const std::vector<ops::OpReqType> req(outputs.size(), req_type);
  TimeOnGpu(state, [&] {
    for (int i = 0; i < calls; ++i) {
      ops::Invoke<mshadow::gpu>(attrs, call.context(), inputs, req, outputs);
    }
  });
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

constexpr index_t kRows = 4096, kCols = 4096;

void BM_Relu_Project(benchmark::State& state) {
  RunOperator(state, "relu", {}, {TShape{kRows, kCols}});
}
void BM_Relu_BaselineDeviceCopy(benchmark::State& state) {
  DeviceCopy(state, 2 * kRows * kCols * sizeof(float));
}
void BM_ElemwiseAdd_Project(benchmark::State& state) {
  RunOperator(state, "elemwise_add", {}, {TShape{kRows, kCols}, TShape{kRows, kCols}});
}
void BM_ElemwiseAdd_BaselineDeviceCopy(benchmark::State& state) {
  DeviceCopy(state, 3 * kRows * kCols * sizeof(float));
}
void BM_BroadcastAddRow_Project(benchmark::State& state) {
  RunOperator(state, "broadcast_add", {}, {TShape{kRows, kCols}, TShape{1, kCols}});
}
void BM_BroadcastAddRow_BaselineDeviceCopy(benchmark::State& state) {
  DeviceCopy(state, 2 * kRows * kCols * sizeof(float));
}
void BM_SumLastAxis_Project(benchmark::State& state) {
  RunOperator(state, "sum", {{"axis", "1"}}, {TShape{kRows, kCols}});
}
void BM_SumLastAxis_BaselineDeviceCopy(benchmark::State& state) {
  DeviceCopy(state, kRows * kCols * sizeof(float));
}
void BM_SumFirstAxis_Project(benchmark::State& state) {
  RunOperator(state, "sum", {{"axis", "0"}}, {TShape{kRows, kCols}});
}
void BM_SumFirstAxis_BaselineDeviceCopy(benchmark::State& state) {
  DeviceCopy(state, kRows * kCols * sizeof(float));
}
void BM_Softmax_Project(benchmark::State& state) {
  RunOperator(state, "softmax", {}, {TShape{16384, 1000}});
}
void BM_Softmax_BaselineDeviceCopy(benchmark::State& state) {
  DeviceCopy(state, 2 * 16384 * 1000 * sizeof(float));
}
void BM_Transpose_Project(benchmark::State& state) {
  RunOperator(state, "transpose", {}, {TShape{kRows, kCols}});
}
void BM_Transpose_BaselineDeviceCopy(benchmark::State& state) {
  DeviceCopy(state, 2 * kRows * kCols * sizeof(float));
}

void BM_Softmax8192_Project(benchmark::State& state) {
  RunOperator(state, "softmax", {}, {TShape{8192, 8192}});
}
void BM_Softmax8192_BaselineDeviceCopy(benchmark::State& state) {
  DeviceCopy(state, 2 * 8192 * 8192 * sizeof(float));
}

// FullyConnected y = x w^T (+ bias) against the one cublasSgemm it amounts to (the bias is
// the operator's extra work: the goal allows it 5%). `calls` per timed iteration: 1 counts
// each call's host time before its kernel starts, 20 back to back mostly the GPU's.
void FullyConnected(benchmark::State& state, index_t batch, index_t in, index_t hidden, bool bias,
                    ops::OpReqType req = ops::kWriteTo, int calls = 1) {
  std::vector<TShape> shapes = {TShape{batch, in}, TShape{hidden, in}};
  if (bias) shapes.push_back(TShape{hidden});
  RunOperator(state, "FullyConnected",
              {{"num_hidden", std::to_string(hidden)}, {"no_bias", bias ? "0" : "1"}}, shapes, req,
              calls);
  state.counters["TFLOP/s"] = benchmark::Counter(2.0 * batch * in * hidden * calls * 1e-12,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}
// A fully connected layer's operands for the cuBLAS baselines, and a handle on BenchStream.
// Row-major y = x w^T is column-major y^T = w x^T: an m x n product of depth k.
struct CublasLayer {
  CublasLayer(index_t batch, index_t in, index_t hidden)
      : x(batch * in, 1),
        w(hidden * in, 2),
        y(batch * hidden, 3),
        m(static_cast<int>(hidden)),
        n(static_cast<int>(batch)),
        k(static_cast<int>(in)) {
    MSHADOW_CUBLAS_CALL(cublasCreate(&handle));
    MSHADOW_CUBLAS_CALL(cublasSetStream(handle, BenchStream()));
  }
  ~CublasLayer() { cublasDestroy(handle); }
  // y = x w^T + beta y.
  void Product(float beta) const {
    const float one = 1;
    MSHADOW_CUBLAS_CALL(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, w.data(), k,
                                    x.data(), k, &beta, y.data(), m));
  }

  DeviceBuffer<float> x, w, y;
  int m, n, k;
  cublasHandle_t handle = nullptr;
};

void CublasGemm(benchmark::State& state, index_t batch, index_t in, index_t hidden, int calls = 1) {
  const CublasLayer layer(batch, in, hidden);
  TimeOnGpu(state, [&] {
    for (int i = 0; i < calls; ++i) layer.Product(0);
  });
  state.counters["TFLOP/s"] = benchmark::Counter(2.0 * batch * in * hidden * calls * 1e-12,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

void BM_FullyConnected_Project(benchmark::State& state) {
  FullyConnected(state, 4096, 4096, 4096, /*bias=*/false);
}
void BM_FullyConnected_BaselineCublas(benchmark::State& state) {
  CublasGemm(state, 4096, 4096, 4096);
}
// The bias the way a host without cuBLASLt's epilogue would add it, in two cuBLAS calls on the
// same handle: its rows written by a k = 1 product (bias times a row of ones), then the product
// accumulated onto them (beta = 1). Beside the fused epilogue (the project) and the bare
// product, it says what the epilogue's choice of kernel costs on this shape.
void CublasGemmBiasTwoCalls(benchmark::State& state, index_t batch, index_t in, index_t hidden) {
  const CublasLayer layer(batch, in, hidden);
  DeviceBuffer<float> bias(hidden, 4), ones(batch, 5);
  const std::vector<float> host_ones(batch, 1.0f);
  MSHADOW_CUDA_CALL(
      cudaMemcpy(ones.data(), host_ones.data(), batch * sizeof(float), cudaMemcpyHostToDevice));
  const float one = 1, zero = 0;
  TimeOnGpu(state, [&] {
    MSHADOW_CUBLAS_CALL(cublasSgemm(layer.handle, CUBLAS_OP_N, CUBLAS_OP_N, layer.m, layer.n, 1,
                                    &one, bias.data(), layer.m, ones.data(), 1, &zero,
                                    layer.y.data(), layer.m));
    layer.Product(1);
  });
}

void BM_FullyConnectedBias_Project(benchmark::State& state) {
  FullyConnected(state, 256, 1024, 1024, /*bias=*/true);
}
void BM_FullyConnectedBias_BaselineCublas(benchmark::State& state) {
  CublasGemm(state, 256, 1024, 1024);
}
void BM_FullyConnectedBias_BaselineCublasTwoCalls(benchmark::State& state) {
  CublasGemmBiasTwoCalls(state, 256, 1024, 1024);
}
// The same, 20 calls back to back: what the GPU spends, the host's time per call hidden.
void BM_FullyConnectedBiasPipelined_Project(benchmark::State& state) {
  FullyConnected(state, 256, 1024, 1024, /*bias=*/true, ops::kWriteTo, 20);
}
void BM_FullyConnectedBiasPipelined_BaselineCublas(benchmark::State& state) {
  CublasGemm(state, 256, 1024, 1024, 20);
}
// Accumulating (kAddTo): the product with beta = 1, then a pass adding the bias, instead of the
// epilogue: what the unfused order costs.
void BM_FullyConnectedBiasAddTo_Project(benchmark::State& state) {
  FullyConnected(state, 256, 1024, 1024, /*bias=*/true, ops::kAddTo);
}
void BM_FullyConnectedBiasAddTo_BaselineCublas(benchmark::State& state) {
  CublasGemm(state, 256, 1024, 1024);
}

// Host time of one call on a 1-element tensor, attributes parsed once (real time): Invoke<gpu>
// (which infers the shapes and types to check the call, then launches), and InvokeUnchecked
// (the launch alone, for a host that has inferred already). The stream is drained every 512
// calls outside the timing, so that a full launch queue never makes the host wait for the GPU.
template <bool kChecked>
void InvokeOverhead(benchmark::State& state) {
  const ops::NodeAttrs attrs = ops::ParseAttrs(ops::Op::Get("relu"), {});
  DeviceBuffer<float> in(1, 1), out(1, 2);
  const std::vector<mshadow::TBlob> inputs = {BlobOf(in, TShape{1})};
  const std::vector<mshadow::TBlob> outputs = {BlobOf(out, TShape{1})};
  ops::GpuCall call(attrs, BenchStream());
  const std::vector<ops::OpReqType> req = {ops::kWriteTo};
  int64_t calls = 0;
  for (auto _ : state) {
    if (kChecked) {
      ops::Invoke<mshadow::gpu>(attrs, call.context(), inputs, req, outputs);
    } else {
      ops::InvokeUnchecked<mshadow::gpu>(attrs, call.context(), inputs, req, outputs);
    }
    if (++calls % 512 == 0) {
      state.PauseTiming();
      MSHADOW_CUDA_CALL(cudaStreamSynchronize(BenchStream()));
      state.ResumeTiming();
    }
  }
  MSHADOW_CUDA_CALL(cudaStreamSynchronize(BenchStream()));
}
void BM_InvokeOverhead_Project(benchmark::State& state) { InvokeOverhead<true>(state); }
void BM_InvokeUncheckedOverhead_Project(benchmark::State& state) { InvokeOverhead<false>(state); }

// The floor under both: one 4-byte cudaMemsetAsync, the cheapest call that puts work on the
// stream, and one launch of an empty kernel (what every operator's launch costs at least),
// timed the same way.
template <bool kKernel>
void OneCudaCall(benchmark::State& state) {
  DeviceBuffer<float> out(1, 2);
  int64_t calls = 0;
  for (auto _ : state) {
    if (kKernel) {
      gpu_bench::LaunchEmptyKernel();
    } else {
      MSHADOW_CUDA_CALL(cudaMemsetAsync(out.data(), 0, sizeof(float), BenchStream()));
    }
    if (++calls % 512 == 0) {
      state.PauseTiming();
      MSHADOW_CUDA_CALL(cudaStreamSynchronize(BenchStream()));
      state.ResumeTiming();
    }
  }
  MSHADOW_CUDA_CALL(cudaStreamSynchronize(BenchStream()));
}
void BM_InvokeOverhead_BaselineOneCudaCall(benchmark::State& state) { OneCudaCall<false>(state); }
void BM_InvokeOverhead_BaselineEmptyKernel(benchmark::State& state) { OneCudaCall<true>(state); }
void BM_InvokeUncheckedOverhead_BaselineOneCudaCall(benchmark::State& state) {
  OneCudaCall<false>(state);
}

#define GPU_BENCHMARK(name) BENCHMARK(name)->UseManualTime()->Unit(benchmark::kMicrosecond)
GPU_BENCHMARK(BM_Relu_Project);
GPU_BENCHMARK(BM_Relu_BaselineDeviceCopy);
GPU_BENCHMARK(BM_ElemwiseAdd_Project);
GPU_BENCHMARK(BM_ElemwiseAdd_BaselineDeviceCopy);
GPU_BENCHMARK(BM_BroadcastAddRow_Project);
GPU_BENCHMARK(BM_BroadcastAddRow_BaselineDeviceCopy);
GPU_BENCHMARK(BM_SumLastAxis_Project);
GPU_BENCHMARK(BM_SumLastAxis_BaselineDeviceCopy);
GPU_BENCHMARK(BM_SumFirstAxis_Project);
GPU_BENCHMARK(BM_SumFirstAxis_BaselineDeviceCopy);
GPU_BENCHMARK(BM_Softmax_Project);
GPU_BENCHMARK(BM_Softmax_BaselineDeviceCopy);
GPU_BENCHMARK(BM_Transpose_Project);
GPU_BENCHMARK(BM_Transpose_BaselineDeviceCopy);
GPU_BENCHMARK(BM_Softmax8192_Project);
GPU_BENCHMARK(BM_Softmax8192_BaselineDeviceCopy);
GPU_BENCHMARK(BM_FullyConnected_Project);
GPU_BENCHMARK(BM_FullyConnected_BaselineCublas);
GPU_BENCHMARK(BM_FullyConnectedBias_Project);
GPU_BENCHMARK(BM_FullyConnectedBias_BaselineCublas);
GPU_BENCHMARK(BM_FullyConnectedBias_BaselineCublasTwoCalls);
GPU_BENCHMARK(BM_FullyConnectedBiasPipelined_Project);
GPU_BENCHMARK(BM_FullyConnectedBiasPipelined_BaselineCublas);
GPU_BENCHMARK(BM_FullyConnectedBiasAddTo_Project);
GPU_BENCHMARK(BM_FullyConnectedBiasAddTo_BaselineCublas);
BENCHMARK(BM_InvokeOverhead_Project)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_InvokeOverhead_BaselineOneCudaCall)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_InvokeOverhead_BaselineEmptyKernel)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_InvokeUncheckedOverhead_Project)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_InvokeUncheckedOverhead_BaselineOneCudaCall)->Unit(benchmark::kMicrosecond);

}  // namespace
