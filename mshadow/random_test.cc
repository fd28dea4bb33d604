// Random<cpu>: Philox4x32-10 against the published known-answer vectors, the same tensors
// for a seed on any thread count and any tensor stride, sample statistics, bad parameters.
#include "mshadow/random.h"

#include <cmath>

#include "dmlc/testing/error_message.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/tensor.h"

namespace mshadow {
namespace {

using ::testing::HasSubstr;

// Random123's kat_vectors for philox4x32_10 (counter words, key words, expected output).
TEST(PhiloxTest, KnownAnswers) {
  const PhiloxBlock zero = Philox4x32(PhiloxKey{0, 0}, 0, 0);
  EXPECT_EQ(zero.w[0], 0x6627e8d5u);
  EXPECT_EQ(zero.w[1], 0xe169c58du);
  EXPECT_EQ(zero.w[2], 0xbc57ac4cu);
  EXPECT_EQ(zero.w[3], 0x9b00dbd8u);
  const PhiloxBlock ones =
      Philox4x32(PhiloxKey{0xffffffffu, 0xffffffffu}, ~uint64_t{0}, ~uint64_t{0});
  EXPECT_EQ(ones.w[0], 0x408f276du);
  EXPECT_EQ(ones.w[1], 0x41c83b0eu);
  EXPECT_EQ(ones.w[2], 0xa20bc7c6u);
  EXPECT_EQ(ones.w[3], 0x6d5451fdu);
}

TEST(RandomTest, SameSeedSameTensorsOnAnyThreadCount) {
  TensorContainer<cpu, 2> a(Shape2(300, 200)), b(Shape2(300, 200));
  Random<cpu, float> rnd(7);
  rnd.SampleGaussian(&a, 1.0f, 2.0f);
  SetNumThreads(1);
  rnd.Seed(7);
  rnd.SampleGaussian(&b, 1.0f, 2.0f);
  SetNumThreads(0);
  for (index_t y = 0; y < a.size(0); ++y)
    for (index_t x = 0; x < a.size(1); ++x) ASSERT_EQ(a[y][x], b[y][x]) << y << "," << x;
  // The next draw continues the sequence: different values.
  rnd.SampleGaussian(&b, 1.0f, 2.0f);
  EXPECT_NE(a.dptr_[0], b.dptr_[0]);
  // Another seed, other values.
  Random<cpu, float> other(8);
  other.SampleGaussian(&b, 1.0f, 2.0f);
  EXPECT_NE(a.dptr_[0], b.dptr_[0]);
}

TEST(RandomTest, StridedTargetsGetTheSameValuesInRowMajorOrder) {
  TensorContainer<cpu, 2> dense(Shape2(5, 7));
  float padded_memory[5 * 16];
  Tensor<cpu, 2> padded(padded_memory, Shape2(5, 7), /*stride=*/16, nullptr);
  Random<cpu, float> rnd(3);
  rnd.SampleUniform(&dense, -2.0f, 3.0f);
  rnd.Seed(3);
  rnd.SampleUniform(&padded, -2.0f, 3.0f);
  for (index_t y = 0; y < 5; ++y)
    for (index_t x = 0; x < 7; ++x) EXPECT_EQ(padded[y][x], dense[y][x]);
}

template <typename DType>
void ExpectMoments(const Tensor<cpu, 1, DType>& t, double mean, double stddev, double low,
                   double high) {
  double sum = 0, squares = 0;
  for (index_t i = 0; i < t.size(0); ++i) {
    const double v = t[i];
    ASSERT_GE(v, low);
    ASSERT_LT(v, high);
    sum += v;
    squares += v * v;
  }
  const double n = static_cast<double>(t.size(0));
  const double m = sum / n;
  // Five standard errors: a false failure has odds below one in a million.
  EXPECT_NEAR(m, mean, 5 * stddev / std::sqrt(n));
  EXPECT_NEAR(std::sqrt(squares / n - m * m), stddev, 5 * stddev / std::sqrt(2 * n));
}

TEST(RandomTest, DistributionsHaveTheirMoments) {
  TensorContainer<cpu, 1> f(Shape1(200000));
  Random<cpu, float> rnd(11);
  rnd.SampleUniform(&f, -1.0f, 3.0f);
  ExpectMoments<float>(f, 1.0, 4.0 / std::sqrt(12.0), -1.0, 3.0);
  rnd.SampleGaussian(&f, -2.0f, 0.5f);
  ExpectMoments<float>(f, -2.0, 0.5, -10.0, 10.0);
  rnd.SampleBernoulli(&f, 0.25f);
  ExpectMoments<float>(f, 0.25, std::sqrt(0.25 * 0.75), 0.0, 1.5);
  TensorContainer<cpu, 1, double> d(Shape1(200000));
  Random<cpu, double> rnd64(11);
  rnd64.SampleGaussian(&d, 0.0, 1.0);
  ExpectMoments<double>(d, 0.0, 1.0, -10.0, 10.0);
}

TEST(RandomTest, ExpressionsAndMshadowsEngine) {
  Random<cpu, float> rnd(5);
  TensorContainer<cpu, 2> noise(Shape2(4, 6)), direct(Shape2(4, 6));
  noise = rnd.uniform(noise.shape_) * 2.0f - 1.0f;
  rnd.Seed(5);
  rnd.SampleUniform(&direct);
  for (index_t y = 0; y < 4; ++y)
    for (index_t x = 0; x < 6; ++x) EXPECT_FLOAT_EQ(noise[y][x], direct[y][x] * 2 - 1);
  rnd.SampleGaussian(&noise, 0, 0.01f);  // mixed argument types, as mshadow's guide writes
  EXPECT_LT(std::fabs(noise.dptr_[0]), 0.1f);
  noise = rnd.gaussian(noise.shape_);
  EXPECT_NE(noise.dptr_[0], noise.dptr_[1]);
  const unsigned first = rnd.GetRandInt();
  rnd.Seed(5);
  EXPECT_EQ(rnd.GetRandInt(), first) << "GetRndEngine is reseeded too";
}

TEST(RandomTest, BadParametersAreErrors) {
  TensorContainer<cpu, 1> t(Shape1(4));
  Random<cpu, float> rnd(0);
  EXPECT_THAT(dmlc::testing::ErrorMessageOf([&] { rnd.SampleUniform(&t, 2.0f, 1.0f); }),
              HasSubstr("the lower bound 2 exceeds the upper 1"));
  EXPECT_THAT(dmlc::testing::ErrorMessageOf([&] { rnd.SampleGaussian(&t, 0.0f, -1.0f); }),
              HasSubstr("sigma must not be negative"));
  EXPECT_THAT(dmlc::testing::ErrorMessageOf([&] { rnd.SampleBernoulli(&t, 1.5f); }),
              HasSubstr("p must be in [0, 1]; got 1.5"));
}

}  // namespace
}  // namespace mshadow
