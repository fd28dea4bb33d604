// mshadow/cuda/softmax_gpu.cuh: Softmax, SoftmaxGrad and SmoothSoftmaxGrad on GPU tensors,
// mshadow's free functions with the CPU's meaning (mshadow/tensor_softmax_cpu-inl.h); CUDA
// translation units only (included by mshadow/tensor_gpu-inl.h under nvcc).
//
//   Softmax(prob, energy);                   // 2-D: each row; 3-D (n, k, x): over k
//   SoftmaxGrad(grad, prob, label);          // grad = prob - one_hot(label), per row
//   SmoothSoftmaxGrad(grad, prob, label, ignore_label, alpha);
//
// A 2-D softmax takes a block per row (its maximum and sum folded in shared memory, in a fixed
// order); a 3-D one a thread per (n, x), neighbouring threads reading neighbouring positions;
// the gradients a thread per element. 16-bit types are summed in float. Every kernel runs on
// the destination's stream without synchronizing. Labels outside [0, classes) subtract from
// no class, as on the CPU.
#ifndef MSHADOW_CUDA_SOFTMAX_GPU_CUH_
#define MSHADOW_CUDA_SOFTMAX_GPU_CUH_

#include <cuda_runtime.h>

#include "mshadow/cuda/check.h"
#include "mshadow/cuda/stream.h"
#include "mshadow/cuda/tensor_gpu-inl.cuh"
#include "mshadow/extension/index.h"
#include "mshadow/tensor_core.h"

namespace mshadow {
namespace cuda {

constexpr int kSoftmaxRowThreads = 256;

// dst's rows = softmax of energy's rows (a block per row, grid-stride over rows).
template <typename DType>
__global__ void __launch_bounds__(kSoftmaxRowThreads)
    SoftmaxRowsKernel(Tensor<gpu, 2, DType> dst, const Tensor<gpu, 2, DType> energy) {
  using A = Accum<DType>;
  __shared__ A shared[kSoftmaxRowThreads];
  const index_t width = dst.size(1);
  for (index_t y = blockIdx.x; y < dst.size(0); y += gridDim.x) {
    const DType* in = energy.dptr_ + y * energy.stride_;
    DType* out = dst.dptr_ + y * dst.stride_;
    A largest;
    red::maximum::SetInitValue(largest);
    for (index_t x = threadIdx.x; x < width; x += blockDim.x) {
      red::maximum::Reduce(largest, static_cast<A>(in[x]));
    }
    largest = BlockReduce<red::maximum>(largest, shared);
    __syncthreads();  // every thread has read the maximum before shared is reused
    A sum = A(0);
    for (index_t x = threadIdx.x; x < width; x += blockDim.x) {
      sum += exp(static_cast<A>(in[x]) - largest);
    }
    sum = BlockReduce<red::sum>(sum, shared);
    __syncthreads();
    for (index_t x = threadIdx.x; x < width; x += blockDim.x) {
      out[x] = static_cast<DType>(exp(static_cast<A>(in[x]) - largest) / sum);
    }
  }
}

// Softmax over axis 1 of (n, classes, positions): a thread per (n, position).
template <typename DType>
__global__ void __launch_bounds__(kMapThreads)
    SoftmaxClassesKernel(Tensor<gpu, 3, DType> dst, const Tensor<gpu, 3, DType> energy) {
  using A = Accum<DType>;
  const index_t classes = dst.size(1), positions = dst.size(2);
  const index_t count = dst.size(0) * positions;
  const index_t step = static_cast<index_t>(gridDim.x) * blockDim.x;
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += step) {
    const index_t n = i / positions, x = i - n * positions;
    const DType* in = energy.dptr_ + n * classes * energy.stride_ + x;
    DType* out = dst.dptr_ + n * classes * dst.stride_ + x;
    A largest;
    red::maximum::SetInitValue(largest);
    for (index_t k = 0; k < classes; ++k) {
      red::maximum::Reduce(largest, static_cast<A>(in[k * energy.stride_]));
    }
    A sum = A(0);
    for (index_t k = 0; k < classes; ++k) {
      sum += exp(static_cast<A>(in[k * energy.stride_]) - largest);
    }
    for (index_t k = 0; k < classes; ++k) {
      out[k * dst.stride_] =
          static_cast<DType>(exp(static_cast<A>(in[k * energy.stride_]) - largest) / sum);
    }
  }
}

// What every element of a loss gradient shares: whether a label is ignored (and which), and
// the smoothing alpha.
struct GradRule {
  bool has_ignore;
  double ignore_label;
  float smooth;

