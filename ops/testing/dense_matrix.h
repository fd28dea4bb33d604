// ops/testing/dense_matrix.h: float64 row-major matrices as plain loops, the references of the
// linear-algebra operators' tests (linalg_triangular_test, linalg_lu_test,
// linalg_orthogonal_test), the gradient check of operators that read one triangle of a
// symmetric matrix, and the type refusal those tests share.
#ifndef OPS_TESTING_DENSE_MATRIX_H_
#define OPS_TESTING_DENSE_MATRIX_H_

#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace testing {

// A rows x columns matrix, row-major.
struct Dense {
  int rows = 0, columns = 0;
  std::vector<double> v;
  Dense(int r, int c) : rows(r), columns(c), v(static_cast<size_t>(r) * c, 0.0) {}
  Dense(int r, int c, const double* data) : rows(r), columns(c), v(data, data + r * c) {}
  double& operator()(int r, int c) { return v[static_cast<size_t>(r) * columns + c]; }
  double operator()(int r, int c) const { return v[static_cast<size_t>(r) * columns + c]; }

  static Dense Identity(int n) {
    Dense d(n, n);
    for (int i = 0; i < n; ++i) d(i, i) = 1;
    return d;
  }
  Dense T() const {
    Dense t(columns, rows);
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < columns; ++c) t(c, r) = (*this)(r, c);
    }
    return t;
  }
  // The lower (or upper) triangle, the other zero.
  Dense Triangle(bool lower) const {
    Dense t = *this;
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < columns; ++c) {
        if (lower ? c > r : c < r) t(r, c) = 0;
      }
    }
    return t;
  }
  // The symmetric matrix whose lower triangle this one's is.
  Dense SymmetricFromLower() const {
    Dense s = *this;
    for (int r = 0; r < rows; ++r) {
      for (int c = r + 1; c < columns; ++c) s(r, c) = (*this)(c, r);
    }
    return s;
  }
  Dense operator*(const Dense& b) const {
    Dense p(rows, b.columns);
    for (int r = 0; r < rows; ++r) {
      for (int k = 0; k < columns; ++k) {
        for (int c = 0; c < b.columns; ++c) p(r, c) += (*this)(r, k) * b(k, c);
      }
    }
    return p;
  }
  Dense Scaled(double s) const {
    Dense d = *this;
    for (double& x : d.v) x *= s;
    return d;
  }
};

// X with a X = b, by Gaussian elimination with partial pivoting.
inline Dense Solve(Dense a, Dense b) {
  const int n = a.rows;
  for (int k = 0; k < n; ++k) {
    int pivot = k;
    for (int r = k + 1; r < n; ++r) {
      if (std::fabs(a(r, k)) > std::fabs(a(pivot, k))) pivot = r;
    }
    for (int c = 0; c < n; ++c) std::swap(a(k, c), a(pivot, c));
    for (int c = 0; c < b.columns; ++c) std::swap(b(k, c), b(pivot, c));
    for (int r = k + 1; r < n; ++r) {
      const double f = a(r, k) / a(k, k);
      for (int c = k; c < n; ++c) a(r, c) -= f * a(k, c);
      for (int c = 0; c < b.columns; ++c) b(r, c) -= f * b(k, c);
    }
  }
  for (int k = n - 1; k >= 0; --k) {
    for (int c = 0; c < b.columns; ++c) {
      double x = b(k, c);
      for (int j = k + 1; j < n; ++j) x -= a(k, j) * b(j, c);
      b(k, c) = x / a(k, k);
    }
  }
  return b;
}

// The matrices (the last two axes, rows x columns each) of a tensor's values.
inline std::vector<Dense> Matrices(const Values& values, int rows, int columns) {
  std::vector<Dense> out;
  const size_t size = static_cast<size_t>(rows) * columns;
  for (size_t at = 0; size > 0 && at + size <= values.size(); at += size) {
    out.emplace_back(rows, columns, values.data() + at);
  }
  return out;
}

inline Values Concatenated(const std::vector<Dense>& matrices) {
  Values out;
  for (const Dense& m : matrices) out.insert(out.end(), m.v.begin(), m.v.end());
  return out;
}

// What type inference says of an operator's first input of type `type_flag`.
inline std::string TypeErrorOf(const std::string& op, int type_flag) {
  const NodeAttrs attrs = ParseAttrs(Op::Get(op), {});
  std::vector<int> in = {type_flag}, out;
  return ErrorOf([&] { InferTypes(attrs, &in, &out); });
}

// For an operator whose first input is symmetric matrices of which one triangle is read and
// whose gradient is the symmetric one (MXNet's convention: potrf, syevd): the gradient's inner
// product with random symmetric directions against central differences of a random projection
// of the visible outputs, in float64.
inline void CheckSymmetricGradient(const OpCase& c, double rtol = 1e-6) {
  std::vector<CpuTensor> inputs = MakeInputs(c, mshadow::kFloat64);
  const std::vector<CpuTensor> outputs = Forward(c, inputs);
  std::mt19937_64 rng(5);
  std::vector<Values> weights;
  for (const CpuTensor& out : outputs) {
    weights.push_back(RandomValues(static_cast<size_t>(out.shape().Size()), -1, 1, &rng));
  }
  const Values gradient = ToValues(Backward(c, inputs, weights)[0].blob());
  const Values a = ToValues(inputs[0].blob());
  const int n = static_cast<int>(c.inputs[0].shape[c.inputs[0].shape.ndim() - 1]);
  const auto loss = [&](const Values& x) {
    SetValues(inputs[0].blob(), x);
    const std::vector<CpuTensor> y = Forward(c, inputs);
    double sum = 0;
    for (size_t k = 0; k < y.size(); ++k) {
      const Values yv = ToValues(y[k].blob());
      for (size_t j = 0; j < yv.size(); ++j) sum += yv[j] * weights[k][j];
    }
    return sum;
  };
  for (int trial = 0; trial < 4; ++trial) {
    Values direction = RandomValues(a.size(), -1, 1, &rng);
    for (size_t at = 0; at < a.size(); at += static_cast<size_t>(n) * n) {
      for (int r = 0; r < n; ++r) {
        for (int col = r + 1; col < n; ++col)
          direction[at + r * n + col] = direction[at + col * n + r];
      }
    }
    const double eps = 1e-6;
    Values plus = a, minus = a;
    double analytic = 0;
    for (size_t j = 0; j < a.size(); ++j) {
      plus[j] += eps * direction[j];
      minus[j] -= eps * direction[j];
      analytic += gradient[j] * direction[j];
    }
    const double numeric = (loss(plus) - loss(minus)) / (2 * eps);
    EXPECT_NEAR(analytic, numeric, 1e-7 + rtol * std::fabs(numeric))
        << c.op << " direction " << trial;
  }
  SetValues(inputs[0].blob(), a);
}

}  // namespace testing
}  // namespace ops

#endif  // OPS_TESTING_DENSE_MATRIX_H_
