// The _sample_ operators: output shape and type, each output row drawn from its own
// distribution (means and variances of every row within about five standard errors, fixed
// seeds), the same draws on any thread count, write modes, zero gradients, and the errors for
// parameters outside a distribution's domain, for mismatched inputs and for a bad dtype.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/random_source.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::Values;

// The op on parameter vectors (float32 unless `type` says otherwise); the kwargs as given.
CpuTensor Sample(const std::string& op, const std::vector<Values>& parameters,
                 const std::map<std::string, std::string>& kwargs, int type = mshadow::kFloat32) {
  std::vector<CpuTensor> inputs;
  for (const Values& p : parameters) {
    inputs.emplace_back(TShape{static_cast<index_t>(p.size())}, type);
    MSHADOW_TYPE_SWITCH(type, DType, {
      std::transform(p.begin(), p.end(), inputs.back().data<DType>(),
                     [](double v) { return static_cast<DType>(v); });
    });
  }
  return RunCpu(ParseAttrs(Op::Get(op), kwargs), Blobs(inputs))[0];
}

struct Moments {
  double mean, variance;
};

// The mean and variance of row `row` of an (R, n) array of draws.
Moments RowMoments(const Values& draws, size_t n, size_t row) {
  double sum = 0, squares = 0;
  for (size_t j = row * n; j < (row + 1) * n; ++j) sum += draws[j];
  const double mean = sum / n;
  for (size_t j = row * n; j < (row + 1) * n; ++j) squares += (draws[j] - mean) * (draws[j] - mean);
  return {mean, squares / (n - 1)};
}

TEST(MultiSampleTest, EachRowFollowsItsOwnDistribution) {
  SetRandomSeed(3);
  struct Expected {
    std::string op;
    std::vector<Values> parameters;
    std::vector<Moments> moments;  // one per distribution
    bool counts;
  };
  const std::vector<Expected> cases = {
      {"_sample_uniform", {{-2, 10}, {3, 10.5}}, {{0.5, 25.0 / 12}, {10.25, 0.25 / 12}}, false},
      {"_sample_normal", {{1.5, -40}, {2, 0.1}}, {{1.5, 4}, {-40, 0.01}}, false},
      {"_sample_gamma", {{2.5, 0.3}, {1.5, 1}}, {{3.75, 2.5 * 2.25}, {0.3, 0.3}}, false},
      {"_sample_exponential", {{4, 0.5}}, {{0.25, 1.0 / 16}, {2, 4}}, false},
      {"_sample_poisson", {{0.5, 25, 0}}, {{0.5, 0.5}, {25, 25}, {0, 0}}, true},
      {"_sample_negative_binomial", {{3, 1.5}, {0.4, 1}}, {{4.5, 3 * 0.6 / 0.16}, {0, 0}}, true},
      {"_sample_generalized_negative_binomial", {{2, 3}, {0.5, 0}}, {{2, 4}, {3, 3}}, true}};
  const size_t n = 100000;
  for (const Expected& e : cases) {
    for (const std::string dtype : {"float32", "float64"}) {
      SCOPED_TRACE(e.op + " " + dtype);
      const CpuTensor out = Sample(e.op, e.parameters, {{"shape", "(100000,)"}, {"dtype", dtype}});
      ASSERT_EQ(out.shape(), (TShape{static_cast<index_t>(e.moments.size()), 100000}));
      const Values draws = testing::ToValues(out.blob());
      for (size_t row = 0; row < e.moments.size(); ++row) {
        SCOPED_TRACE(row);
        const Moments m = RowMoments(draws, n, row), want = e.moments[row];
        const double sd = std::sqrt(want.variance);
        EXPECT_NEAR(m.mean, want.mean, 5 * sd / std::sqrt(n) + 1e-6);
        // The variance's standard error, for kurtosis up to about 10.
        EXPECT_NEAR(m.variance, want.variance, 5 * want.variance * std::sqrt(10.0 / n) + 1e-6);
      }
      if (e.counts) {
        for (double x : draws) ASSERT_EQ(x, std::floor(x));
      }
    }
  }
  // uniform's bounds: low included, high never drawn.
  const Values u =
      testing::ToValues(Sample("_sample_uniform", {{0}, {1}}, {{"shape", "(100000,)"}}).blob());
  EXPECT_GE(*std::min_element(u.begin(), u.end()), 0.0);
  EXPECT_LT(*std::max_element(u.begin(), u.end()), 1.0);
}

