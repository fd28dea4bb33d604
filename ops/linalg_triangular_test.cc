// The triangular and Cholesky operators against loops in float64 (products, Gaussian
// elimination, the Cholesky recurrence) for every side, triangle and transposition; write
// modes; gradients against central differences (symmetric directions for potrf); empty
// batches; and the shapes, types and matrices they refuse.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/testing/dense_matrix.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using testing::Dense;
using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

using Kw = std::map<std::string, std::string>;

bool Flag(const Kw& kw, const std::string& key, bool fallback) {
  const auto it = kw.find(key);
  return it == kw.end() ? fallback : it->second == "True";
}

// trmm's and trsm's parameters.
Kw TriangularKw(bool right, bool lower, bool transpose, const std::string& alpha) {
  const auto flag = [](bool value) { return std::string(value ? "True" : "False"); };
  return {{"rightside", flag(right)},
          {"lower", flag(lower)},
          {"transpose", flag(transpose)},
          {"alpha", alpha}};
}

// op(A) of trmm and trsm.
Dense TriangularOperand(const Dense& a, const Kw& kw) {
  const Dense t = a.Triangle(Flag(kw, "lower", true));
  return Flag(kw, "transpose", false) ? t.T() : t;
}

std::vector<Values> TriangularReference(const std::vector<Values>& in, int k, int m, int n,
                                        const Kw& kw, bool solve) {
  const auto as = testing::Matrices(in[0], k, k), bs = testing::Matrices(in[1], m, n);
  const double alpha = std::stod(kw.at("alpha"));
  const bool right = Flag(kw, "rightside", false);
  std::vector<Dense> out;
  for (size_t i = 0; i < as.size(); ++i) {
    const Dense t = TriangularOperand(as[i], kw), b = bs[i].Scaled(alpha);
    if (!solve) {
      out.push_back(right ? b * t : t * b);
    } else {
      out.push_back(right ? testing::Solve(t.T(), b.T()).T() : testing::Solve(t, b));
    }
  }
  return {testing::Concatenated(out)};
}

// (5, 83) from the left and (83, 5) from the right: order-5 triangles (small_triangular.h) over
// 83 columns of B (or of its transpose), whole blocks of four packets, single packets and
// single columns; the others take an order-83 triangle (BLAS).
TEST(LinalgTriangularTest, TrmmAndTrsmOnEverySideTriangleAndTransposition) {
  const int batch = 2;
  for (const auto& [m, n] : std::vector<std::pair<int, int>>{{3, 4}, {5, 83}, {83, 5}}) {
    for (const bool right : {false, true}) {
      for (const bool lower : {true, false}) {
        for (const bool transpose : {false, true}) {
          const int k = right ? n : m;
          const Kw kw = TriangularKw(right, lower, transpose, "-0.75");
          SCOPED_TRACE((right ? "right " : "left ") + std::string(lower ? "lower" : "upper") +
                       (transpose ? " transposed" : ""));
          for (const bool solve : {false, true}) {
            const OpCase c{
                solve ? "_linalg_trsm" : "_linalg_trmm",
                kw,
                {testing::ParseInputSpec("(" + std::to_string(batch) + "," + std::to_string(k) +
                                         "," + std::to_string(k) + ")+3I"),
                 InputSpec{TShape{batch, m, n}}}};
            testing::CheckForward(c, [&, m = m, n = n](const std::vector<Values>& in) {
              return TriangularReference(in, k, m, n, kw, solve);
            });
            testing::CheckWriteModes(c);
            testing::CheckGradient(c);
          }
        }
      }
    }
  }
}

