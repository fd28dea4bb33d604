// The LU operators against float64 loops (Gaussian elimination; determinants by cofactor
// expansion), with row exchanges, negative and zero determinants; write modes; gradients; and
// the singular matrices and shapes they refuse.
#include <cmath>
#include <limits>
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

// The determinant by cofactor expansion along the first row (small matrices only).
double Determinant(const Dense& a) {
  const int n = a.rows;
  if (n == 0) return 1;
  double sum = 0;
  for (int c = 0; c < n; ++c) {
    Dense minor(n - 1, n - 1);
    for (int r = 1; r < n; ++r) {
      for (int k = 0, m = 0; k < n; ++k) {
        if (k != c) minor(r - 1, m++) = a(r, k);
      }
    }
    sum += (c % 2 == 0 ? 1 : -1) * a(0, c) * Determinant(minor);
  }
  return sum;
}

TEST(LinalgLuTest, InverseAgainstGaussianElimination) {
  const OpCase c{"_linalg_inverse", {}, {testing::ParseInputSpec("(2,3,4,4)+1I")}};
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    std::vector<Dense> out;
    for (const Dense& a : testing::Matrices(in[0], 4, 4)) {
      out.push_back(testing::Solve(a, Dense::Identity(4)));
    }
    return std::vector<Values>{testing::Concatenated(out)};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

TEST(LinalgLuTest, DeterminantsOfEverySign) {
  // Random matrices (pivoting exchanges rows), a permutation (det -1) and a singular one.
  for (const InputSpec& spec :
       {InputSpec{TShape{3, 2, 4, 4}},
        InputSpec::WithValues(TShape{3, 3}, {0, 1, 0, 1, 0, 0, 0, 0, 2}),
        InputSpec::WithValues(TShape{1, 3, 3}, {1, 2, 3, 0, 0, 0, 4, 5, 6})}) {
    const int n = static_cast<int>(spec.shape[spec.shape.ndim() - 1]);
    const OpCase det{"_linalg_det", {}, {spec}};
    const OpCase slogdet{"_linalg_slogdet", {}, {spec}};
    testing::CheckForward(
        det,
        [&](const std::vector<Values>& in) {
          Values out;
          for (const Dense& a : testing::Matrices(in[0], n, n)) out.push_back(Determinant(a));
          return std::vector<Values>{out};
        },
        1e-12, 1e-4);
    testing::CheckForward(slogdet, [&](const std::vector<Values>& in) {
      Values sign, log_abs;
      for (const Dense& a : testing::Matrices(in[0], n, n)) {
        const double d = Determinant(a);
        sign.push_back(d > 0 ? 1 : (d < 0 ? -1 : 0));
        log_abs.push_back(std::log(std::fabs(d)));
      }
      return std::vector<Values>{sign, log_abs};
    });
    testing::CheckWriteModes(det);
    testing::CheckWriteModes(slogdet);
  }
  EXPECT_EQ(testing::InferOutputShapes({"_linalg_det", {}, {InputSpec{TShape{3, 3}}}})[0],
            (TShape{1}));
  EXPECT_EQ(testing::InferOutputShapes({"_linalg_slogdet", {}, {InputSpec{TShape{2, 5, 3, 3}}}})[1],
            (TShape{2, 5}));
}

TEST(LinalgLuTest, DeterminantGradients) {
  for (const std::string op : {"_linalg_det", "_linalg_slogdet"}) {
    const OpCase c{op, {}, {testing::ParseInputSpec("(2,3,3,3)+1I")}};
    testing::CheckGradient(c);
  }
}

TEST(LinalgLuTest, SingularMatricesAreNamedWhereTheInverseIsNeeded) {
  const Values singular = {1, 2, 3, 4, 1, 2, 2, 4};  // the second matrix's rows are parallel
  const OpCase inverse{"_linalg_inverse", {}, {InputSpec::WithValues(TShape{2, 2, 2}, singular)}};
  const std::vector<CpuTensor> in = testing::MakeInputs(inverse, mshadow::kFloat64);
  EXPECT_EQ(testing::ErrorOf([&] { testing::Forward(inverse, in); }),
            "_linalg_inverse: matrix 1 of the batch is singular (U's diagonal element 1 is zero): "
            "it has no inverse; valid: invertible matrices");
  const OpCase det{"_linalg_det", {}, {InputSpec::WithValues(TShape{2, 2, 2}, singular)}};
  EXPECT_EQ(testing::ToValues(testing::Forward(det, in)[0].blob()), (Values{-2, 0}));
  EXPECT_THAT(testing::ErrorOf([&] {
                testing::Backward(det, in, {{1, 1}});
              }),
              HasSubstr("_backward_linalg_det: matrix 1 of the batch is singular (U's diagonal "
                        "element 1 is zero): the determinant's gradient is not computed for it"));
  const OpCase slogdet{"_linalg_slogdet", {}, {InputSpec::WithValues(TShape{2, 2, 2}, singular)}};
  const std::vector<CpuTensor> out = testing::Forward(slogdet, in);
  EXPECT_EQ(testing::ToValues(out[0].blob()), (Values{-1, 0}));
  EXPECT_EQ(testing::ToValues(out[1].blob())[1], -std::numeric_limits<double>::infinity());
}

TEST(LinalgLuTest, EmptyBatchesAndMatrices) {
  const OpCase none{"_linalg_inverse", {}, {InputSpec{TShape{0, 3, 3}}}};
  EXPECT_EQ(testing::Forward(none, testing::MakeInputs(none, mshadow::kFloat32))[0].shape().Size(),
            0);
  // The determinant of a 0 x 0 matrix is 1, as NumPy's.
  const OpCase det{"_linalg_det", {}, {InputSpec{TShape{2, 0, 0}}}};
  EXPECT_EQ(testing::ToValues(
                testing::Forward(det, testing::MakeInputs(det, mshadow::kFloat32))[0].blob()),
            (Values{1, 1}));
}

TEST(LinalgLuTest, BadShapesAndTypesAreNamed) {
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"_linalg_det", {}, {InputSpec{TShape{2, 3}}}});
              }),
              HasSubstr("_linalg_det: A must be square matrices (the last two axes), got (2,3)"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"_linalg_inverse", {}, {InputSpec{TShape{3}}}});
              }),
              HasSubstr("A must have at least two axes (matrices), got (3,)"));
  EXPECT_EQ(testing::TypeErrorOf("_linalg_slogdet", mshadow::kInt32),
            "_linalg_slogdet: data type int32 is not supported; valid: float32, float64");
}

}  // namespace
}  // namespace ops
