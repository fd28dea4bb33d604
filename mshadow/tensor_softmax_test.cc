// Softmax/SoftmaxGrad on CPU tensors against their definitions, with bad labels.
#include "mshadow/tensor_softmax_cpu-inl.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "mshadow/tensor.h"

namespace mshadow {
namespace {

TEST(SoftmaxTest, RowsSumToOneAndMatchTheDefinition) {
  TensorContainer<cpu, 2> energy(Shape2(3, 4)), prob(Shape2(3, 4));
  for (index_t i = 0; i < 12; ++i) energy[i / 4][i % 4] = 100.0f * std::sin(i);  // large values
  Softmax(prob, energy);
  for (index_t y = 0; y < 3; ++y) {
    double denominator = 0;
    for (index_t x = 0; x < 4; ++x) denominator += std::exp(double(energy[y][x]) - 100.0);
    for (index_t x = 0; x < 4; ++x) {
      EXPECT_NEAR(prob[y][x], std::exp(double(energy[y][x]) - 100.0) / denominator, 1e-6);
    }
  }
}

TEST(SoftmaxTest, ThreeDimensionalIsOverTheMiddleAxis) {
  TensorContainer<cpu, 3> energy(Shape3(2, 5, 3)), prob(Shape3(2, 5, 3));
  for (index_t i = 0; i < energy.shape_.Size(); ++i)
    energy[i / 15][i / 3 % 5][i % 3] = std::cos(3.0f * i);
  Softmax(prob, energy);
  for (index_t n = 0; n < 2; ++n)
    for (index_t x = 0; x < 3; ++x) {
      double denominator = 0;
      for (index_t k = 0; k < 5; ++k) denominator += std::exp(double(energy[n][k][x]));
      for (index_t k = 0; k < 5; ++k) {
        EXPECT_NEAR(prob[n][k][x], std::exp(double(energy[n][k][x])) / denominator, 1e-6);
      }
    }
}

TEST(SoftmaxGradTest, SubtractsOneAtTheLabelIgnoresAndSmooths) {
  TensorContainer<cpu, 2> prob(Shape2(4, 3), 0.25f), grad(Shape2(4, 3));
  float labels[4] = {2, 0, 7, std::numeric_limits<float>::quiet_NaN()};  // 7, NaN: no class
  Tensor<cpu, 1> label(labels, Shape1(4));
  SoftmaxGrad(grad, prob, label);
  EXPECT_EQ(grad[0][2], -0.75f);
  EXPECT_EQ(grad[0][0], 0.25f);
  EXPECT_EQ(grad[1][0], -0.75f);
  for (index_t x = 0; x < 3; ++x) {
    EXPECT_EQ(grad[2][x], 0.25f) << "an out-of-range label touches no class";
    EXPECT_EQ(grad[3][x], 0.25f) << "a NaN label touches no class";
  }
  SoftmaxGrad(grad, prob, label, 0.0f);  // rows labelled 0 are ignored
  EXPECT_EQ(grad[1][0], 0.0f);
  EXPECT_EQ(grad[1][1], 0.0f);
  EXPECT_EQ(grad[0][2], -0.75f);
  SmoothSoftmaxGrad(grad, prob, label, 0.2f);
  EXPECT_FLOAT_EQ(grad[0][2], 0.25f - 1.0f + 0.2f);
  EXPECT_FLOAT_EQ(grad[0][0], 0.25f - 0.1f);
}

TEST(SoftmaxGradTest, ThreeDimensionalLabelsPerPosition) {
  TensorContainer<cpu, 3> prob(Shape3(2, 3, 2), 0.5f), grad(Shape3(2, 3, 2));
  TensorContainer<cpu, 2> label(Shape2(2, 2));
  label[0][0] = 1;
  label[0][1] = 2;
  label[1][0] = 0;
  label[1][1] = 1;
  SoftmaxGrad(grad, prob, label);
  for (index_t n = 0; n < 2; ++n)
    for (index_t k = 0; k < 3; ++k)
      for (index_t x = 0; x < 2; ++x) {
        EXPECT_EQ(grad[n][k][x], k == static_cast<index_t>(label[n][x]) ? -0.5f : 0.5f);
      }
  SoftmaxGrad(grad, prob, label, 1.0f);
  EXPECT_EQ(grad[0][0][0], 0.0f) << "position labelled 1 is ignored";
  EXPECT_EQ(grad[0][2][1], -0.5f);
}

}  // namespace
}  // namespace mshadow
