// The sampling operators: the same draws for the same seed on any thread count, and a call's
// draws different from the last; the distributions' mean and spread within a few standard
// errors on 200000 draws (fixed seeds: no flaky failures), the bounds, every type, the _like
// forms, the parameters MXNet refuses.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/random_source.h"
#include "ops/poisson_inversion_cpu.h"
#include "ops/rejection_draws.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::Values;

Values Draw(const std::string& op, std::map<std::string, std::string> kwargs,
            const std::vector<CpuTensor>& inputs = {}) {
  if (inputs.empty() && !kwargs.count("shape")) kwargs["shape"] = "(400,500)";
  std::vector<TBlob> blobs;
  for (const CpuTensor& t : inputs) blobs.push_back(t.blob());
  return testing::ToValues(RunCpu(ParseAttrs(Op::Get(op), kwargs), blobs)[0].blob());
}

double Mean(const Values& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / v.size();
}

double Variance(const Values& v) {
  const double m = Mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / (v.size() - 1);
}

TEST(SampleTest, SameSeedSameDrawsOnAnyThreadCount) {
  for (const std::string op :
       {"_random_uniform", "_random_normal", "_random_exponential", "_random_randint"}) {
    for (const std::string dtype : {"None", op == "_random_randint" ? "int64" : "float64"}) {
      SCOPED_TRACE(op + " " + dtype);
      std::map<std::string, std::string> kwargs{{"shape", "(1001,)"}, {"dtype", dtype}};
      if (op == "_random_randint") kwargs.insert({{"low", "-5"}, {"high", "1000000"}});
      mshadow::SetNumThreads(1);
      SetRandomSeed(11);
      const Values first = Draw(op, kwargs);
      const Values second = Draw(op, kwargs);
      EXPECT_NE(first, second);  // the sequence moves on between calls
      mshadow::SetNumThreads(2);
      SetRandomSeed(11);
      EXPECT_EQ(Draw(op, kwargs), first);
      EXPECT_EQ(Draw(op, kwargs), second);
    }
  }
  mshadow::SetNumThreads(1);
}

// The CPU draws whole runs of Philox blocks on packets and the rest a block at a time (as the
// GPU does): the two paths give element i the same value, to the rounding of their log, sine
// and cosine. 63 elements (32 blocks, the last short) are all from the block-at-a-time path;
// 1000 mostly from runs, whose first covers every lane of a run (mshadow::kPhiloxLaneBlocks).
TEST(SampleTest, PacketRunsDrawWhatSingleBlocksDraw) {
  for (const std::string op : {"_random_uniform", "_random_normal", "_random_exponential"}) {
    for (const std::string dtype : {"float32", "float64"}) {
      SCOPED_TRACE(op + " " + dtype);
      SetRandomSeed(23);
      const Values few = Draw(op, {{"shape", "(63,)"}, {"dtype", dtype}});
      SetRandomSeed(23);
      const Values many = Draw(op, {{"shape", "(1000,)"}, {"dtype", dtype}});
      for (size_t i = 0; i < few.size(); ++i) {
        EXPECT_NEAR(many[i], few[i], 1e-6 * (1 + std::abs(few[i]))) << i;
      }
      // And the tail after the last whole run against a draw that ends there.
      SetRandomSeed(23);
      const Values longer = Draw(op, {{"shape", "(1003,)"}, {"dtype", dtype}});
      for (size_t i = 0; i < many.size(); ++i) ASSERT_EQ(longer[i], many[i]) << i;
    }
  }
}

