// blocked_triangular::Solve against float64 substitution, for every side, triangle and
// transposition, on orders of one block and a part, several blocks and a part, and whole
// blocks; b wider than its columns (the padding must stay as it was) and a's other triangle
// NaN (it must not be read); the same results on one thread and two; alpha 0 as BLAS.
#include "ops/blocked_triangular.h"

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mshadow/parallel.h"

namespace ops {
namespace {

using mshadow::index_t;

struct Case {
  index_t n, other;  // the triangle's order; b's rows (from the right) or columns (from the left)
  bool rightside, lower, transpose;
  std::string Name() const {
    return "n " + std::to_string(n) + ", other " + std::to_string(other) +
           (rightside ? ", right" : ", left") + (lower ? ", lower" : ", upper") +
           (transpose ? ", transposed" : "");
  }
};

// a (n x n) with its triangle at random, n added to its diagonal, the other triangle NaN.
std::vector<float> Triangle(index_t n, bool lower, std::mt19937* gen) {
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(n * n, std::numeric_limits<float>::quiet_NaN());
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < n; ++j) {
      if (i == j || (j < i) == lower) a[i * n + j] = dist(*gen) + (i == j ? n : 0);
    }
  }
  return a;
}

// op(a) as a dense float64 matrix, zero outside its triangle.
std::vector<double> DenseOp(const std::vector<float>& a, index_t n, bool lower, bool transpose) {
  std::vector<double> t(n * n, 0.0);
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < n; ++j) {
      const index_t r = transpose ? j : i, c = transpose ? i : j;  // a's element op(a)[i][j]
      if (r == c || (c < r) == lower) t[i * n + j] = a[r * n + c];
    }
  }
  return t;
}

// alpha op(a)^-1 b (alpha b op(a)^-1 from the right) in float64, b rows x cols.
std::vector<double> Reference(const Case& c, const std::vector<float>& a,
                              const std::vector<double>& b, index_t rows, index_t cols,
                              double alpha) {
  const index_t n = c.n;
  const std::vector<double> t = DenseOp(a, n, c.lower, c.transpose);
  // From the right, x op(a) = b is op(a)^T x^T = b^T: the left side's loops on b^T.
  const index_t lines = c.rightside ? rows : cols;
  const auto at = [&](index_t i, index_t k) {  // the left side's matrix, element (i, k)
    return c.rightside ? t[k * n + i] : t[i * n + k];
  };
  std::vector<double> out(rows * cols);
  for (index_t line = 0; line < lines; ++line) {
    const auto in = [&](index_t i) {
      return alpha * (c.rightside ? b[line * cols + i] : b[i * cols + line]);
    };
    // Substitution in the order the triangle allows: op(a) lower (or its transpose upper).
    std::vector<double> x(n);
    const bool forward = (c.lower != c.transpose) != c.rightside;
    for (index_t step = 0; step < n; ++step) {
      const index_t i = forward ? step : n - 1 - step;
      double sum = in(i);
      for (index_t k = 0; k < n; ++k) {
        if (k != i) sum -= at(i, k) * x[k];  // zero where x[k] is not solved yet
      }
      x[i] = sum / at(i, i);
    }
    for (index_t i = 0; i < n; ++i)
      (c.rightside ? out[line * cols + i] : out[i * cols + line]) = x[i];
  }
  return out;
}

// b (rows x cols, rows `ld` apart) after the blocked solve on `threads` threads.
std::vector<float> SolveOn(const Case& c, const std::vector<float>& a, const std::vector<float>& b,
                           index_t ld, index_t rows, index_t cols, float alpha, int threads) {
  std::vector<float> out = b;
  mshadow::SetNumThreads(threads);
  blocked_triangular::Solve(a.data(), c.n, c.n, c.lower, c.transpose, c.rightside, alpha,
                            out.data(), ld, rows, cols);
  mshadow::SetNumThreads(0);
  return out;
}

TEST(BlockedTriangularTest, EverySideTriangleAndTranspositionAgainstFloat64) {
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> dist(-1, 1);
  const float alpha = -0.75f;
  const float kPad = 12345.0f;
  std::vector<Case> cases;
  for (const auto& [n, other] : std::vector<std::pair<index_t, index_t>>{
           {65, 37}, {150, 70}, {128, 1}, {200, 130}, {300, 20}}) {
    for (const bool rightside : {false, true}) {
      for (const bool lower : {true, false}) {
        for (const bool transpose : {false, true}) {
          cases.push_back({n, other, rightside, lower, transpose});
        }
      }
    }
  }
  for (const Case& c : cases) {
    const index_t rows = c.rightside ? c.other : c.n, cols = c.rightside ? c.n : c.other;
    const index_t ld = cols + 3;
    const std::vector<float> a = Triangle(c.n, c.lower, &gen);
    std::vector<float> b(rows * ld, kPad);
    std::vector<double> b64(rows * cols);
    for (index_t i = 0; i < rows; ++i) {
      for (index_t j = 0; j < cols; ++j) b64[i * cols + j] = b[i * ld + j] = dist(gen);
    }
    SCOPED_TRACE(c.Name());
    const std::vector<double> expected = Reference(c, a, b64, rows, cols, alpha);
    const std::vector<float> one = SolveOn(c, a, b, ld, rows, cols, alpha, 1);
    const std::vector<float> two = SolveOn(c, a, b, ld, rows, cols, alpha, 2);
    double scale = 0;
    for (const double v : expected) scale = std::max(scale, std::abs(v));
    for (index_t i = 0; i < rows; ++i) {
      for (index_t j = 0; j < ld; ++j) {
        const float got = one[i * ld + j];
        if (j >= cols) {
          ASSERT_EQ(got, kPad) << "padding at (" << i << ", " << j << ")";
          continue;
        }
        ASSERT_NEAR(got, expected[i * cols + j], 2e-6 * scale) << "at (" << i << ", " << j << ")";
        ASSERT_EQ(got, two[i * ld + j])
            << "one thread and two differ at (" << i << ", " << j << ")";
      }
    }
  }
}

TEST(BlockedTriangularTest, AlphaZeroWritesZerosWithoutReadingEither) {
  const index_t n = 100;
  const std::vector<float> a(n * n, std::numeric_limits<float>::quiet_NaN());
  const std::vector<float> b(n * n, std::numeric_limits<float>::infinity());
  for (const bool rightside : {false, true}) {
    const Case c{n, n, rightside, true, false};
    const std::vector<float> out = SolveOn(c, a, b, n, n, n, 0.0f, 2);
    for (const float v : out) ASSERT_EQ(v, 0.0f);
  }
}

}  // namespace
}  // namespace ops
