// Random<gpu> against Random<cpu> with the same seed: the same tensors, whatever the rows'
// pitch, call after call. Skips without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "dmlc/testing/error_message.h"
#include "mshadow/tensor.h"
#include "tools/cuda/gpu_test.h"

namespace mshadow {
namespace {

class RandomGpuTest : public gpu_testing::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    InitTensorEngine<gpu>(0);
    stream_ = NewStream<gpu>();
  }
  void TearDown() override {
    if (stream_ != nullptr) DeleteStream(stream_);
  }

  // The device tensor's values on the host.
  template <int dim, typename DType>
  TensorContainer<cpu, dim, DType> ToCpu(const Tensor<gpu, dim, DType>& dev) {
    TensorContainer<cpu, dim, DType> host(dev.shape_);
    Copy(static_cast<Tensor<cpu, dim, DType>&>(host), dev, stream_);
    stream_->Wait();
    return host;
  }

  // |cpu - gpu| <= tolerance * (1 + |cpu|) everywhere; tolerance 0 asks for the same bits.
  template <int dim, typename DType>
  static void ExpectSame(const Tensor<cpu, dim, DType>& cpu_values,
                         const Tensor<cpu, dim, DType>& gpu_values, double tolerance) {
    ASSERT_EQ(cpu_values.shape_, gpu_values.shape_);
    const Tensor<cpu, 2, DType> e = cpu_values.FlatTo2D(), a = gpu_values.FlatTo2D();
    for (index_t y = 0; y < e.size(0); ++y) {
      for (index_t x = 0; x < e.size(1); ++x) {
        if (tolerance == 0) {
          ASSERT_EQ(std::memcmp(&e[y][x], &a[y][x], sizeof(DType)), 0)
              << "at (" << y << ", " << x << "): cpu " << e[y][x] << ", gpu " << a[y][x];
        } else {
          ASSERT_NEAR(e[y][x], a[y][x], tolerance * (1.0 + std::fabs(e[y][x])))
              << "at (" << y << ", " << x << ")";
        }
      }
    }
  }

  Stream<gpu>* stream_ = nullptr;
};

// Rows of 101 elements: the device tensor is pitched (stride > width), the host one not.
const Shape<2> kShape = Shape2(37, 101);

TEST_F(RandomGpuTest, UniformIsTheCpusBitForBitCallAfterCall) {
  Random<cpu, float> on_cpu(7);
  Random<gpu, float> on_gpu(7);
  on_gpu.set_stream(stream_);
  TensorContainer<cpu, 2, float> expected(kShape);
  TensorContainer<gpu, 2, float> sampled(kShape);
  sampled.set_stream(stream_);
  ASSERT_GT(sampled.stride_, sampled.size(1));
  for (int call = 0; call < 3; ++call) {  // each call continues the sequence
    on_cpu.SampleUniform(&expected, -2.0f, 3.0f);
    on_gpu.SampleUniform(&sampled, -2.0f, 3.0f);
    ExpectSame(expected, ToCpu(sampled), 0);
  }
}

TEST_F(RandomGpuTest, BernoulliIsTheCpusBitForBit) {
  Random<cpu, double> on_cpu(-3);
  Random<gpu, double> on_gpu(-3);
  on_gpu.set_stream(stream_);
  TensorContainer<cpu, 3, double> expected(Shape3(4, 9, 65));
  TensorContainer<gpu, 3, double> sampled(Shape3(4, 9, 65));
  on_cpu.SampleBernoulli(&expected, 0.3);
  on_gpu.SampleBernoulli(&sampled, 0.3);
  ExpectSame(expected, ToCpu(sampled), 0);
}

TEST_F(RandomGpuTest, GaussianMatchesTheCpuToTheDevicesLogAndCos) {
  Random<cpu, double> on_cpu(11);
  Random<gpu, double> on_gpu(11);
  on_gpu.set_stream(stream_);
  TensorContainer<cpu, 2, double> expected(kShape);
  TensorContainer<gpu, 2, double> sampled(kShape);
  on_cpu.SampleGaussian(&expected, 1.0, 0.5);
  on_gpu.SampleGaussian(&sampled, 1.0, 0.5);
  ExpectSame(expected, ToCpu(sampled), 1e-13);

  Random<cpu, float> cpu_float(11);
  Random<gpu, float> gpu_float(11);
  gpu_float.set_stream(stream_);
  TensorContainer<cpu, 2, float> expected_float(kShape);
  TensorContainer<gpu, 2, float> sampled_float(kShape);
  cpu_float.SampleGaussian(&expected_float, 0.0f, 2.0f);
  gpu_float.SampleGaussian(&sampled_float, 0.0f, 2.0f);
  ExpectSame(expected_float, ToCpu(sampled_float), 1e-6);
}

TEST_F(RandomGpuTest, SeedRestartsTheSequence) {
  Random<gpu, float> rnd(5);
  rnd.set_stream(stream_);
  TensorContainer<gpu, 2, float> first(kShape), again(kShape);
  rnd.SampleUniform(&first);
  rnd.SampleUniform(&again);  // the sequence moved on
  const auto moved_on = ToCpu(again);
  rnd.Seed(5);
  rnd.SampleUniform(&again);
  ExpectSame(ToCpu(first), ToCpu(again), 0);
  EXPECT_NE(moved_on[0][0], ToCpu(again)[0][0]);
}

TEST_F(RandomGpuTest, ExpressionsReadTheSameDraws) {
  Random<cpu, float> on_cpu(9);
  Random<gpu, float> on_gpu(9);
  on_gpu.set_stream(stream_);
  TensorContainer<cpu, 2, float> expected(kShape);
  TensorContainer<gpu, 2, float> evaluated(kShape);
  evaluated.set_stream(stream_);
  expected = on_cpu.uniform(kShape) * 2.0f;
  evaluated = on_gpu.uniform(kShape) * 2.0f;
  ExpectSame(expected, ToCpu(evaluated), 0);
  expected = on_cpu.gaussian(kShape) + 1.0f;
  evaluated = on_gpu.gaussian(kShape) + 1.0f;
  ExpectSame(expected, ToCpu(evaluated), 1e-6);
}

TEST_F(RandomGpuTest, BadParametersAreErrorsBeforeAnyKernel) {
  Random<gpu, float> rnd(1);
  TensorContainer<gpu, 2, float> t(kShape);
  using dmlc::testing::ErrorMessageOf;
  using ::testing::HasSubstr;
  EXPECT_THAT(ErrorMessageOf([&] { rnd.SampleUniform(&t, 2.0f, 1.0f); }),
              HasSubstr("the lower bound 2 exceeds the upper 1"));
  EXPECT_THAT(ErrorMessageOf([&] { rnd.SampleGaussian(&t, 0.0f, -1.0f); }),
              HasSubstr("sigma must not be negative; got -1"));
  EXPECT_THAT(ErrorMessageOf([&] { rnd.SampleBernoulli(&t, 1.5f); }),
              HasSubstr("p must be in [0, 1]; got 1.5"));
}

}  // namespace
}  // namespace mshadow