  // Class k's gradient of a row of `classes` labelled `label`, whose probability is prob:
  // prob - 1 + alpha at the label, prob - alpha / (classes - 1) elsewhere, 0 where ignored
  // (labels compared as whole numbers, as the CPU's).
  template <typename DType>
  __device__ DType Of(DType prob, index_t k, index_t classes, DType label) const {
    if (has_ignore && trunc(static_cast<double>(label)) == trunc(ignore_label)) return DType(0);
    if (k == expr::IndexInRange(label, classes)) return prob - DType(1) + DType(smooth);
    const DType off_label =
        classes > 1 ? DType(smooth / static_cast<float>(classes - 1)) : DType(0);
    return prob - off_label;
  }
};

// dst[y][k] = rule.Of(src[y][k], k, classes, label[y]).
template <typename DType>
__global__ void __launch_bounds__(kMapThreads)
    SoftmaxGradRowsKernel(Tensor<gpu, 2, DType> dst, const Tensor<gpu, 2, DType> src,
                          const Tensor<gpu, 1, DType> label, const GradRule rule) {
  const index_t classes = dst.size(1), count = dst.size(0) * classes;
  const index_t step = static_cast<index_t>(gridDim.x) * blockDim.x;
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += step) {
    const index_t y = i / classes, k = i - y * classes;
    dst.dptr_[y * dst.stride_ + k] =
        rule.Of(src.dptr_[y * src.stride_ + k], k, classes, label.dptr_[y]);
  }
}

// dst[n][k][x] = rule.Of(src[n][k][x], k, classes, label[n][x]).
template <typename DType>
__global__ void __launch_bounds__(kMapThreads)
    SoftmaxGradClassesKernel(Tensor<gpu, 3, DType> dst, const Tensor<gpu, 3, DType> src,
                             const Tensor<gpu, 2, DType> label, const GradRule rule) {
  const index_t classes = dst.size(1), positions = dst.size(2);
  const index_t count = dst.size(0) * classes * positions;
  const index_t step = static_cast<index_t>(gridDim.x) * blockDim.x;
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += step) {
    const index_t x = i % positions, row = i / positions;  // row: n * classes + k
    const index_t n = row / classes, k = row - n * classes;
    dst.dptr_[row * dst.stride_ + x] =
        rule.Of(src.dptr_[row * src.stride_ + x], k, classes, label.dptr_[n * label.stride_ + x]);
  }
}

template <typename DType>
inline void SoftmaxGrad2D(Tensor<gpu, 2, DType> dst, const Tensor<gpu, 2, DType>& src,
                          const Tensor<gpu, 1, DType>& label, GradRule rule) {
  CHECK_EQ(dst.shape_, src.shape_) << "SoftmaxGrad: shape mismatch";
  CHECK_EQ(label.size(0), dst.size(0)) << "SoftmaxGrad: " << label.shape_ << " labels for "
                                       << dst.shape_ << "; one per row is needed";
  const index_t count = dst.shape_.Size();
  if (count == 0) return;
  SoftmaxGradRowsKernel<<<GridFor(count, kMapThreads), kMapThreads, 0,
                          Stream<gpu>::GetStream(dst.stream_)>>>(dst, src, label, rule);
  MSHADOW_CUDA_CHECK_LAUNCH("SoftmaxGradRowsKernel");
}

template <typename DType>
inline void SoftmaxGrad3D(Tensor<gpu, 3, DType> dst, const Tensor<gpu, 3, DType>& src,
                          const Tensor<gpu, 2, DType>& label, GradRule rule) {
  CHECK_EQ(dst.shape_, src.shape_) << "SoftmaxGrad: shape mismatch";
  CHECK(label.size(0) == dst.size(0) && label.size(1) == dst.size(2))
      << "SoftmaxGrad: labels " << label.shape_ << " for " << dst.shape_
      << "; one per (n, position) is needed";
  const index_t count = dst.shape_.Size();
  if (count == 0) return;
  SoftmaxGradClassesKernel<<<GridFor(count, kMapThreads), kMapThreads, 0,
                             Stream<gpu>::GetStream(dst.stream_)>>>(dst, src, label, rule);
  MSHADOW_CUDA_CHECK_LAUNCH("SoftmaxGradClassesKernel");
}

}  // namespace cuda

template <typename DType>
inline void Softmax(Tensor<gpu, 2, DType> dst, const Tensor<gpu, 2, DType>& energy) {
  CHECK_EQ(dst.shape_, energy.shape_) << "Softmax: shape mismatch";
  if (dst.size(0) == 0 || dst.size(1) == 0) return;
  // A block per row (GridFor of one item a block); rows past the grid's limit go round the
  // kernel's grid-stride loop.
  const unsigned grid = cuda::GridFor(dst.size(0), 1);
  const cudaStream_t stream = Stream<gpu>::GetStream(dst.stream_);
  cuda::SoftmaxRowsKernel<<<grid, cuda::kSoftmaxRowThreads, 0, stream>>>(dst, energy);
  MSHADOW_CUDA_CHECK_LAUNCH("SoftmaxRowsKernel");
}

