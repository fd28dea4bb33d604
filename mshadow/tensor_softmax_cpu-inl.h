// mshadow/tensor_softmax_cpu-inl.h: softmax and its loss gradient on CPU tensors, mshadow's
// free functions.
//
//   Softmax(prob, energy);             // 2-D: each row; 3-D (n, k, x): over k for each n, x
//   SoftmaxGrad(grad, prob, label);    // grad = prob - one_hot(label), per row
//   SoftmaxGrad(grad, prob, label, ignore_label);   // rows labelled ignore_label get 0
//
// Labels are float values of the class index. A label outside [0, classes) subtracts from no
// class (that row's gradient is prob itself); it never writes outside the tensor.
#ifndef MSHADOW_TENSOR_SOFTMAX_CPU_INL_H_
#define MSHADOW_TENSOR_SOFTMAX_CPU_INL_H_

#include <algorithm>
#include <cmath>

#include "mshadow/extension/index.h"
#include "mshadow/parallel.h"
#include "mshadow/tensor_core.h"
#include "mshadow/tensor_cpu-inl.h"

namespace mshadow {

namespace softmax_internal {

// Softmax of `n` values spaced `in_step` apart into values spaced `out_step` apart:
// exp(v - max) / sum, stable for large inputs.
template <typename DType>
inline void SoftmaxStrided(DType* dst, index_t out_step, const DType* energy, index_t in_step,
                           index_t n) {
  if (n == 0) return;
  DType largest = energy[0];
  for (index_t k = 1; k < n; ++k) {
    if (energy[k * in_step] > largest) largest = energy[k * in_step];
  }
  DType sum = DType(0);
  for (index_t k = 0; k < n; ++k) {
    dst[k * out_step] = std::exp(energy[k * in_step] - largest);
    sum += dst[k * out_step];
  }
  for (index_t k = 0; k < n; ++k) dst[k * out_step] /= sum;
}

// One row's loss gradient over `n` classes (strided as above): prob minus the label's one-hot,
// less `smooth` / (n - 1) off the label and plus `smooth` on it (label smoothing, alpha);
// zero when the label is the ignored one.
template <typename DType>
inline void SoftmaxGradStrided(DType* dst, index_t out_step, const DType* prob, index_t in_step,
                               index_t n, DType label, bool has_ignore, DType ignore_label,
                               float smooth) {
  // Compared as whole numbers, as mshadow's int casts did (without their undefined NaN case).
  if (has_ignore &&
      std::trunc(static_cast<double>(label)) == std::trunc(static_cast<double>(ignore_label))) {
    for (index_t k = 0; k < n; ++k) dst[k * out_step] = DType(0);
    return;
  }
  const index_t target = expr::IndexInRange(label, n);
  const DType off_label = n > 1 ? DType(smooth / static_cast<float>(n - 1)) : DType(0);
  for (index_t k = 0; k < n; ++k) {
    dst[k * out_step] =
        k == target ? prob[k * in_step] - DType(1) + DType(smooth) : prob[k * in_step] - off_label;
  }
}

}  // namespace softmax_internal

template <typename DType>
inline void Softmax(Tensor<cpu, 1, DType> dst, const Tensor<cpu, 1, DType>& energy) {
  CHECK_EQ(dst.shape_, energy.shape_) << "Softmax: shape mismatch";
  softmax_internal::SoftmaxStrided(dst.dptr_, 1, energy.dptr_, 1, dst.size(0));
}

template <typename DType>
inline void Softmax(Tensor<cpu, 2, DType> dst, const Tensor<cpu, 2, DType>& energy) {
  CHECK_EQ(dst.shape_, energy.shape_) << "Softmax: shape mismatch";
  ParallelFor(dst.size(0), ThreadsFor(dst.size(0) * dst.size(1), dst.size(0)), [&](index_t y) {
    softmax_internal::SoftmaxStrided(dst[y].dptr_, 1, energy[y].dptr_, 1, dst.size(1));
  });
}

// Over dimension 1 for each (n, x): the class axis of an (n, classes, positions) tensor.
template <typename DType>
inline void Softmax(Tensor<cpu, 3, DType> dst, const Tensor<cpu, 3, DType>& energy) {
  CHECK_EQ(dst.shape_, energy.shape_) << "Softmax: shape mismatch";
  ParallelFor(dst.size(0), ThreadsFor(dst.shape_.Size(), dst.size(0)), [&](index_t n) {
    for (index_t x = 0; x < dst.size(2); ++x) {
      softmax_internal::SoftmaxStrided(dst[n].dptr_ + x, dst.stride_, energy[n].dptr_ + x,
                                       energy.stride_, dst.size(1));
    }
  });
}

namespace softmax_internal {

template <typename DType>
inline void SoftmaxGrad2D(Tensor<cpu, 2, DType> dst, const Tensor<cpu, 2, DType>& src,
                          const Tensor<cpu, 1, DType>& label, bool has_ignore, DType ignore_label,
                          float smooth) {
  CHECK_EQ(dst.shape_, src.shape_) << "SoftmaxGrad: shape mismatch";
  CHECK_EQ(label.size(0), dst.size(0)) << "SoftmaxGrad: " << label.shape_ << " labels for "
                                       << dst.shape_ << "; one per row is needed";
  ParallelFor(dst.size(0), ThreadsFor(dst.size(0) * dst.size(1), dst.size(0)), [&](index_t y) {
    SoftmaxGradStrided(dst[y].dptr_, 1, src[y].dptr_, 1, dst.size(1), label[y], has_ignore,
                       ignore_label, smooth);
  });
}

// (n, classes, positions) with labels (n, positions).
template <typename DType>
inline void SoftmaxGrad3D(Tensor<cpu, 3, DType> dst, const Tensor<cpu, 3, DType>& src,
                          const Tensor<cpu, 2, DType>& label, bool has_ignore, DType ignore_label,
                          float smooth) {
  CHECK_EQ(dst.shape_, src.shape_) << "SoftmaxGrad: shape mismatch";
  CHECK(label.size(0) == dst.size(0) && label.size(1) == dst.size(2))
      << "SoftmaxGrad: labels " << label.shape_ << " for " << dst.shape_
      << "; one per (n, position) is needed";
  ParallelFor(dst.size(0), ThreadsFor(dst.shape_.Size(), dst.size(0)), [&](index_t n) {
    for (index_t x = 0; x < dst.size(2); ++x) {
      SoftmaxGradStrided(dst[n].dptr_ + x, dst.stride_, src[n].dptr_ + x, src.stride_, dst.size(1),
                         label[n][x], has_ignore, ignore_label, smooth);
    }
  });
}

}  // namespace softmax_internal

// dst = src with 1 subtracted at each row's label: the gradient of softmax cross-entropy.
template <typename DType>
inline void SoftmaxGrad(Tensor<cpu, 2, DType> dst, const Tensor<cpu, 2, DType>& src,
                        const Tensor<cpu, 1, DType>& label) {
  softmax_internal::SoftmaxGrad2D(dst, src, label, false, DType(0), 0.0f);
}
template <typename DType>
inline void SoftmaxGrad(Tensor<cpu, 2, DType> dst, const Tensor<cpu, 2, DType>& src,
                        const Tensor<cpu, 1, DType>& label, const DType& ignore_label) {
  softmax_internal::SoftmaxGrad2D(dst, src, label, true, ignore_label, 0.0f);
}
template <typename DType>
inline void SoftmaxGrad(Tensor<cpu, 3, DType> dst, const Tensor<cpu, 3, DType>& src,
                        const Tensor<cpu, 2, DType>& label) {
  softmax_internal::SoftmaxGrad3D(dst, src, label, false, DType(0), 0.0f);
}
template <typename DType>
inline void SoftmaxGrad(Tensor<cpu, 3, DType> dst, const Tensor<cpu, 3, DType>& src,
                        const Tensor<cpu, 2, DType>& label, const DType& ignore_label) {
  softmax_internal::SoftmaxGrad3D(dst, src, label, true, ignore_label, 0.0f);
}

// With label smoothing alpha: the label gets prob - 1 + alpha, every other class
// prob - alpha / (classes - 1).
template <typename DType>
inline void SmoothSoftmaxGrad(Tensor<cpu, 2, DType> dst, const Tensor<cpu, 2, DType>& src,
                              const Tensor<cpu, 1, DType>& label, const float alpha) {
  softmax_internal::SoftmaxGrad2D(dst, src, label, false, DType(0), alpha);
}
template <typename DType>
inline void SmoothSoftmaxGrad(Tensor<cpu, 2, DType> dst, const Tensor<cpu, 2, DType>& src,
                              const Tensor<cpu, 1, DType>& label, const DType& ignore_label,
                              const float alpha) {
  softmax_internal::SoftmaxGrad2D(dst, src, label, true, ignore_label, alpha);
}
template <typename DType>
inline void SmoothSoftmaxGrad(Tensor<cpu, 3, DType> dst, const Tensor<cpu, 3, DType>& src,
                              const Tensor<cpu, 2, DType>& label, const float alpha) {
  softmax_internal::SoftmaxGrad3D(dst, src, label, false, DType(0), alpha);
}
template <typename DType>
inline void SmoothSoftmaxGrad(Tensor<cpu, 3, DType> dst, const Tensor<cpu, 3, DType>& src,
                              const Tensor<cpu, 2, DType>& label, const DType& ignore_label,
                              const float alpha) {
  softmax_internal::SoftmaxGrad3D(dst, src, label, true, ignore_label, alpha);
}

}  // namespace mshadow

#endif  // MSHADOW_TENSOR_SOFTMAX_CPU_INL_H_