// Matrices of 300 rows take the gradients' triangle by blocks (a 150 x 150 product, then each
// half's: 75 x 75 products and diagonal blocks): trmm's and trsm's gradients there against the
// float64 formulas, for every side, triangle and transposition, over a batch of two.
TEST(LinalgTriangularTest, LargeTriangularGradientsByBlocks) {
  const int batch = 2, k = 300, other = 5;
  for (const bool solve : {false, true}) {
    for (const bool right : {false, true}) {
      for (const bool lower : {true, false}) {
        for (const bool transpose : {false, true}) {
          const Kw kw = TriangularKw(right, lower, transpose, "0.75");
          const int rows = right ? other : k, columns = right ? k : other;
          const std::string a_spec = "(" + std::to_string(batch) + "," + std::to_string(k) + "," +
                                     std::to_string(k) + ")+" + std::to_string(k) + "I";
          const OpCase c{
              solve ? "_linalg_trsm" : "_linalg_trmm",
              kw,
              {testing::ParseInputSpec(a_spec), InputSpec{TShape{batch, rows, columns}}}};
          const std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat64);
          const Values g_values = testing::ToValues(inputs[1].blob());  // any dOut of B's shape
          const Values out_values = testing::ToValues(testing::Forward(c, inputs)[0].blob());
          const Values da = testing::ToValues(testing::Backward(c, inputs, {g_values})[0].blob());
          const auto as = testing::Matrices(testing::ToValues(inputs[0].blob()), k, k);
          const auto bs = testing::Matrices(testing::ToValues(inputs[1].blob()), rows, columns);
          const auto gs = testing::Matrices(g_values, rows, columns);
          const auto outs = testing::Matrices(out_values, rows, columns);
          std::vector<Dense> expected;
          for (int i = 0; i < batch; ++i) {
            const Dense t = TriangularOperand(as[i], kw);
            Dense d_op(k, k);
            if (!solve) {
              d_op = (right ? bs[i].T() * gs[i] : gs[i] * bs[i].T()).Scaled(0.75);
            } else {
              // dB (before alpha) = op(A)^-T dOut, or dOut op(A)^-T from the right.
              const Dense dbu =
                  right ? testing::Solve(t, gs[i].T()).T() : testing::Solve(t.T(), gs[i]);
              d_op = (right ? outs[i].T() * dbu : dbu * outs[i].T()).Scaled(-1);
            }
            expected.push_back((transpose ? d_op.T() : d_op).Triangle(lower));
          }
          testing::ExpectClose(testing::Concatenated(expected), da, 1e-10, 1e-12,
                               c.op + " dA, right " + std::to_string(right) + ", lower " +
                                   std::to_string(lower) + ", transpose " +
                                   std::to_string(transpose));
        }
      }
    }
  }
}

// One thread solves a large triangle from the right by blocks (ops/blocked_triangular.h), more
// call OpenBLAS: the two agree on every triangle and transposition of an order-300 float32
// solve.
TEST(LinalgTriangularTest, LargeTrsmFromTheRightOnOneThreadAgreesWithOpenBlas) {
  const int k = 300, rows = 70;
  for (const bool lower : {true, false}) {
    for (const bool transpose : {false, true}) {
      const Kw kw = TriangularKw(/*right=*/true, lower, transpose, "0.75");
      const OpCase c{"_linalg_trsm",
                     kw,
                     {testing::ParseInputSpec("(" + std::to_string(k) + "," + std::to_string(k) +
                                              ")+" + std::to_string(k) + "I"),
                      InputSpec{TShape{rows, k}}}};
      const std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat32);
      mshadow::SetNumThreads(1);
      const Values blocked = testing::ToValues(testing::Forward(c, inputs)[0].blob());
      mshadow::SetNumThreads(2);
      const Values blas = testing::ToValues(testing::Forward(c, inputs)[0].blob());
      mshadow::SetNumThreads(0);
      testing::ExpectClose(
          blas, blocked, 1e-5, 1e-6,
          "lower " + std::to_string(lower) + ", transpose " + std::to_string(transpose));
    }
  }
}

// 19 x 21: the gradient's dOut + dOut^T through whole register squares and their edges.
TEST(LinalgTriangularTest, SyrkBothWays) {
  for (const auto& [rows, columns] : std::vector<std::pair<int, int>>{{3, 5}, {19, 21}}) {
    for (const bool transpose : {false, true}) {
      const Kw kw{{"transpose", transpose ? "True" : "False"}, {"alpha", "1.5"}};
      const OpCase c{"_linalg_syrk", kw, {InputSpec{TShape{2, rows, columns}}}};
      const int side = transpose ? columns : rows;
      EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{2, side, side}));
      testing::CheckForward(c, [&, rows = rows, columns = columns](const std::vector<Values>& in) {
        std::vector<Dense> out;
        for (const Dense& a : testing::Matrices(in[0], rows, columns)) {
          out.push_back((transpose ? a.T() * a : a * a.T()).Scaled(1.5));
        }
        return std::vector<Values>{testing::Concatenated(out)};
      });
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
}

// The Cholesky recurrence on A's lower triangle.
Dense Cholesky(const Dense& a) {
  const int n = a.rows;
  Dense l(n, n);
  for (int j = 0; j < n; ++j) {
    double d = a(j, j);
    for (int k = 0; k < j; ++k) d -= l(j, k) * l(j, k);
    l(j, j) = std::sqrt(d);
    for (int i = j + 1; i < n; ++i) {
      double s = a(i, j);
      for (int k = 0; k < j; ++k) s -= l(i, k) * l(j, k);
      l(i, j) = s / l(j, j);
    }
  }
  return l;
}

