// The eigendecomposition and the LQ factorization by what defines them (in float64 and
// float32): the factors reproduce A, the orthonormal factor is orthonormal, the triangular one
// triangular, the eigenvalues ascend and every eigenvector's sign follows MXNet's rule (which
// with distinct eigenvalues leaves one answer); write modes; gradients (symmetric directions
// for syevd); repeated eigenvalues; the shapes refused.
#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/dense_matrix.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using testing::Dense;
using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

void ExpectMatrixNear(const Dense& expected, const Dense& actual, double tolerance,
                      const std::string& what) {
  testing::ExpectClose(expected.v, actual.v, 0, tolerance, what);
}

TEST(LinalgOrthogonalTest, SyevdReproducesTheSymmetricMatrix) {
  const int n = 5, batch = 3;
  const OpCase c{"_linalg_syevd", {}, {InputSpec{TShape{batch, n, n}}}};
  for (const int type : {mshadow::kFloat64, mshadow::kFloat32}) {
    const double tolerance = type == mshadow::kFloat64 ? 1e-12 : 2e-6;
    const std::vector<CpuTensor> in = testing::MakeInputs(c, type);
    const std::vector<CpuTensor> out = testing::Forward(c, in);
    const auto as = testing::Matrices(testing::ToValues(in[0].blob()), n, n);
    const auto us = testing::Matrices(testing::ToValues(out[0].blob()), n, n);
    const auto ls = testing::Matrices(testing::ToValues(out[1].blob()), 1, n);
    for (int b = 0; b < batch; ++b) {
      Dense diagonal(n, n);
      for (int i = 0; i < n; ++i) {
        diagonal(i, i) = ls[b](0, i);
        if (i > 0) {
          EXPECT_LT(ls[b](0, i - 1), ls[b](0, i)) << "eigenvalues ascend";
        }
        int largest = 0;
        for (int j = 1; j < n; ++j) {
          if (std::fabs(us[b](i, j)) > std::fabs(us[b](i, largest))) largest = j;
        }
        EXPECT_GT(us[b](i, largest), 0) << "eigenvector " << i << "'s sign";
      }
      ExpectMatrixNear(as[b].SymmetricFromLower(), us[b].T() * diagonal * us[b], tolerance,
                       "U^T diag(L) U");
      ExpectMatrixNear(Dense::Identity(n), us[b] * us[b].T(), tolerance, "U U^T");
    }
  }
  testing::CheckWriteModes(c);
  testing::CheckSymmetricGradient(c);
}

TEST(LinalgOrthogonalTest, SyevdOfRepeatedEigenvaluesHasAFiniteGradient) {
  const OpCase c{
      "_linalg_syevd", {}, {InputSpec::WithValues(TShape{3, 3}, {2, 0, 0, 0, 2, 0, 0, 0, 5})}};
  const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
  EXPECT_EQ(testing::ToValues(testing::Forward(c, in)[1].blob()), (Values{2, 2, 5}));
  const Values grad =
      testing::ToValues(testing::Backward(c, in, {Values(9, 1.0), Values{1, 2, 3}})[0].blob());
  for (const double g : grad) EXPECT_TRUE(std::isfinite(g));
}

TEST(LinalgOrthogonalTest, GelqfIsAnLqFactorization) {
  const int m = 3, n = 5, batch = 2;
  const OpCase c{"_linalg_gelqf", {}, {InputSpec{TShape{batch, m, n}}}};
  for (const int type : {mshadow::kFloat64, mshadow::kFloat32}) {
    const double tolerance = type == mshadow::kFloat64 ? 1e-12 : 2e-6;
    const std::vector<CpuTensor> in = testing::MakeInputs(c, type);
    const std::vector<CpuTensor> out = testing::Forward(c, in);
    const auto as = testing::Matrices(testing::ToValues(in[0].blob()), m, n);
    const auto qs = testing::Matrices(testing::ToValues(out[0].blob()), m, n);
    const auto ls = testing::Matrices(testing::ToValues(out[1].blob()), m, m);
    for (int b = 0; b < batch; ++b) {
      EXPECT_EQ(ls[b].v, ls[b].Triangle(true).v) << "L is lower triangular";
      ExpectMatrixNear(as[b], ls[b] * qs[b], tolerance, "L Q");
      ExpectMatrixNear(Dense::Identity(m), qs[b] * qs[b].T(), tolerance, "Q Q^T");
    }
  }
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
  // A square matrix (Q square and orthogonal).
  const OpCase square{"_linalg_gelqf", {}, {testing::ParseInputSpec("(2,4,4)+2I")}};
  testing::CheckWriteModes(square);
  testing::CheckGradient(square);
}

// 260 rows: M's lower triangle by blocks (ops/triangle_product.h) and L^T dL by a triangular
// product, against MXNet's formula in float64, dA = L^-T (dQ + copyLTU(L^T dL - dQ Q^T) Q).
TEST(LinalgOrthogonalTest, LargeGelqfGradientByItsFormula) {
  const int m = 260, n = 300;
  const OpCase c{"_linalg_gelqf", {}, {InputSpec{TShape{m, n}}}};
  const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
  const std::vector<CpuTensor> out = testing::Forward(c, in);
  Values dq_values(m * n), dl_values(m * m);
  for (size_t i = 0; i < dq_values.size(); ++i) dq_values[i] = std::sin(0.37 * i);
  for (size_t i = 0; i < dl_values.size(); ++i) dl_values[i] = std::cos(0.53 * i);
  const Values da = testing::ToValues(testing::Backward(c, in, {dq_values, dl_values})[0].blob());
  const Dense q(m, n, testing::ToValues(out[0].blob()).data()),
      l(m, m, testing::ToValues(out[1].blob()).data()), dq(m, n, dq_values.data()),
      dl(m, m, dl_values.data());
  Dense core = l.T() * dl;
  const Dense dq_qt = dq * q.T();
  for (size_t i = 0; i < core.v.size(); ++i) core.v[i] -= dq_qt.v[i];
  Dense inner = core.SymmetricFromLower() * q;
  for (size_t i = 0; i < inner.v.size(); ++i) inner.v[i] += dq.v[i];
  testing::ExpectClose(testing::Solve(l.T(), inner).v, da, 1e-9, 1e-9, "gelqf dA");
}

TEST(LinalgOrthogonalTest, EmptyBatches) {
  for (const std::string op : {"_linalg_syevd", "_linalg_gelqf"}) {
    const OpCase c{op, {}, {InputSpec{TShape{0, 3, 3}}}};
    EXPECT_EQ(testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32))[1].shape().Size(), 0)
        << op;
  }
}

TEST(LinalgOrthogonalTest, BadShapesAndTypesAreNamed) {
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"_linalg_gelqf", {}, {InputSpec{TShape{2, 4, 3}}}});
              }),
              HasSubstr("_linalg_gelqf: A (2,4,3) has more rows (4) than columns (3); valid: "
                        "matrices of at most as many rows as columns"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"_linalg_syevd", {}, {InputSpec{TShape{3, 2}}}});
              }),
              HasSubstr("A must be square matrices (the last two axes), got (3,2)"));
  EXPECT_EQ(testing::TypeErrorOf("_linalg_gelqf", mshadow::kFloat16),
            "_linalg_gelqf: data type float16 is not supported; valid: float32, float64");
}

}  // namespace
}  // namespace ops
