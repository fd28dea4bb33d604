// Every dot form against a double-precision naive reference, on non-square sizes that are not
// multiples of 8, with padded and strided operands.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "mshadow/tensor.h"

namespace mshadow {
namespace {

using ::testing::HasSubstr;
using namespace mshadow::expr;  // NOLINT(build/namespaces)

template <int dim, typename DType>
void FillRandom(Tensor<cpu, dim, DType> t, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Tensor<cpu, 2, DType> m = t.FlatTo2D();
  for (index_t y = 0; y < m.size(0); ++y)
    for (index_t x = 0; x < m.size(1); ++x) m[y][x] = static_cast<DType>(dist(gen));
}

// Element (i, j) of op(m).
template <typename DType>
double At(const Tensor<cpu, 2, DType>& m, bool trans, index_t i, index_t j) {
  return trans ? m[j][i] : m[i][j];
}

template <typename DType>
std::vector<double> NaiveProduct(const Tensor<cpu, 2, DType>& a, bool ta,
                                 const Tensor<cpu, 2, DType>& b, bool tb) {
  const index_t m = ta ? a.size(1) : a.size(0), k = ta ? a.size(0) : a.size(1);
  const index_t n = tb ? b.size(0) : b.size(1);
  std::vector<double> c(m * n, 0.0);
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j)
      for (index_t p = 0; p < k; ++p) c[i * n + j] += At(a, ta, i, p) * At(b, tb, p, j);
  return c;
}

template <typename DType>
double Tolerance() {
  return sizeof(DType) == 4 ? 1e-4 : 1e-11;
}

template <typename DType>
void ExpectNear(const Tensor<cpu, 2, DType>& got, const std::vector<double>& want) {
  for (index_t i = 0; i < got.size(0); ++i)
    for (index_t j = 0; j < got.size(1); ++j)
      ASSERT_NEAR(got[i][j], want[i * got.size(1) + j], Tolerance<DType>()) << i << "," << j;
}

template <typename DType>
class DotTest : public ::testing::Test {};
using BlasTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DotTest, BlasTypes);

TYPED_TEST(DotTest, GemmAllTransposesScaleAndSavers) {
  using DType = TypeParam;
  const index_t k = 7, n = 19;
  for (const index_t m : {index_t{13}, index_t{1}}) {  // one row takes the gemv path
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        // Padded allocations make stride_ differ from the width for some operands.
        TensorContainer<cpu, 2, DType> a(ta ? Shape2(k, m) : Shape2(m, k), DType(0), true);
        TensorContainer<cpu, 2, DType> b(tb ? Shape2(n, k) : Shape2(k, n), DType(0), true);
        TensorContainer<cpu, 2, DType> c(Shape2(m, n), DType(0.5), true);
        FillRandom<2, DType>(a, 1);
        FillRandom<2, DType>(b, 2);
        std::vector<double> ref = NaiveProduct<DType>(a, ta, b, tb);
        if (!ta && !tb) c = dot(a, b);
        if (ta && !tb) c = dot(a.T(), b);
        if (!ta && tb) c = dot(a, b.T());
        if (ta && tb) c = dot(a.T(), b.T());
        ExpectNear<DType>(c, ref);
        // c += 2 * product, then c -= product * 0.5: c = 2.5 * product
        if (!ta && !tb) {
          c += dot(a, b) * DType(2);
          c -= DType(0.5) * dot(a, b);
          for (double& v : ref) v *= 2.5;
          ExpectNear<DType>(c, ref);
        }
      }
    }
  }
}

TYPED_TEST(DotTest, StridedViewsUseLeadingDimensions) {
  using DType = TypeParam;
  // Operands are column windows of wider buffers.
  std::vector<DType> abuf(9 * 20), bbuf(11 * 30), cbuf(9 * 25, DType(-7));
  Tensor<cpu, 2, DType> a(abuf.data() + 3, Shape2(9, 11), 20, nullptr);
  Tensor<cpu, 2, DType> b(bbuf.data() + 5, Shape2(11, 6), 30, nullptr);
  Tensor<cpu, 2, DType> c(cbuf.data() + 2, Shape2(9, 6), 25, nullptr);
  FillRandom<2, DType>(a, 3);
  FillRandom<2, DType>(b, 4);
  c = dot(a, b);
  ExpectNear<DType>(c, NaiveProduct<DType>(a, false, b, false));
  for (index_t y = 0; y < 9; ++y) {  // columns outside the window are untouched
    EXPECT_EQ(cbuf[y * 25 + 0], DType(-7));
    EXPECT_EQ(cbuf[y * 25 + 8], DType(-7));
  }
}

