// mshadow's guide on user-defined operators, as a test.
#include <gtest/gtest.h>

#include <cmath>

#include "mshadow/tensor.h"

using namespace mshadow;        // NOLINT(build/namespaces)
using namespace mshadow::expr;  // NOLINT(build/namespaces)

// A unary operator: the logistic function.
struct sigmoid {
  MSHADOW_XINLINE static float Map(float a) { return 1.0f / (1.0f + std::exp(-a)); }
};
// A templated binary operator: usable for every element type.
struct maxop {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a, DType b) { return a > b ? a : b; }
};
// Its gradient with respect to the first argument.
struct maxop_grad {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a, DType b) { return a > b ? DType(1) : DType(0); }
};
// A ternary operator: linear interpolation.
struct lerp {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a, DType b, DType t) { return a + (b - a) * t; }
};

TEST(GuideUserOpTest, UnaryBinaryTernary) {
  TensorContainer<cpu, 2> x(Shape2(2, 5)), y(Shape2(2, 5)), out(Shape2(2, 5));
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 5; ++j) {
      x[i][j] = static_cast<float>(j) - 2.0f;
      y[i][j] = static_cast<float>(i) - 0.5f;
    }
  out = F<sigmoid>(x);
  EXPECT_FLOAT_EQ(out[0][2], 0.5f);
  EXPECT_FLOAT_EQ(out[1][4], 1.0f / (1.0f + std::exp(-2.0f)));

  out = F<maxop>(x, y) * 2.0f;
  EXPECT_EQ(out[0][0], -1.0f);  // max(-2, -0.5) * 2
  EXPECT_EQ(out[1][4], 4.0f);   // max(2, 0.5) * 2
  out = F<maxop_grad>(x, y);
  EXPECT_EQ(out[0][1], 0.0f);
  EXPECT_EQ(out[0][3], 1.0f);

  out = F<lerp>(x, y, scalar(0.25f));
  EXPECT_FLOAT_EQ(out[1][0], -2.0f + (0.5f + 2.0f) * 0.25f);

  TensorContainer<cpu, 2, double> xd(Shape2(1, 3), 1.0), yd(Shape2(1, 3), 3.0);
  xd = F<maxop>(xd, yd) + F<maxop>(yd, 0.0);
  EXPECT_EQ(xd[0][2], 6.0);
}