TEST(LinalgTriangularTest, PotrfIsTheCholeskyFactorOfTheLowerTriangle) {
  const OpCase c{"_linalg_potrf", {}, {testing::ParseInputSpec("(2,3,4,4)+4I")}};
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    std::vector<Dense> out;
    for (const Dense& a : testing::Matrices(in[0], 4, 4)) out.push_back(Cholesky(a));
    return std::vector<Values>{testing::Concatenated(out)};
  });
  testing::CheckWriteModes(c);
  testing::CheckSymmetricGradient(c);
}

TEST(LinalgTriangularTest, PotriInvertsLLTransposed) {
  const OpCase c{"_linalg_potri", {}, {testing::ParseInputSpec("(3,4,4)+3I")}};
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    std::vector<Dense> out;
    for (const Dense& a : testing::Matrices(in[0], 4, 4)) {
      const Dense l = a.Triangle(true);
      out.push_back(testing::Solve(l * l.T(), Dense::Identity(4)));
    }
    return std::vector<Values>{testing::Concatenated(out)};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

TEST(LinalgTriangularTest, EmptyBatchesAndMatrices) {
  for (const std::string shape : {"(0,3,3)", "(2,0,0)"}) {
    for (const std::string op : {"_linalg_potrf", "_linalg_potri", "_linalg_syrk"}) {
      const OpCase c{op, {}, {testing::ParseInputSpec(shape)}};
      EXPECT_EQ(testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32))[0].shape().Size(), 0)
          << op << " " << shape;
    }
  }
  // A k = 0 product: zeros.
  const OpCase syrk{"_linalg_syrk", {}, {InputSpec{TShape{2, 0}}}};
  EXPECT_EQ(testing::ToValues(
                testing::Forward(syrk, testing::MakeInputs(syrk, mshadow::kFloat32))[0].blob()),
            Values(4, 0.0));
}

TEST(LinalgTriangularTest, MatricesThatAreNotPositiveDefiniteAreNamed) {
  // The second matrix's leading 2 x 2 minor is [[1, 2], [2, 1]]: determinant -3.
  const Values a = {4, 0, 0, 1, 2, 0, 0, 0, 9,  //
                    1, 0, 0, 2, 1, 0, 0, 0, 1};
  const OpCase c{"_linalg_potrf", {}, {InputSpec::WithValues(TShape{2, 3, 3}, a)}};
  EXPECT_EQ(
      testing::ErrorOf([&] { testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat64)); }),
      "_linalg_potrf: matrix 1 of the batch is not positive definite (its leading minor of "
      "order 2 is not); valid: symmetric positive definite matrices, of which the lower "
      "triangle is read");
  const OpCase potri{"_linalg_potri", {}, {InputSpec::WithValues(TShape{2, 2}, {1, 0, 3, 0})}};
  EXPECT_THAT(testing::ErrorOf(
                  [&] { testing::Forward(potri, testing::MakeInputs(potri, mshadow::kFloat32)); }),
              HasSubstr("_linalg_potri: matrix 0 of the batch has a zero on its diagonal"));
}

TEST(LinalgTriangularTest, BadShapesAndTypesAreNamed) {
  const auto error_of = [](const std::string& op, const std::vector<TShape>& shapes, const Kw& kw) {
    OpCase c{op, kw, {}};
    for (const TShape& s : shapes) c.inputs.push_back(InputSpec{s});
    return testing::ErrorOf([&] { testing::InferOutputShapes(c); });
  };
  EXPECT_THAT(error_of("_linalg_potrf", {TShape{3, 4}}, {}),
              HasSubstr("A must be square matrices (the last two axes), got (3,4)"));
  EXPECT_THAT(error_of("_linalg_syrk", {TShape{4}}, {}),
              HasSubstr("A must have at least two axes (matrices), got (4,)"));
  EXPECT_THAT(error_of("_linalg_trmm", {TShape{3, 3}, TShape{4, 2}}, {}),
              HasSubstr("A (3,3) and B (4,2) do not match: A's side must equal B's rows"));
  EXPECT_THAT(error_of("_linalg_trsm", {TShape{3, 3}, TShape{3, 2}}, {{"rightside", "True"}}),
              HasSubstr("A's side must equal B's columns (rightside)"));
  EXPECT_THAT(error_of("_linalg_trsm", {TShape{2, 3, 3}, TShape{3, 3, 2}}, {}),
              HasSubstr("their batch axes (all but the last two) differ"));
  EXPECT_EQ(testing::TypeErrorOf("_linalg_potrf", mshadow::kFloat16),
            "_linalg_potrf: data type float16 is not supported; valid: float32, float64");
}

}  // namespace
}  // namespace ops