TYPED_TEST(DotTest, VectorMatrixOuterAndVectorDot) {
  using DType = TypeParam;
  const index_t k = 11, n = 5;
  TensorContainer<cpu, 1, DType> x(Shape1(k)), y(Shape1(n)), yt(Shape1(n));
  TensorContainer<cpu, 2, DType> w(Shape2(k, n), DType(0), true), wt(Shape2(n, k));
  FillRandom<1, DType>(x, 5);
  FillRandom<2, DType>(w, 6);
  wt = w.T();
  y = dot(x, w);
  yt = dot(x, wt.T());
  for (index_t j = 0; j < n; ++j) {
    double ref = 0;
    for (index_t p = 0; p < k; ++p) ref += double(x[p]) * w[p][j];
    EXPECT_NEAR(y[j], ref, Tolerance<DType>());
    EXPECT_NEAR(yt[j], ref, Tolerance<DType>());
  }
  y += dot(x, w);
  EXPECT_NEAR(y[0], 2 * yt[0], 2 * Tolerance<DType>());

  TensorContainer<cpu, 1, DType> u(Shape1(k)), v(Shape1(n));
  FillRandom<1, DType>(u, 7);
  FillRandom<1, DType>(v, 8);
  TensorContainer<cpu, 2, DType> outer(Shape2(k, n), DType(9), true);
  outer = dot(u.T(), v);
  for (index_t i = 0; i < k; ++i)
    for (index_t j = 0; j < n; ++j)
      EXPECT_NEAR(outer[i][j], double(u[i]) * v[j], Tolerance<DType>());
  outer -= dot(u.T(), v) * DType(2);
  EXPECT_NEAR(outer[3][4], -double(u[3]) * v[4], Tolerance<DType>());

  TensorContainer<cpu, 1, DType> result(Shape1(1));
  VectorDot(result, u, u);
  double ref = 0;
  for (index_t i = 0; i < k; ++i) ref += double(u[i]) * u[i];
  EXPECT_NEAR(result[0], ref, Tolerance<DType>());
}

TYPED_TEST(DotTest, BatchDotAllTransposes) {
  using DType = TypeParam;
  const index_t batch = 3, m = 5, k = 9, n = 7;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      TensorContainer<cpu, 3, DType> a(ta ? Shape3(batch, k, m) : Shape3(batch, m, k));
      TensorContainer<cpu, 3, DType> b(tb ? Shape3(batch, n, k) : Shape3(batch, k, n));
      TensorContainer<cpu, 3, DType> c(Shape3(batch, m, n));
      FillRandom<3, DType>(a, 9);
      FillRandom<3, DType>(b, 10);
      if (!ta && !tb) c = batch_dot<false, false>(a, b);
      if (ta && !tb) c = batch_dot<true, false>(a, b);
      if (!ta && tb) c = batch_dot<false, true>(a, b);
      if (ta && tb) c = batch_dot<true, true>(a, b);
      for (index_t i = 0; i < batch; ++i) {
        ExpectNear<DType>(c[i], NaiveProduct<DType>(a[i], ta, b[i], tb));
      }
    }
  }
}

TEST(DotErrorTest, ShapeMismatchesAreErrorsNamingShapes) {
  TensorContainer<cpu, 2> a(Shape2(3, 4), 1.0f), b(Shape2(5, 6), 1.0f), c(Shape2(3, 6));
  try {
    c = dot(a, b);
    FAIL() << "expected dmlc::Error";
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("dot: shapes do not multiply: dst (3,6) = lhs (3,4) x rhs (5,6)"));
  }
  try {
    c = dot(a, b.T());
    FAIL() << "expected dmlc::Error";
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("rhs (5,6).T"));
  }
  TensorContainer<cpu, 3> x(Shape3(2, 3, 4)), y(Shape3(3, 4, 5)), z(Shape3(2, 3, 5));
  EXPECT_THROW((z = batch_dot<false, false>(x, y)), dmlc::Error);
  TensorContainer<cpu, 1> v(Shape1(3)), r(Shape1(1));
  TensorContainer<cpu, 1> w(Shape1(4));
  EXPECT_THROW(VectorDot(r, v, w), dmlc::Error);
}

TEST(DotEdgeTest, EmptyInnerDimensionGivesZeros) {
  TensorContainer<cpu, 2> a(Shape2(3, 0)), b(Shape2(0, 2)), c(Shape2(3, 2), 5.0f);
  c = dot(a, b);
  EXPECT_EQ(c[2][1], 0.0f);
}

}  // namespace
}  // namespace mshadow