TEST(MultiSampleTest, SameDrawsOnAnyThreadCount) {
  for (const std::string op : {"_sample_normal", "_sample_gamma", "_sample_poisson"}) {
    SCOPED_TRACE(op);
    const std::vector<Values> parameters = {{0.5, 30, 2}, {1, 2, 0.5}};
    // Enough draws for two threads; an odd count per distribution leaves half a block.
    const std::map<std::string, std::string> kwargs = {{"shape", "(20001,)"}};
    const auto draw = [&] {
      return testing::ToValues(
          Sample(op, op == "_sample_poisson" ? std::vector<Values>{parameters[0]} : parameters,
                 kwargs)
              .blob());
    };
    mshadow::SetNumThreads(1);
    SetRandomSeed(21);
    const Values first = draw(), second = draw();
    EXPECT_NE(first, second);  // the sequence moves on between calls
    mshadow::SetNumThreads(2);
    SetRandomSeed(21);
    EXPECT_EQ(draw(), first);
    EXPECT_EQ(draw(), second);
  }
  mshadow::SetNumThreads(1);
}

// Uniform, normal and exponential draw a pair of elements from each Philox block, as the
// _random_ operators do (ops/pair_draws.h): one distribution draws the values _random_ draws
// from the same seed, on packets (1000 draws) and a block at a time (the first 7).
TEST(MultiSampleTest, OneDistributionDrawsWhatTheRandomOperatorDraws) {
  struct Case {
    std::string sample, random;
    std::vector<Values> parameters;
    std::map<std::string, std::string> kwargs;
  };
  const std::vector<Case> cases = {
      {"_sample_uniform", "_random_uniform", {{-2}, {3.5}}, {{"low", "-2"}, {"high", "3.5"}}},
      {"_sample_normal", "_random_normal", {{1.5}, {0.25}}, {{"loc", "1.5"}, {"scale", "0.25"}}},
      {"_sample_exponential", "_random_exponential", {{4}}, {{"lam", "4"}}}};
  for (const Case& c : cases) {
    for (const std::string dtype : {"float32", "float64"}) {
      for (const std::string shape : {"(7,)", "(1000,)"}) {
        SCOPED_TRACE(c.sample + " " + dtype + " " + shape);
        std::map<std::string, std::string> kwargs = c.kwargs;
        kwargs["shape"] = shape;
        kwargs["dtype"] = dtype;
        SetRandomSeed(29);
        const Values want =
            testing::ToValues(RunCpu(ParseAttrs(Op::Get(c.random), kwargs), {})[0].blob());
        SetRandomSeed(29);
        const Values got = testing::ToValues(
            Sample(c.sample, c.parameters, {{"shape", shape}, {"dtype", dtype}}).blob());
        EXPECT_EQ(got, want);
      }
    }
  }
}

TEST(MultiSampleTest, ShapesTypesWriteModesAndGradients) {
  // (2, 3) parameters and shape (4,) -> (2, 3, 4); no shape -> one draw each; float32 for
  // dtype None whatever the parameters' type, as MXNet.
  const std::vector<CpuTensor> low = {CpuTensor(TShape{2, 3}, mshadow::kFloat64)};
  CpuTensor high(TShape{2, 3}, mshadow::kFloat64);
  std::fill_n(high.data<double>(), 6, 1.0);
  std::vector<TBlob> blobs = {low[0].blob(), high.blob()};
  std::vector<CpuTensor> out =
      RunCpu(ParseAttrs(Op::Get("sample_uniform"), {{"shape", "(4,)"}}), blobs);
  EXPECT_EQ(out[0].shape(), (TShape{2, 3, 4}));
  EXPECT_EQ(out[0].type_flag(), mshadow::kFloat32);
  out = RunCpu(ParseAttrs(Op::Get("_sample_uniform"), {{"dtype", "float16"}}), blobs);
  EXPECT_EQ(out[0].shape(), (TShape{2, 3}));
  EXPECT_EQ(out[0].type_flag(), mshadow::kFloat16);
  // Integer parameters are read as numbers.
  EXPECT_EQ(Sample("_sample_poisson", {{0, 0}}, {{"shape", "(3,)"}}, mshadow::kInt32).blob().Size(),
            6u);

  // kAddTo adds the draws to what is there: the same seed's draws plus 100.
  const NodeAttrs attrs = ParseAttrs(Op::Get("_sample_normal"), {{"shape", "(5,)"}});
  SetRandomSeed(8);
  const Values written = testing::ToValues(RunCpu(attrs, blobs)[0].blob());
  CpuTensor added(TShape{2, 3, 5}, mshadow::kFloat32);
  std::fill_n(added.data<float>(), 30, 100.0f);
  SetRandomSeed(8);
  std::vector<TBlob> outputs = {added.blob()};
  Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs, true), blobs, {kAddTo}, outputs);
  const Values sums = testing::ToValues(added.blob());
  for (size_t i = 0; i < sums.size(); ++i) EXPECT_NEAR(sums[i], written[i] + 100, 1e-4) << i;

  // Both parameter arrays get zero gradients.
  const testing::OpCase c{"_sample_gamma",
                          {{"shape", "(2,)"}},
                          {testing::InputSpec::WithValues(TShape{3}, {1, 2, 3}),
                           testing::InputSpec::WithValues(TShape{3}, {1, 1, 1})}};
  const std::vector<CpuTensor> grads =
      testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat32), {Values(6, 1.0)});
  EXPECT_EQ(testing::ToValues(grads[0].blob()), Values(3, 0.0));
  EXPECT_EQ(testing::ToValues(grads[1].blob()), Values(3, 0.0));
}

