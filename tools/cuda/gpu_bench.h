// What the GPU benchmarks share: one stream, CUDA-event timing, device buffers of random
// values (never zeros: they hide unwritten outputs and can run faster than real data), and
// the device-to-device copy every memory-bound case is measured against.
//
//   void BM_Exp_Project(benchmark::State& state) {
//     gpu_bench::DeviceBuffer<float> in(n), out(n);
//     gpu_bench::TimeOnGpu(state, [&] { ... launch on gpu_bench::BenchStream() ... });
//   }
//   void BM_Exp_BaselineDeviceCopy(benchmark::State& state) {
//     gpu_bench::DeviceCopy(state, 2 * n * sizeof(float));
//   }
#ifndef TOOLS_CUDA_GPU_BENCH_H_
#define TOOLS_CUDA_GPU_BENCH_H_

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace gpu_bench {

// The stream every benchmark issues its work on (non-blocking, created once).
cudaStream_t BenchStream();

// One launch of a kernel that does nothing on BenchStream (the floor of a kernel launch's
// host time).
void LaunchEmptyKernel();

// Times `call` (work issued on BenchStream) with CUDA events around each iteration, after
// one warm-up call; the benchmark must be registered with UseManualTime().
void TimeOnGpu(benchmark::State& state, const std::function<void()>& call);

// Fills `n` elements on the device with uniform values in [lo, hi), on BenchStream.
void FillUniform(float* data, size_t n, float lo, float hi, uint64_t seed);
void FillUniform(double* data, size_t n, double lo, double hi, uint64_t seed);

// Device memory of `n` elements of T holding uniform values in [-1, 1).
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n, uint64_t seed = 1);
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* data() const { return data_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }

 private:
  size_t n_;
  T* data_ = nullptr;
};

// A cudaMemcpyAsync moving `bytes` in all (half read, half written) on BenchStream.
void DeviceCopy(benchmark::State& state, size_t bytes);

}  // namespace gpu_bench

#endif  // TOOLS_CUDA_GPU_BENCH_H_
