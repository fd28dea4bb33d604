// The sampling operators: the same draws for the same seed on any thread count, and a call's
// draws different from the last; the distributions' mean and spread within a few standard
// errors on 200000 draws (fixed seeds: no flaky failures), the bounds, every type, the _like
// forms, the parameters MXNet refuses.
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
// and cosine. Seven elements are all from the block-at-a-time path; 1000 mostly from runs.
TEST(SampleTest, PacketRunsDrawWhatSingleBlocksDraw) {
  for (const std::string op : {"_random_uniform", "_random_normal", "_random_exponential"}) {
    for (const std::string dtype : {"float32", "float64"}) {
      SCOPED_TRACE(op + " " + dtype);
      SetRandomSeed(23);
      const Values few = Draw(op, {{"shape", "(7,)"}, {"dtype", dtype}});
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
  EXPECT_THAT(error_of("_random_uniform", {{"dtype", "int32"}}), HasSubstr("dtype"));
  EXPECT_THAT(error_of("_random_uniform_like", {{"shape", "(2,)"}}),
              HasSubstr("the _like forms take their input's shape and type"));
  EXPECT_THAT(testing::ErrorOf([] { RunCpu(ParseAttrs(Op::Get("_random_normal"), {}), {}); }),
              HasSubstr("shape must be given"));
}

}  // namespace
}  // namespace ops