TEST(SampleTest, DistributionsMomentsAndBounds) {
  SetRandomSeed(5);
  const size_t n = 200000;
  for (const std::string dtype : {"float32", "float64", "float16"}) {
    SCOPED_TRACE(dtype);
    // uniform on [-2, 3): mean 0.5, variance 25 / 12; the standard error of the mean 0.0032.
    const Values u = Draw("_random_uniform", {{"low", "-2"}, {"high", "3"}, {"dtype", dtype}});
    ASSERT_EQ(u.size(), n);
    EXPECT_NEAR(Mean(u), 0.5, 0.02);
    EXPECT_NEAR(Variance(u), 25.0 / 12, 0.05);
    EXPECT_GE(*std::min_element(u.begin(), u.end()), -2.0);
    // float16 rounds the largest draws up to the bound itself.
    EXPECT_LE(*std::max_element(u.begin(), u.end()), 3.0);
    if (dtype != "float16") {
      EXPECT_LT(*std::max_element(u.begin(), u.end()), 3.0);
    }
    const Values g = Draw("_random_normal", {{"loc", "1.5"}, {"scale", "2"}, {"dtype", dtype}});
    EXPECT_NEAR(Mean(g), 1.5, 0.03);
    EXPECT_NEAR(Variance(g), 4.0, 0.08);
    // Within 3 deviations: 99.73%.
    const double inside =
        std::count_if(g.begin(), g.end(), [](double x) { return std::abs(x - 1.5) < 6; });
    EXPECT_NEAR(inside / n, 0.9973, 0.001);
    const Values e = Draw("_random_exponential", {{"lam", "4"}, {"dtype", dtype}});
    EXPECT_NEAR(Mean(e), 0.25, 0.005);
    EXPECT_NEAR(Variance(e), 1.0 / 16, 0.003);
    EXPECT_GE(*std::min_element(e.begin(), e.end()), 0.0);
    for (double x : e) ASSERT_TRUE(std::isfinite(x));
  }
  // randint on [-3, 4): every value, none outside, each about 1/7 of the draws.
  const Values r = Draw("_random_randint", {{"low", "-3"}, {"high", "4"}});
  for (int v = -3; v < 4; ++v) {
    EXPECT_NEAR(static_cast<double>(std::count(r.begin(), r.end(), v)) / n, 1.0 / 7, 0.005) << v;
  }
  EXPECT_EQ(std::count_if(r.begin(), r.end(), [](double x) { return x < -3 || x >= 4; }), 0);
  // A range past 32 bits.
  const Values wide =
      Draw("_random_randint", {{"low", "0"}, {"high", "10000000000"}, {"dtype", "int64"}});
  EXPECT_GT(*std::max_element(wide.begin(), wide.end()), 5e9);
}

// The draws that reject: each element's own sequence, so the same values on 1 and 2 threads,
// and a call's values differ from the last.
TEST(SampleTest, RejectionDrawsSameOnAnyThreadCount) {
  const std::map<std::string, std::map<std::string, std::string>> cases = {
      {"_random_gamma", {{"alpha", "0.7"}, {"beta", "2"}}},
      {"_random_poisson", {{"lam", "25"}}},
      {"_random_negative_binomial", {{"k", "3"}, {"p", "0.2"}}},
      {"_random_generalized_negative_binomial", {{"mu", "4"}, {"alpha", "0.3"}}}};
  for (auto [op, kwargs] : cases) {
    SCOPED_TRACE(op);
    kwargs["shape"] = "(999,)";
    kwargs["dtype"] = "float64";
    mshadow::SetNumThreads(1);
    SetRandomSeed(17);
    const Values first = Draw(op, kwargs), second = Draw(op, kwargs);
    EXPECT_NE(first, second);
    mshadow::SetNumThreads(2);
    SetRandomSeed(17);
    EXPECT_EQ(Draw(op, kwargs), first);
    EXPECT_EQ(Draw(op, kwargs), second);
  }
  mshadow::SetNumThreads(1);
}

