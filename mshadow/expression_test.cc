// Elementwise expressions, typecast, transpose, user operators and shape errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "mshadow/tensor.h"

namespace mshadow {
namespace {

using ::testing::HasSubstr;
using namespace mshadow::expr;  // NOLINT(build/namespaces): how mshadow code is written

// Fills t[y][x] = f(y, x).
template <int dim, typename DType, typename Fn>
void Fill(Tensor<cpu, dim, DType> t, Fn f) {
  Tensor<cpu, 2, DType> m = t.FlatTo2D();
  for (index_t y = 0; y < m.size(0); ++y)
    for (index_t x = 0; x < m.size(1); ++x) m[y][x] = f(y, x);
}

struct square_plus {  // binary user operator
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a, DType b) { return a * a + b; }
};
struct clip3 {  // ternary user operator
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType v, DType lo, DType hi) {
    return v < lo ? lo : (v > hi ? hi : v);
  }
};
struct twice {  // unary user operator
  MSHADOW_XINLINE static float Map(float a) { return 2.0f * a; }
};

TEST(ExpressionTest, ArithmeticOnOddShapes) {
  for (index_t rows : {1, 3, 7}) {
    for (index_t cols : {1, 5, 13, 33}) {
      TensorContainer<cpu, 2> a(Shape2(rows, cols)), b(Shape2(rows, cols)), c(Shape2(rows, cols));
      Fill(a, [](index_t y, index_t x) { return 1.0f + y + 0.5f * x; });
      Fill(b, [](index_t y, index_t x) { return 2.0f - y + 0.25f * x; });
      c = a * 2.0f + b;
      for (index_t y = 0; y < rows; ++y)
        for (index_t x = 0; x < cols; ++x) ASSERT_FLOAT_EQ(c[y][x], a[y][x] * 2 + b[y][x]);
      c = 1.0f - a / b * scalar(3.0f);
      for (index_t y = 0; y < rows; ++y)
        for (index_t x = 0; x < cols; ++x)
          ASSERT_FLOAT_EQ(c[y][x], 1.0f - a[y][x] / b[y][x] * 3.0f);
      c = 2.0f * a - b + 1;
      EXPECT_FLOAT_EQ(c[rows - 1][cols - 1], 2 * a[rows - 1][cols - 1] - b[rows - 1][cols - 1] + 1);
    }
  }
}

TEST(ExpressionTest, EverySaver) {
  TensorContainer<cpu, 2> a(Shape2(3, 5), 4.0f), b(Shape2(3, 5), 2.0f);
  a += b;
  EXPECT_EQ(a[2][4], 6.0f);
  a -= b * 0.5f;
  EXPECT_EQ(a[0][0], 5.0f);
  a *= b;
  EXPECT_EQ(a[1][2], 10.0f);
  a /= b + 2.0f;
  EXPECT_EQ(a[1][3], 2.5f);
  a += 1.0f;
  a -= 0.5f;
  a *= 4.0f;
  a /= 2.0f;
  EXPECT_EQ(a[2][2], 6.0f);
}

TEST(ExpressionTest, StridedViewsReadAndWriteOnlyTheirColumns) {
  // A 4x6 buffer viewed as its 4x3 middle columns.
  std::vector<float> buffer(24, -1.0f);
  Tensor<cpu, 2> view(buffer.data() + 2, Shape2(4, 3), 6, nullptr);
  TensorContainer<cpu, 2> src(Shape2(4, 3));
  Fill(src, [](index_t y, index_t x) { return static_cast<float>(10 * y + x); });
  view = src * 2.0f;
  for (index_t y = 0; y < 4; ++y) {
    for (index_t x = 0; x < 6; ++x) {
      float expected = (x >= 2 && x < 5) ? 2.0f * (10 * y + x - 2) : -1.0f;
      EXPECT_EQ(buffer[y * 6 + x], expected) << y << "," << x;
    }
  }
  TensorContainer<cpu, 2> back(Shape2(4, 3));
  back = view + 1.0f;
  EXPECT_EQ(back[3][2], 2.0f * 32 + 1);
}

TEST(ExpressionTest, UserDefinedOperators) {
  TensorContainer<cpu, 2> a(Shape2(2, 7)), b(Shape2(2, 7)), c(Shape2(2, 7));
  Fill(a, [](index_t y, index_t x) { return static_cast<float>(x) - 3 + y; });
  Fill(b, [](index_t, index_t x) { return static_cast<float>(x); });
  c = F<square_plus>(a, b);
  EXPECT_EQ(c[1][6], 4.0f * 4.0f + 6.0f);
  c = F<clip3>(a, scalar(-1.0f), scalar(2.0f));
  EXPECT_EQ(c[0][0], -1.0f);
  EXPECT_EQ(c[0][4], 1.0f);
  EXPECT_EQ(c[1][6], 2.0f);
  c = F<twice>(a) + F<op::identity>(b);
  EXPECT_EQ(c[0][1], 2.0f * -2.0f + 1.0f);
  c = F<op::plus>(a, 1.0f);
  EXPECT_EQ(c[0][3], 1.0f);
  c = MakeExp<op::minus>(b, a);
  EXPECT_EQ(c[0][0], 3.0f);
}

