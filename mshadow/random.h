// mshadow/random.h: `Random<Device, DType>`, seedable random tensors.
//
//   mshadow::Random<cpu, float> rnd(/*seed=*/0);
//   rnd.SampleGaussian(&weight, 0.0f, 0.01f);   // N(mu, sigma)
//   rnd.SampleUniform(&noise, -1.0f, 1.0f);      // [a, b)
//   rnd.SampleBernoulli(&mask, 0.5f);            // 1 with probability p, else 0
//   out = rnd.uniform(out.shape_) * 2.0f;        // as an expression (a buffer reshaped)
//
// Reproducible: element i of the k-th sample after Seed(s) is a pure function of (s, k's
// position in the sequence, i), computed with Philox4x32-10, so the same seed gives the same
// tensors on any number of threads and on the GPU (`Random<gpu, DType>`, in CUDA translation
// units: mshadow/cuda/random_gpu.cuh): uniform and Bernoulli samples bit for bit, Gaussian
// ones to the last bits of the device's log and cos. Each call advances the sequence by the
// number of elements it drew.
#ifndef MSHADOW_RANDOM_H_
#define MSHADOW_RANDOM_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "mshadow/extension/reshape.h"
#include "mshadow/parallel.h"
#include "mshadow/philox.h"
#include "mshadow/tensor_container.h"
#include "mshadow/tensor_core.h"
#include "mshadow/tensor_cpu-inl.h"

namespace mshadow {

template <typename Device, typename DType MSHADOW_DEFAULT_DTYPE>
class Random;

// What one element is made of its Philox block, the same code on both devices.
namespace sampling {

// Uniform [0, 1) at DType's precision: 24 bits for float and narrower, 53 for double.
template <typename DType>
MSHADOW_XINLINE double Unit(const PhiloxBlock& bits) {
  if constexpr (sizeof(DType) <= 4) {
    return UnitFloat(bits.w[0]);
  } else {
    return UnitDouble(bits.w[0], bits.w[1]);
  }
}

template <typename DType>
struct UniformDraw {
  double low, span;
  MSHADOW_XINLINE DType operator()(const PhiloxBlock& bits) const {
    return static_cast<DType>(low + span * Unit<DType>(bits));
  }
};

// Box-Muller on two 53-bit uniforms.
template <typename DType>
struct GaussianDraw {
  double mean, deviation;
  MSHADOW_XINLINE DType operator()(const PhiloxBlock& bits) const {
    const double u1 = 1.0 - UnitDouble(bits.w[0], bits.w[1]);  // (0, 1]: log is finite
    const double u2 = UnitDouble(bits.w[2], bits.w[3]);
    const double normal = ::sqrt(-2.0 * ::log(u1)) * ::cos(6.283185307179586 * u2);
    return static_cast<DType>(mean + deviation * normal);
  }
};

template <typename DType>
struct BernoulliDraw {
  double probability;
  MSHADOW_XINLINE DType operator()(const PhiloxBlock& bits) const {
    return DType(UnitDouble(bits.w[0], bits.w[1]) < probability ? 1 : 0);
  }
};

// Each distribution's draw from its parameters, checked the same way on both devices.
template <typename DType>
UniformDraw<DType> MakeUniform(DType a, DType b) {
  const double low = static_cast<double>(a), span = static_cast<double>(b) - low;
  CHECK(span >= 0) << "SampleUniform: the lower bound " << a << " exceeds the upper " << b;
  return {low, span};
}
template <typename DType>
GaussianDraw<DType> MakeGaussian(DType mu, DType sigma) {
  CHECK(static_cast<double>(sigma) >= 0)
      << "SampleGaussian: sigma must not be negative; got " << sigma;
  return {static_cast<double>(mu), static_cast<double>(sigma)};
}
template <typename DType>
BernoulliDraw<DType> MakeBernoulli(DType p) {
  const double probability = static_cast<double>(p);
  CHECK(probability >= 0 && probability <= 1) << "SampleBernoulli: p must be in [0, 1]; got " << p;
  return {probability};
}

}  // namespace sampling

template <typename DType>
class Random<cpu, DType> {
 public:
  explicit Random(int seed) { Seed(seed); }