// Mean and variance within about five standard errors of the distribution's on 200000 draws
// (fixed seeds), on both sides of the Poisson draw's switch at a mean of 10 and for gamma
// shapes below 1 (the boosted draw).
TEST(SampleTest, RejectionDrawsMoments) {
  SetRandomSeed(9);
  struct Expected {
    std::string op;
    std::map<std::string, std::string> kwargs;
    double mean, variance;
  };
  const std::vector<Expected> cases = {
      {"_random_gamma", {{"alpha", "2.5"}, {"beta", "1.5"}}, 3.75, 2.5 * 2.25},
      {"_random_gamma", {{"alpha", "0.3"}, {"beta", "1"}}, 0.3, 0.3},
      {"_random_gamma", {{"alpha", "40"}, {"beta", "0.1"}}, 4.0, 0.4},
      {"_random_poisson", {{"lam", "0.5"}}, 0.5, 0.5},
      {"_random_poisson", {{"lam", "9.9"}}, 9.9, 9.9},
      {"_random_poisson", {{"lam", "10"}}, 10, 10},
      {"_random_poisson", {{"lam", "1000"}}, 1000, 1000},
      {"_random_negative_binomial", {{"k", "3"}, {"p", "0.4"}}, 4.5, 3 * 0.6 / 0.16},
      {"_random_generalized_negative_binomial", {{"mu", "2"}, {"alpha", "0.5"}}, 2, 4},
      {"_random_generalized_negative_binomial", {{"mu", "3"}, {"alpha", "0"}}, 3, 3}};
  const double n = 200000;
  for (const Expected& e : cases) {
    SCOPED_TRACE(e.op + " mean " + std::to_string(e.mean));
    const Values d = Draw(e.op, e.kwargs);
    const double sd = std::sqrt(e.variance);
    EXPECT_NEAR(Mean(d), e.mean, 5 * sd / std::sqrt(n));
    // The variance's standard error, for kurtosis up to about 10.
    EXPECT_NEAR(Variance(d), e.variance, 5 * e.variance * std::sqrt(10 / n));
    EXPECT_GE(*std::min_element(d.begin(), d.end()), 0.0);
    if (e.op != "_random_gamma") {
      for (double x : d) ASSERT_EQ(x, std::floor(x));  // counts
    }
  }
  EXPECT_EQ(Draw("_random_negative_binomial", {{"k", "2"}, {"p", "1"}}), Values(200000, 0.0));
  EXPECT_EQ(Draw("_random_poisson", {{"lam", "0"}}), Values(200000, 0.0));
}

// Every _like form draws what its operator draws for its input's shape, from the same seed,
// in its input's type.
TEST(SampleTest, LikeFormsDrawAsTheirOperators) {
  const std::vector<std::pair<std::string, std::map<std::string, std::string>>> ops = {
      {"_random_uniform", {{"low", "-1"}}},
      {"_random_normal", {{"scale", "2"}}},
      {"_random_exponential", {{"lam", "3"}}},
      {"_random_gamma", {{"alpha", "0.7"}, {"beta", "2"}}},
      {"_random_poisson", {{"lam", "12"}}},
      {"_random_negative_binomial", {{"k", "3"}, {"p", "0.4"}}},
      {"_random_generalized_negative_binomial", {{"mu", "2"}, {"alpha", "0.5"}}}};
  for (const auto& [op, kwargs] : ops) {
    SCOPED_TRACE(op);
    const CpuTensor data(TShape{40, 50}, mshadow::kFloat64);
    SetRandomSeed(5);
    const std::vector<CpuTensor> like =
        RunCpu(ParseAttrs(Op::Get(op + "_like"), kwargs), {data.blob()});
    EXPECT_EQ(like[0].shape(), (TShape{40, 50}));
    EXPECT_EQ(like[0].type_flag(), mshadow::kFloat64);
    std::map<std::string, std::string> with_shape = kwargs;
    with_shape["shape"] = "(40,50)";
    with_shape["dtype"] = "float64";
    SetRandomSeed(5);
    const Values plain = Draw(op, with_shape);
    EXPECT_EQ(testing::ToValues(like[0].blob()), plain);
    EXPECT_NE(Mean(plain), 0.0);  // drawn, not left at zero
    const testing::OpCase c{op + "_like", kwargs, {testing::InputSpec{TShape{3, 4}}}};
    const std::vector<CpuTensor> grads =
        testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat32), {Values(12, 1.0)});
    EXPECT_EQ(testing::ToValues(grads[0].blob()), Values(12, 0.0));
  }
}

