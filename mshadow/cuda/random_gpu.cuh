// mshadow/cuda/random_gpu.cuh: `Random<gpu, DType>`, the GPU side of mshadow/random.h
// (included by mshadow/tensor_gpu-inl.h in CUDA translation units).
//
//   mshadow::Random<gpu, float> rnd(/*seed=*/0);
//   rnd.set_stream(stream);                       // kernels run on it (default stream if unset)
//   rnd.SampleGaussian(&weight, 0.0f, 0.01f);     // weight: a Tensor<gpu, dim, float>
//   out = rnd.uniform(out.shape_) * 2.0f;          // as an expression
//
// Element i of a sample is draw(Philox4x32(key, counter + i)), the function the CPU uses
// (mshadow::sampling), so a seed gives the CPU's tensors: uniform and Bernoulli samples bit
// for bit, Gaussian ones to the last bits of the device's log and cos. No cuRAND state: the
// counter is the generator's whole state, advanced on the host by each call.
#ifndef MSHADOW_CUDA_RANDOM_GPU_CUH_
#define MSHADOW_CUDA_RANDOM_GPU_CUH_

#include <cstdint>
#include <limits>

#include "mshadow/cuda/check.h"
#include "mshadow/cuda/tensor_gpu-inl.cuh"
#include "mshadow/random.h"

namespace mshadow {
namespace cuda {

// rows[y][x] = draw(block first + y * width + x) for the n = height * width elements.
template <typename Index, typename DType, typename Draw>
__global__ void __launch_bounds__(kMapThreads)
    RandomFillKernel(DType* rows, const Index stride, const Index width, const Index n,
                     const PhiloxKey key, const uint64_t first, const Draw draw) {
  const Index step = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const Index y = i / width;
    const Index x = i - y * width;
    rows[y * stride + x] = draw(Philox4x32(key, first + i));
  }
}

}  // namespace cuda

template <typename DType>
class Random<gpu, DType> {
 public:
  explicit Random(int seed) { Seed(seed); }

  // Restarts the sequence: the same seed gives the same samples again, and the CPU's.
  void Seed(int seed) {
    key_ = PhiloxKeyFromSeed(static_cast<uint64_t>(static_cast<int64_t>(seed)));
    next_ = 0;
  }
  // The stream the sampling kernels run on; nullptr is the default stream.
  void set_stream(Stream<gpu>* stream) {
    stream_ = stream;
    buffer_.stream_ = stream;
  }

  // Uniform on [a, b).
  template <int dim>
  void SampleUniform(Tensor<gpu, dim, DType>* dst, DType a = 0, DType b = 1) {
    Fill(dst, sampling::MakeUniform(a, b));
  }
  // Normal with mean mu and standard deviation sigma (Box-Muller).
  template <int dim>
  void SampleGaussian(Tensor<gpu, dim, DType>* dst, DType mu = 0, DType sigma = 1) {
    Fill(dst, sampling::MakeGaussian(mu, sigma));
  }
  // 1 with probability p, 0 otherwise.
  template <int dim>
  void SampleBernoulli(Tensor<gpu, dim, DType>* dst, DType p) {
    Fill(dst, sampling::MakeBernoulli(p));
  }

  // The same draws as expressions over an internal buffer, valid until the next call.
  template <int dim>
  expr::ReshapeExp<Tensor<gpu, 1, DType>, DType, dim, 1> uniform(Shape<dim> shape) {
    SampleUniform(Buffer(shape.Size()));
    return expr::reshape(buffer_view_, shape);
  }
  template <int dim>
  expr::ReshapeExp<Tensor<gpu, 1, DType>, DType, dim, 1> gaussian(Shape<dim> shape) {
    SampleGaussian(Buffer(shape.Size()));
    return expr::reshape(buffer_view_, shape);
  }

 private:
  template <int dim, typename Draw>
  void Fill(Tensor<gpu, dim, DType>* dst, Draw draw) {
    const Tensor<gpu, 2, DType> rows = dst->FlatTo2D();
    const index_t n = rows.shape_.Size();
    const uint64_t first = next_;
    next_ += static_cast<uint64_t>(n);
    if (n == 0) return;
    const unsigned grid = cuda::GridFor(n, cuda::kMapThreads);
    const cudaStream_t stream = Stream<gpu>::GetStream(stream_);
    // 32-bit indices where the last element's address fits them (faster division).
    if (cuda::FitsUint32(n, cuda::kMapThreads) &&
        static_cast<uint64_t>(rows.size(0)) * rows.stride_ < std::numeric_limits<uint32_t>::max()) {
      cuda::RandomFillKernel<uint32_t><<<grid, cuda::kMapThreads, 0, stream>>>(
          rows.dptr_, static_cast<uint32_t>(rows.stride_), static_cast<uint32_t>(rows.size(1)),
          static_cast<uint32_t>(n), key_, first, draw);
    } else {
      cuda::RandomFillKernel<uint64_t><<<grid, cuda::kMapThreads, 0, stream>>>(
          rows.dptr_, static_cast<uint64_t>(rows.stride_), static_cast<uint64_t>(rows.size(1)),
          static_cast<uint64_t>(n), key_, first, draw);
    }
    MSHADOW_CUDA_CHECK_LAUNCH("RandomFillKernel");
  }

  Tensor<gpu, 1, DType>* Buffer(index_t size) {
    if (buffer_.shape_[0] < size) buffer_.Resize(Shape1(size));
    buffer_view_ = Tensor<gpu, 1, DType>(buffer_.dptr_, Shape1(size), stream_);
    return &buffer_view_;
  }

  PhiloxKey key_{};
  uint64_t next_ = 0;  // the Philox counter of the next element drawn
  Stream<gpu>* stream_ = nullptr;
  TensorContainer<gpu, 1, DType> buffer_{false};
  Tensor<gpu, 1, DType> buffer_view_;
};

}  // namespace mshadow

#endif  // MSHADOW_CUDA_RANDOM_GPU_CUH_