  // Restarts the sequence: the same seed gives the same samples again.
  void Seed(int seed) {
    key_ = PhiloxKeyFromSeed(static_cast<uint64_t>(static_cast<int64_t>(seed)));
    next_ = 0;
    engine_.seed(static_cast<std::mt19937::result_type>(seed));
  }
  // CPU sampling needs no stream; kept for code written for both devices.
  void set_stream(Stream<cpu>* /*stream*/) {}

  // mshadow's host-side generator (std::mt19937, seeded by Seed) for code that draws its own
  // numbers; the Sample functions do not use it.
  std::mt19937& GetRndEngine() { return engine_; }
  unsigned GetRandInt() { return static_cast<unsigned>(engine_()); }

  // Uniform on [a, b).
  template <int dim>
  void SampleUniform(Tensor<cpu, dim, DType>* dst, DType a = 0, DType b = 1) {
    Fill(dst, sampling::MakeUniform(a, b));
  }

  // Normal with mean mu and standard deviation sigma (Box-Muller).
  template <int dim>
  void SampleGaussian(Tensor<cpu, dim, DType>* dst, DType mu = 0, DType sigma = 1) {
    Fill(dst, sampling::MakeGaussian(mu, sigma));
  }

  // 1 with probability p, 0 otherwise.
  template <int dim>
  void SampleBernoulli(Tensor<cpu, dim, DType>* dst, DType p) {
    Fill(dst, sampling::MakeBernoulli(p));
  }

  // The same draws as expressions over an internal buffer, valid until the next call.
  template <int dim>
  expr::ReshapeExp<Tensor<cpu, 1, DType>, DType, dim, 1> uniform(Shape<dim> shape) {
    SampleUniform(Buffer(shape.Size()));
    return expr::reshape(buffer_view_, shape);
  }
  template <int dim>
  expr::ReshapeExp<Tensor<cpu, 1, DType>, DType, dim, 1> gaussian(Shape<dim> shape) {
    SampleGaussian(Buffer(shape.Size()));
    return expr::reshape(buffer_view_, shape);
  }

 private:
  // dst's element i (in row-major order, whatever dst's stride) = draw(block next_ + i).
  template <int dim, typename Draw>
  void Fill(Tensor<cpu, dim, DType>* dst, Draw draw) {
    const Tensor<cpu, 2, DType> rows = dst->FlatTo2D();
    const index_t height = rows.size(0), width = rows.size(1);
    const uint64_t first = next_;
    const PhiloxKey key = key_;
    ParallelFor(height, ThreadsFor(height * width, height), [&](index_t y) {
      DType* row = rows.dptr_ + y * rows.stride_;
      const uint64_t base = first + static_cast<uint64_t>(y * width);
      for (index_t x = 0; x < width; ++x) row[x] = draw(Philox4x32(key, base + x));
    });
    next_ += static_cast<uint64_t>(height * width);
  }

  // The first `size` elements of the buffer (grown as needed), which the expressions read.
  Tensor<cpu, 1, DType>* Buffer(index_t size) {
    if (buffer_.shape_[0] < size) buffer_.Resize(Shape1(size));
    buffer_view_ = Tensor<cpu, 1, DType>(buffer_.dptr_, Shape1(size));
    return &buffer_view_;
  }

  PhiloxKey key_{};
  uint64_t next_ = 0;  // the Philox counter of the next element drawn
  std::mt19937 engine_;
  TensorContainer<cpu, 1, DType> buffer_{Shape1(0)};
  Tensor<cpu, 1, DType> buffer_view_;
};

}  // namespace mshadow

#endif  // MSHADOW_RANDOM_H_