// Poisson's probabilities, value by value, against its frequencies on 200000 draws: a
// chi-square statistic below its 99.9% point, for inversion (mean 3) and PTRS (mean 25).
TEST(SampleTest, PoissonFrequencies) {
  SetRandomSeed(31);
  for (const double lam : {3.0, 25.0}) {
    const Values d = Draw("_random_poisson", {{"lam", std::to_string(lam)}});
    std::map<int, double> count;
    for (double x : d) count[static_cast<int>(x)] += 1;
    double chi2 = 0, expected_tail = d.size(), observed_tail = d.size();
    int cells = 0;
    double log_p = -lam;  // log P(0)
    for (int k = 0;; ++k) {
      if (k > 0) log_p += std::log(lam / k);
      const double expected = d.size() * std::exp(log_p);
      if (expected < 20 && k > lam) break;
      if (expected >= 20) {
        chi2 += (count[k] - expected) * (count[k] - expected) / expected;
        ++cells;
        expected_tail -= expected;
        observed_tail -= count[k];
      }
    }
    chi2 += (observed_tail - expected_tail) * (observed_tail - expected_tail) / expected_tail;
    // The 99.9% point of chi-square with `cells` degrees of freedom is below cells + 4.6
    // sqrt(cells) + 10.
    EXPECT_LT(chi2, cells + 4.6 * std::sqrt(cells) + 10)
        << "lam " << lam << ", " << cells << " cells";
  }
}

// Inversion's edges: a uniform at or below P(0) gives 0; a uniform of 1 (the largest a
// float64 output's uniforms round to) stops where the cumulative probability stops growing
// below it, instead of searching on with terms that add nothing.
TEST(SampleTest, PoissonInversionAtTheUniformsEnds) {
  struct Fixed {
    double value;
    double Next() const { return value; }
  };
  const sample::PoissonMean mean(4);
  Fixed at_zero{std::exp(-4.0)}, one{1.0}, past_one{std::nextafter(1.0, 2.0)};
  EXPECT_EQ(sample::PoissonDraw(&at_zero, mean), 0);
  const double from_one = sample::PoissonDraw(&one, mean);
  EXPECT_GE(from_one, 20);  // P(X >= 20) is below 1e-7: the search went to the tail
  EXPECT_LE(from_one, 40);
  EXPECT_EQ(sample::PoissonDraw(&past_one, mean), from_one);
  EXPECT_EQ(sample::PoissonDraw(&one, sample::PoissonMean(0)), 0);
}

// The CPU's runs of Poisson draws (the cumulative sums counted for 32 uniforms at once)
// against PoissonDraw element by element, as the GPU draws: float and double outputs, means
// on both sides of the sums' count, a length with pieces, runs and a tail, counters across
// 2^32; and the count against the search at uniforms on and beside every sum.
TEST(SampleTest, PoissonInversionRunsDrawAsEachElement) {
  struct Fixed {
    double value;
    double Next() const { return value; }
  };
  for (const double lam : {0.0, 0.5, 4.0, 9.99}) {
    SCOPED_TRACE(lam);
    const sample::PoissonMean mean(lam);
    const sample::PoissonInversionSums sums(mean);
    ASSERT_GT(sums.count, 0);
    for (int s = 0; s < sums.count; ++s) {
      for (const double u : {sums.sum[s], std::nextafter(sums.sum[s], 0.0),
                             std::nextafter(sums.sum[s], 2.0)}) {
        Fixed fixed{u};
        ASSERT_EQ(sums.Draw(u), sample::PoissonDraw(&fixed, mean)) << "u " << u;
      }
    }
    const PhiloxRange range{77, 0xffffffffull - 3000};
    const index_t n = 2 * 64 * 32 + 5 * 32 + 7;
    std::vector<float> narrow(n, -1);
    std::vector<double> wide(n, -1);
    sample::PoissonInversionOnCpu(kWriteTo, narrow.data(), n, range, sums);
    sample::PoissonInversionOnCpu(kWriteTo, wide.data(), n, range, sums);
    for (index_t i = 0; i < n; ++i) {
      sample::ElementUniforms<false> narrow_uniforms(range, i);
      sample::ElementUniforms<true> wide_uniforms(range, i);
      ASSERT_EQ(narrow[i], sample::PoissonDraw(&narrow_uniforms, mean)) << "element " << i;
      ASSERT_EQ(wide[i], sample::PoissonDraw(&wide_uniforms, mean)) << "element " << i;
    }
  }
}

