// Operators on the GPU against what the hardware allows, each in the same run as its
// baseline (ratio printed by //tools/bench:ratio_main; > 1: the operator is faster):
//
// - memory-bound operators (relu, elemwise_add, broadcast_add, sum, softmax, transpose)
//   against a device-to-device cudaMemcpyAsync moving the bytes the operator must read and
//   write at least (BaselineDeviceCopy): a ratio near 1 is memory speed;
// - FullyConnected (no bias) against one cublasSgemm on the same buffers (BaselineCublas).
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

namespace {

using mshadow::index_t;
using mshadow::TShape;

// Device memory for one float32 tensor, filled with a small constant.
class DeviceTensor {
 public:
  explicit DeviceTensor(const TShape& shape) : shape_(shape) {
    MSHADOW_CUDA_CALL(cudaMalloc(&data_, std::max<size_t>(1, Bytes())));
    MSHADOW_CUDA_CALL(cudaMemset(data_, 0, Bytes()));
  }
  ~DeviceTensor() { cudaFree(data_); }
  DeviceTensor(const DeviceTensor&) = delete;
  size_t Bytes() const { return static_cast<size_t>(shape_.Size()) * sizeof(float); }
  mshadow::TBlob Blob() const {
    return mshadow::TBlob(data_, shape_, mshadow::gpu::kDevMask, mshadow::kFloat32);
  }
  float* data() const { return static_cast<float*>(data_); }

 private:
  TShape shape_;
  void* data_ = nullptr;
};

cudaStream_t BenchStream() {
  static cudaStream_t stream = [] {
    cudaStream_t s = nullptr;
    MSHADOW_CUDA_CALL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  return stream;
}

// Times `call` (work issued on BenchStream) with CUDA events, one warm-up call first.
void TimeOnGpu(benchmark::State& state, const std::function<void()>& call) {
  cudaStream_t stream = BenchStream();
  cudaEvent_t start, stop;
  MSHADOW_CUDA_CALL(cudaEventCreate(&start));
  MSHADOW_CUDA_CALL(cudaEventCreate(&stop));
  call();
  MSHADOW_CUDA_CALL(cudaStreamSynchronize(stream));
  for (auto _ : state) {
    MSHADOW_CUDA_CALL(cudaEventRecord(start, stream));
    call();
    MSHADOW_CUDA_CALL(cudaEventRecord(stop, stream));
    MSHADOW_CUDA_CALL(cudaEventSynchronize(stop));
    float ms = 0;
    MSHADOW_CUDA_CALL(cudaEventElapsedTime(&ms, start, stop));
    state.SetIterationTime(ms / 1e3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

// One operator call on device tensors of the given input shapes (outputs inferred).
void RunOperator(benchmark::State& state, const std::string& op,
                 const std::map<std::string, std::string>& params,
                 const std::vector<TShape>& input_shapes) {
  const ops::NodeAttrs attrs = ops::ParseAttrs(ops::Op::Get(op), params);
  std::vector<TShape> in_shapes = input_shapes, out_shapes;
  std::vector<int> in_types(in_shapes.size(), mshadow::kFloat32), out_types;
  ops::InferShapes(attrs, &in_shapes, &out_shapes);
  ops::InferTypes(attrs, &in_types, &out_types);
  std::vector<std::unique_ptr<DeviceTensor>> tensors;
  std::vector<mshadow::TBlob> inputs, outputs;
  size_t bytes = 0;
  for (const TShape& s : in_shapes) {
    tensors.push_back(std::make_unique<DeviceTensor>(s));
    inputs.push_back(tensors.back()->Blob());
    bytes += tensors.back()->Bytes();
  }
  for (const TShape& s : out_shapes) {
    tensors.push_back(std::make_unique<DeviceTensor>(s));
    outputs.push_back(tensors.back()->Blob());
    bytes += tensors.back()->Bytes();
  }
  ops::GpuCall call(attrs, BenchStream());
  const std::vector<ops::OpReqType> req(outputs.size(), ops::kWriteTo);
  TimeOnGpu(state, [&] { ops::Invoke<mshadow::gpu>(attrs, call.context(), inputs, req, outputs); });
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

// A device-to-device copy moving `bytes` in total (half read, half written).
void DeviceCopy(benchmark::State& state, size_t bytes) {
  const index_t n = static_cast<index_t>(bytes / 2 / sizeof(float));
  DeviceTensor src(TShape{n}), dst(TShape{n});
  TimeOnGpu(state, [&] {
    MSHADOW_CUDA_CALL(cudaMemcpyAsync(dst.data(), src.data(), src.Bytes(), cudaMemcpyDeviceToDevice,
                                      BenchStream()));
  });
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * src.Bytes()));
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

// FullyConnected (batch, k) x (n, k)^T, no bias, against the cublasSgemm it amounts to.
constexpr index_t kBatch = 4096, kIn = 4096, kHidden = 4096;

void BM_FullyConnected_Project(benchmark::State& state) {
  RunOperator(state, "FullyConnected", {{"num_hidden", std::to_string(kHidden)}, {"no_bias", "1"}},
              {TShape{kBatch, kIn}});
  state.counters["TFLOP/s"] = benchmark::Counter(2.0 * kBatch * kIn * kHidden * 1e-12,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}
void BM_FullyConnected_BaselineCublas(benchmark::State& state) {
  DeviceTensor x(TShape{kBatch, kIn}), w(TShape{kHidden, kIn}), y(TShape{kBatch, kHidden});
  cublasHandle_t handle;
  MSHADOW_CUBLAS_CALL(cublasCreate(&handle));
  MSHADOW_CUBLAS_CALL(cublasSetStream(handle, BenchStream()));
  const float one = 1, zero = 0;
  // Row-major y = x w^T is column-major y^T = w x^T.
  TimeOnGpu(state, [&] {
    MSHADOW_CUBLAS_CALL(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, kHidden, kBatch, kIn, &one,
                                    w.data(), kIn, x.data(), kIn, &zero, y.data(), kHidden));
  });
  cublasDestroy(handle);
  state.counters["TFLOP/s"] = benchmark::Counter(2.0 * kBatch * kIn * kHidden * 1e-12,
                                                 benchmark::Counter::kIsIterationInvariantRate);
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
GPU_BENCHMARK(BM_FullyConnected_Project);
GPU_BENCHMARK(BM_FullyConnected_BaselineCublas);

}  // namespace