TEST(ExpressionTest, SeedTcastExample) {
  TensorContainer<cpu, 2, int> ints(Shape2(2, 3));
  Fill(ints, [](index_t y, index_t x) { return static_cast<int>(y * 3 + x); });
  TensorContainer<cpu, 2, float> floats(Shape2(2, 3));
  floats = tcast<float>(ints) * 0.5f;
  EXPECT_EQ(floats[1][2], 2.5f);
  TensorContainer<cpu, 2, int> back(Shape2(2, 3));
  back = tcast<int>(floats * 2.0f + 0.25f);
  EXPECT_EQ(back[1][1], 4);
}

TEST(ExpressionTest, TransposeAssignment) {
  TensorContainer<cpu, 2> a(Shape2(3, 5)), t(Shape2(5, 3));
  Fill(a, [](index_t y, index_t x) { return static_cast<float>(y * 5 + x); });
  t = a.T();
  for (index_t y = 0; y < 5; ++y)
    for (index_t x = 0; x < 3; ++x) EXPECT_EQ(t[y][x], a[x][y]);
  TensorContainer<cpu, 2> back(Shape2(3, 5));
  back = t.T() * 2.0f + a;
  EXPECT_EQ(back[2][4], 3 * a[2][4]);
  try {
    back = a.T();
    FAIL() << "expected dmlc::Error";
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("(5,3) vs. (3,5)"));
  }
}

TEST(ExpressionTest, ShapeMismatchNamesBothShapes) {
  TensorContainer<cpu, 2> a(Shape2(2, 3), 1.0f), b(Shape2(3, 2), 1.0f), c(Shape2(2, 3));
  try {
    c = a + b;
    FAIL() << "expected dmlc::Error";
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("(2,3) vs. (3,2)"));
    EXPECT_THAT(e.what(), HasSubstr("BinaryMapExp: shapes of operands are not the same"));
  }
  TensorContainer<cpu, 2> d(Shape2(4, 3));
  try {
    d = a * 2.0f;
    FAIL() << "expected dmlc::Error";
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("(2,3) vs. (4,3)"));
    EXPECT_THAT(e.what(), HasSubstr("Assignment"));
  }
  try {
    c = F<clip3>(a, b, a);
    FAIL() << "expected dmlc::Error";
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("TernaryMapExp"));
  }
}

TEST(ExpressionTest, MakeTensorExpReshapeInsideExpressions) {
  TensorContainer<cpu, 2> m(Shape2(6, 4));
  Fill(m, [](index_t y, index_t x) { return static_cast<float>(y * 4 + x); });
  TensorContainer<cpu, 3> t(Shape3(2, 3, 4));
  t = reshape(m, t.shape_) * 2.0f + 1.0f;
  EXPECT_EQ(t[1][2][3], 2.0f * 23 + 1);
  TensorContainer<cpu, 2> m2(Shape2(4, 6));
  m2 = reshape(t, m2.shape_) + reshape(m * 1.0f, m2.shape_);
  EXPECT_EQ(m2[3][5], (2.0f * 23 + 1) + 23);
  EXPECT_THROW(reshape(m, Shape2(5, 5)), dmlc::Error);
}

TEST(ExpressionTest, ThreeDimensionalAndOneDimensional) {
  TensorContainer<cpu, 3> a(Shape3(2, 3, 9), 1.0f), b(Shape3(2, 3, 9), 2.0f);
  a = a * b + scalar(0.5f);
  EXPECT_EQ(a[1][2][8], 2.5f);
  TensorContainer<cpu, 1> v(Shape1(17), 3.0f), w(Shape1(17), 1.0f);
  w = v / 3.0f + w;
  EXPECT_EQ(w[16], 2.0f);
}

TEST(ExpressionTest, TypeLatticeAndInfo) {
  using T2 = Tensor<cpu, 2, float>;
  static_assert(ExpInfo<T2>::kDim == 2, "");
  static_assert(ExpInfo<ScalarExp<float>>::kDim == 0, "");
  static_assert(ExpInfo<BinaryMapExp<op::plus, T2, ScalarExp<float>, float, 1>>::kDim == 2, "");
  static_assert(
      ExpInfo<BinaryMapExp<op::plus, T2, Tensor<cpu, 3, float>, float, 1>>::kDim == -1, "");
  static_assert(ExpInfo<BinaryMapExp<op::plus, T2, Tensor<gpu, 2, float>, float, 1>>::kDevMask == 0,
                "");
  static_assert(TypeCheck<cpu, 2, float, T2>::kMapPass, "");
  static_assert(!TypeCheck<gpu, 2, float, T2>::kMapPass, "");
  static_assert(TypeCheck<cpu, 1, float, T2>::kRedPass, "");
  static_assert(!TypeCheck<cpu, 2, float, T2>::kRedPass, "");
  static_assert(CombinedType<type::kRValue, type::kRValue>::kValue == type::kMapper, "");
  static_assert(CombinedType<type::kMapper, type::kChainer>::kValue == type::kChainer, "");
  Stream<cpu> s;
  TensorContainer<cpu, 2> t(Shape2(1, 1));
  t.set_stream(&s);
  EXPECT_EQ((StreamInfo<cpu, T2>::Get(t)), &s);
  EXPECT_EQ((StreamInfo<cpu, ScalarExp<float>>::Get(scalar(1.0f))), nullptr);
}

}  // namespace
}  // namespace mshadow