TEST(SampleTest, TypesShapesAndLikeForms) {
  const NodeAttrs uniform = ParseAttrs(Op::Get("uniform"), {{"shape", "(2,3)"}});
  const std::vector<CpuTensor> out = RunCpu(uniform, {});
  EXPECT_EQ(out[0].shape(), (TShape{2, 3}));
  EXPECT_EQ(out[0].type_flag(), mshadow::kFloat32);
  EXPECT_EQ(RunCpu(ParseAttrs(Op::Get("random_randint"),
                              {{"low", "0"}, {"high", "2"}, {"shape", "(4,)"}}),
                   {})[0]
                .type_flag(),
            mshadow::kInt32);
  const CpuTensor data(TShape{7, 9}, mshadow::kFloat64);
  const std::vector<CpuTensor> like =
      RunCpu(ParseAttrs(Op::Get("_random_normal_like"), {{"loc", "3"}}), {data.blob()});
  EXPECT_EQ(like[0].shape(), (TShape{7, 9}));
  EXPECT_EQ(like[0].type_flag(), mshadow::kFloat64);
  const testing::OpCase c{"_random_uniform_like", {}, {testing::InputSpec{TShape{3, 4}}}};
  const std::vector<CpuTensor> grads =
      testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat32), {Values(12, 1.0)});
  EXPECT_EQ(testing::ToValues(grads[0].blob()), Values(12, 0.0));
}

TEST(SampleTest, ParametersMxnetRefuses) {
  const auto error_of = [](const std::string& op, const std::map<std::string, std::string>& kw) {
    return testing::ErrorOf([&] { ParseAttrs(Op::Get(op), kw); });
  };
  EXPECT_THAT(error_of("_random_uniform", {{"low", "1"}, {"high", "0"}}),
              HasSubstr("low 1 must not exceed high 0"));
  EXPECT_THAT(error_of("_random_normal", {{"scale", "-1"}}),
              HasSubstr("scale must be positive, got -1"));
  EXPECT_THAT(error_of("_random_exponential", {{"lam", "0"}}), HasSubstr("lam must be positive"));
  EXPECT_THAT(error_of("_random_randint", {{"low", "3"}, {"high", "3"}}),
              HasSubstr("low 3 must be below high 3"));
  EXPECT_THAT(error_of("_random_gamma", {{"alpha", "0"}}),
              HasSubstr("alpha and beta must be positive, got 0 and 1"));
  EXPECT_THAT(error_of("_random_poisson", {{"lam", "-1"}}), HasSubstr("lam must not be negative"));
  EXPECT_THAT(error_of("_random_negative_binomial", {{"k", "2"}, {"p", "0"}}),
              HasSubstr("k must be positive and p in (0, 1], got k 2 and p 0"));
  EXPECT_THAT(error_of("_random_generalized_negative_binomial", {{"alpha", "-0.5"}}),
              HasSubstr("mu and alpha must not be negative"));
  EXPECT_THAT(error_of("_random_uniform", {{"dtype", "int32"}}), HasSubstr("dtype"));
  EXPECT_THAT(error_of("_random_uniform_like", {{"shape", "(2,)"}}),
              HasSubstr("the _like forms take their input's shape and type"));
  EXPECT_THAT(testing::ErrorOf([] { RunCpu(ParseAttrs(Op::Get("_random_normal"), {}), {}); }),
              HasSubstr("shape must be given"));
}

}  // namespace
}  // namespace ops