template <typename DType>
inline void Softmax(Tensor<gpu, 1, DType> dst, const Tensor<gpu, 1, DType>& energy) {
  CHECK_EQ(dst.shape_, energy.shape_) << "Softmax: shape mismatch";
  Softmax(Tensor<gpu, 2, DType>(dst.dptr_, Shape2(1, dst.size(0)), dst.size(0), dst.stream_),
          Tensor<gpu, 2, DType>(energy.dptr_, Shape2(1, energy.size(0)), energy.size(0),
                                energy.stream_));
}

// Over dimension 1 for each (n, x): the class axis of an (n, classes, positions) tensor.
template <typename DType>
inline void Softmax(Tensor<gpu, 3, DType> dst, const Tensor<gpu, 3, DType>& energy) {
  CHECK_EQ(dst.shape_, energy.shape_) << "Softmax: shape mismatch";
  const index_t count = dst.size(0) * dst.size(2);
  if (count == 0 || dst.size(1) == 0) return;
  cuda::SoftmaxClassesKernel<<<cuda::GridFor(count, cuda::kMapThreads), cuda::kMapThreads, 0,
                               Stream<gpu>::GetStream(dst.stream_)>>>(dst, energy);
  MSHADOW_CUDA_CHECK_LAUNCH("SoftmaxClassesKernel");
}

// dst = src with 1 subtracted at each row's label: the gradient of softmax cross-entropy.
template <typename DType>
inline void SoftmaxGrad(Tensor<gpu, 2, DType> dst, const Tensor<gpu, 2, DType>& src,
                        const Tensor<gpu, 1, DType>& label) {
  cuda::SoftmaxGrad2D(dst, src, label, cuda::GradRule{false, 0.0, 0.0f});
}
template <typename DType>
inline void SoftmaxGrad(Tensor<gpu, 2, DType> dst, const Tensor<gpu, 2, DType>& src,
                        const Tensor<gpu, 1, DType>& label, const DType& ignore_label) {
  cuda::SoftmaxGrad2D(dst, src, label,
                      cuda::GradRule{true, static_cast<double>(ignore_label), 0.0f});
}
template <typename DType>
inline void SoftmaxGrad(Tensor<gpu, 3, DType> dst, const Tensor<gpu, 3, DType>& src,
                        const Tensor<gpu, 2, DType>& label) {
  cuda::SoftmaxGrad3D(dst, src, label, cuda::GradRule{false, 0.0, 0.0f});
}
template <typename DType>
inline void SoftmaxGrad(Tensor<gpu, 3, DType> dst, const Tensor<gpu, 3, DType>& src,
                        const Tensor<gpu, 2, DType>& label, const DType& ignore_label) {
  cuda::SoftmaxGrad3D(dst, src, label,
                      cuda::GradRule{true, static_cast<double>(ignore_label), 0.0f});
}

// With label smoothing alpha: the label gets prob - 1 + alpha, every other class
// prob - alpha / (classes - 1).
template <typename DType>
inline void SmoothSoftmaxGrad(Tensor<gpu, 2, DType> dst, const Tensor<gpu, 2, DType>& src,
                              const Tensor<gpu, 1, DType>& label, const float alpha) {
  cuda::SoftmaxGrad2D(dst, src, label, cuda::GradRule{false, 0.0, alpha});
}
template <typename DType>
inline void SmoothSoftmaxGrad(Tensor<gpu, 2, DType> dst, const Tensor<gpu, 2, DType>& src,
                              const Tensor<gpu, 1, DType>& label, const DType& ignore_label,
                              const float alpha) {
  cuda::SoftmaxGrad2D(dst, src, label,
                      cuda::GradRule{true, static_cast<double>(ignore_label), alpha});
}
template <typename DType>
inline void SmoothSoftmaxGrad(Tensor<gpu, 3, DType> dst, const Tensor<gpu, 3, DType>& src,
                              const Tensor<gpu, 2, DType>& label, const float alpha) {
  cuda::SoftmaxGrad3D(dst, src, label, cuda::GradRule{false, 0.0, alpha});
}
template <typename DType>
inline void SmoothSoftmaxGrad(Tensor<gpu, 3, DType> dst, const Tensor<gpu, 3, DType>& src,
                              const Tensor<gpu, 2, DType>& label, const DType& ignore_label,
                              const float alpha) {
  cuda::SoftmaxGrad3D(dst, src, label,
                      cuda::GradRule{true, static_cast<double>(ignore_label), alpha});
}

}  // namespace mshadow

#endif  // MSHADOW_CUDA_SOFTMAX_GPU_CUH_
