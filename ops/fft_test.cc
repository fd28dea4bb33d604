// _contrib_fft and _contrib_ifft: against direct sums of the definition for lengths that are
// powers of two (radix 2), products of 2, 3 and 5 (mixed radix) and others (Bluestein's), known
// values, ifft(fft(x)) = d x, gradients against central differences, write modes, rows taken
// compute_size at a time, float32, and the shape refused. MXNet 1.9.1 runs them on the GPU
// only; the Python suite checks them against NumPy's.
#include <cmath>
#include <complex>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

Values Transform(const char* op, const TShape& shape, const Values& x, int type = mshadow::kFloat64,
                 const std::map<std::string, std::string>& kw = {}) {
  const OpCase c{op, kw, {InputSpec::WithValues(shape, x)}};
  return testing::ToValues(testing::Forward(c, testing::MakeInputs(c, type))[0].blob());
}

// sum_n x_n exp(sign 2 pi i k n / d) of each row, in long double.
std::vector<std::complex<long double>> DirectSums(const std::vector<std::complex<long double>>& x,
                                                  size_t d, int sign) {
  std::vector<std::complex<long double>> y(x.size());
  const long double pi = 3.14159265358979323846264338327950288L;
  for (size_t r = 0; r < x.size() / d; ++r) {
    for (size_t k = 0; k < d; ++k) {
      for (size_t n = 0; n < d; ++n) {
        const long double angle = sign * 2 * pi * static_cast<long double>(k * n % d) / d;
        y[r * d + k] += x[r * d + n] * std::complex<long double>(std::cos(angle), std::sin(angle));
      }
    }
  }
  return y;
}

TEST(FFTTest, DirectSumsOfEveryLength) {
  std::mt19937_64 rng(5);
  for (const index_t d : {1, 2, 3, 5, 6, 7, 8, 12, 15, 45, 64, 100, 127, 360, 1000}) {
    SCOPED_TRACE(d);
    const Values x = testing::RandomValues(3 * d, -1, 1, &rng);
    std::vector<std::complex<long double>> xc(x.begin(), x.end());
    const auto expected = DirectSums(xc, d, -1);
    const Values y = Transform("_contrib_fft", TShape{3, d}, x);
    Values expected_interleaved;
    for (const auto& v : expected) {
      expected_interleaved.push_back(static_cast<double>(v.real()));
      expected_interleaved.push_back(static_cast<double>(v.imag()));
    }
    testing::ExpectClose(expected_interleaved, y, 1e-12, 1e-12 * d, "fft");
    // ifft of complex rows: the real parts of the inverse sums.
    const Values z = testing::RandomValues(3 * 2 * d, -1, 1, &rng);
    std::vector<std::complex<long double>> zc;
    for (index_t i = 0; i < 3 * d; ++i) zc.emplace_back(z[2 * i], z[2 * i + 1]);
    Values expected_real;
    for (const auto& v : DirectSums(zc, d, 1))
      expected_real.push_back(static_cast<double>(v.real()));
    testing::ExpectClose(expected_real, Transform("_contrib_ifft", TShape{3, 2 * d}, z), 1e-12,
                         1e-12 * d, "ifft");
  }
}

// numpy.fft.fft([1, 2, 3, 4]) = [10, -2+2j, -2, -2-2j]; and of [1, 2, 3] = [6, -1.5+0.866j,
// -1.5-0.866j].
TEST(FFTTest, KnownValues) {
  testing::ExpectClose(Values{10, 0, -2, 2, -2, 0, -2, -2},
                       Transform("_contrib_fft", TShape{1, 4}, {1, 2, 3, 4}), 1e-14, 1e-14,
                       "length 4");
  testing::ExpectClose(Values{6, 0, -1.5, std::sqrt(3.0) / 2, -1.5, -std::sqrt(3.0) / 2},
                       Transform("_contrib_fft", TShape{1, 3}, {1, 2, 3}), 1e-14, 1e-14,
                       "length 3");
}

// ifft is unnormalized: ifft(fft(x)) = d x; also on 4-d data and in float32.
TEST(FFTTest, InverseOfTheTransformIsDTimesTheRows) {
  std::mt19937_64 rng(9);
  for (const index_t d : {6, 16}) {
    const TShape shape{2, 3, 2, d};
    const Values x = testing::RandomValues(shape.Size(), -1, 1, &rng);
    Values dx = x;
    for (double& v : dx) v *= static_cast<double>(d);
    TShape complex_shape = shape;
    complex_shape[3] = 2 * d;
    for (const int type : {mshadow::kFloat64, mshadow::kFloat32}) {
      const Values back = Transform("_contrib_ifft", complex_shape,
                                    Transform("_contrib_fft", shape, x, type), type);
      const double tol = type == mshadow::kFloat64 ? 1e-12 : 1e-5;
      testing::ExpectClose(dx, back, tol, tol * d, "ifft(fft(x))");
    }
  }
}

// compute_size only sets how many rows go at a time.
TEST(FFTTest, RowsAtATime) {
  std::mt19937_64 rng(3);
  const Values x = testing::RandomValues(7 * 10, -1, 1, &rng);
  EXPECT_EQ(
      Transform("_contrib_fft", TShape{7, 10}, x),
      Transform("_contrib_fft", TShape{7, 10}, x, mshadow::kFloat64, {{"compute_size", "3"}}));
}

TEST(FFTTest, GradientsAndWriteModes) {
  for (const index_t d : {8, 6}) {
    for (const OpCase& c :
         {OpCase{"_contrib_fft", {}, {InputSpec{TShape{3, d}}}},
          OpCase{"_contrib_ifft", {{"compute_size", "2"}}, {InputSpec{TShape{3, 2 * d}}}}}) {
      SCOPED_TRACE(c.op + " " + std::to_string(d));
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
}

TEST(FFTTest, AnOddLastAxisIsNotComplex) {
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"_contrib_ifft", {}, {InputSpec{TShape{2, 5}}}});
              }),
              HasSubstr("_contrib_ifft: data (2,5) must have an even last axis"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    {"_contrib_fft", {{"compute_size", "0"}}, {InputSpec{TShape{2, 5}}}});
              }),
              HasSubstr("compute_size"));
}

}  // namespace
}  // namespace ops
