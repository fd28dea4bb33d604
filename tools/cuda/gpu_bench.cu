#include "tools/cuda/gpu_bench.h"

#include <algorithm>

#include "mshadow/cuda/check.h"

namespace gpu_bench {
namespace {

// A counter-based hash (splitmix64) per element: the same values for the same seed on any
// grid, without a random-number library.
template <typename T>
__global__ void FillUniformKernel(T* data, size_t n, T lo, T hi, uint64_t seed) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const double unit = static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
    data[i] = static_cast<T>(lo + (hi - lo) * unit);
  }
}

template <typename T>
void Fill(T* data, size_t n, T lo, T hi, uint64_t seed) {
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(std::min<size_t>((n + 255) / 256, 65536));
  FillUniformKernel<<<blocks, 256, 0, BenchStream()>>>(data, n, lo, hi, seed);
  MSHADOW_CUDA_CALL(cudaGetLastError());
  MSHADOW_CUDA_CALL(cudaStreamSynchronize(BenchStream()));
}

__global__ void EmptyKernel() {}

}  // namespace

void LaunchEmptyKernel() {
  EmptyKernel<<<1, 1, 0, BenchStream()>>>();
  MSHADOW_CUDA_CALL(cudaPeekAtLastError());
}

cudaStream_t BenchStream() {
  static cudaStream_t stream = [] {
    cudaStream_t s = nullptr;
    MSHADOW_CUDA_CALL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  return stream;
}

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
  MSHADOW_CUDA_CALL(cudaGetLastError());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

void FillUniform(float* data, size_t n, float lo, float hi, uint64_t seed) {
  Fill(data, n, lo, hi, seed);
}
void FillUniform(double* data, size_t n, double lo, double hi, uint64_t seed) {
  Fill(data, n, lo, hi, seed);
}

template <typename T>
DeviceBuffer<T>::DeviceBuffer(size_t n, uint64_t seed) : n_(n) {
  MSHADOW_CUDA_CALL(cudaMalloc(&data_, std::max<size_t>(1, bytes())));
  FillUniform(data_, n_, T(-1), T(1), seed);
}
template class DeviceBuffer<float>;
template class DeviceBuffer<double>;

void DeviceCopy(benchmark::State& state, size_t bytes) {
  const size_t n = bytes / 2 / sizeof(float);
  DeviceBuffer<float> src(n), dst(n, 2);
  TimeOnGpu(state, [&] {
    MSHADOW_CUDA_CALL(cudaMemcpyAsync(dst.data(), src.data(), src.bytes(), cudaMemcpyDeviceToDevice,
                                      BenchStream()));
  });
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * src.bytes()));
}

}  // namespace gpu_bench