// MXNet 1.9.1 draws from these (a normal of negative deviation, a negative binomial of p 0:
// -2147483648) or never returns (a gamma of negative shape); each is an error here that names
// the distribution, and nothing is written.
TEST(MultiSampleTest, ParametersOutsideTheDomainAreErrors) {
  const auto error_of = [](const std::string& op, const std::vector<Values>& parameters) {
    return testing::ErrorOf([&] { Sample(op, parameters, {{"shape", "(2,)"}}); });
  };
  EXPECT_THAT(
      error_of("_sample_uniform", {{0, 3}, {1, 2}}),
      HasSubstr("_sample_uniform: distribution 1 has low 3, high 2; valid: finite low <= high"));
  EXPECT_THAT(error_of("_sample_normal", {{0, 0}, {1, -1}}),
              HasSubstr("distribution 1 has mu 0, sigma -1; valid: finite mu, sigma > 0"));
  EXPECT_THAT(
      error_of("_sample_gamma", {{-1, 1}, {1, 1}}),
      HasSubstr("distribution 0 has alpha -1, beta 1; valid: finite alpha > 0 and beta > 0"));
  EXPECT_THAT(error_of("_sample_exponential", {{1, 0}}),
              HasSubstr("distribution 1 has lam 0; valid: lam > 0"));
  EXPECT_THAT(error_of("_sample_poisson", {{NAN}}),
              HasSubstr("has lam nan; valid: finite lam >= 0"));
  EXPECT_THAT(error_of("_sample_negative_binomial", {{1, 2}, {0.5, 0}}),
              HasSubstr("distribution 1 has k 2, p 0; valid: finite k > 0 and 0 < p <= 1"));
  EXPECT_THAT(error_of("_sample_generalized_negative_binomial", {{1}, {-0.5}}),
              HasSubstr("has mu 1, alpha -0.5; valid: finite mu >= 0 and alpha >= 0"));
  // Infinities are refused too: a uniform over an infinite range has no draws, and the gamma
  // draw's rejection loop would not end for an infinite shape.
  EXPECT_THAT(error_of("_sample_uniform", {{0}, {INFINITY}}), HasSubstr("has low 0, high inf"));
  EXPECT_THAT(error_of("_sample_gamma", {{INFINITY}, {1}}), HasSubstr("has alpha inf, beta 1"));
  EXPECT_THAT(error_of("_sample_normal", {{-INFINITY}, {1}}), HasSubstr("has mu -inf, sigma 1"));

  // Nothing is written when a parameter is refused.
  CpuTensor low(TShape{2}, mshadow::kFloat32), high(TShape{2}, mshadow::kFloat32);
  low.data<float>()[1] = 5;
  CpuTensor out(TShape{2, 3}, mshadow::kFloat32);
  std::fill_n(out.data<float>(), 6, 7.0f);
  const NodeAttrs attrs = ParseAttrs(Op::Get("_sample_uniform"), {{"shape", "(3,)"}});
  std::vector<TBlob> outputs = {out.blob()};
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs, true), {low.blob(), high.blob()},
                                     {kWriteTo}, outputs);
              }),
              HasSubstr("distribution 1 has low 5, high 0"));
  EXPECT_EQ(testing::ToValues(out.blob()), Values(6, 7.0));

  // The inputs must agree in shape and type; dtype is a float type.
  EXPECT_THAT(testing::ErrorOf([] {
                const CpuTensor a(TShape{2}, mshadow::kFloat32), b(TShape{3}, mshadow::kFloat32);
                RunCpu(ParseAttrs(Op::Get("_sample_normal"), {}), {a.blob(), b.blob()});
              }),
              HasSubstr("(3,)"));
  EXPECT_THAT(testing::ErrorOf([] {
                const CpuTensor a(TShape{2}, mshadow::kFloat32), b(TShape{2}, mshadow::kFloat64);
                RunCpu(ParseAttrs(Op::Get("_sample_normal"), {}), {a.blob(), b.blob()});
              }),
              HasSubstr("float64"));
  EXPECT_THAT(testing::ErrorOf([] {
                const CpuTensor a(TShape{2}, mshadow::kBool), b(TShape{2}, mshadow::kBool);
                RunCpu(ParseAttrs(Op::Get("_sample_normal"), {}), {a.blob(), b.blob()});
              }),
              HasSubstr("the parameters are bool; valid: a number type"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("_sample_normal"), {{"dtype", "int32"}});
              }),
              HasSubstr("dtype"));
}

}  // namespace
}  // namespace ops
