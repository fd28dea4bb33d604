// The density operators _random_pdf_*: densities and gradients as MXNet 1.9.1 gives them,
// against the definitions on random samples (several runs of samples per distribution),
// gradients against central differences, and bad parameters and shapes.
#include <cmath>
#include <functional>
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

InputSpec Given(TShape shape, Values values) {
  return InputSpec::WithValues(std::move(shape), std::move(values));
}

// The operator's density (or log density) and, from output gradients of ones, its gradients
// (sample, then the parameters) in float64 against `expected` (MXNet 1.9.1's), within 1e-6
// (gradients: also absolutely, for the sums that cancel):
// MXNet's normal density takes pi in float, and its digamma is good to about 1e-7 (ours
// match the definitions within 1e-10: PdfTest.DefinitionsOnRandomSamples).
void ExpectAsMxnet(const OpCase& c, const Values& density, const std::vector<Values>& grads) {
  const std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat64);
  const std::vector<CpuTensor> out = testing::Forward(c, inputs);
  testing::ExpectClose(density, testing::ToValues(out[0].blob()), 1e-6, 1e-12, c.op);
  const std::vector<CpuTensor> g =
      testing::Backward(c, inputs, {Values(out[0].shape().Size(), 1.0)});
  ASSERT_EQ(g.size(), grads.size());
  for (size_t i = 0; i < g.size(); ++i) {
    testing::ExpectClose(grads[i], testing::ToValues(g[i].blob()), 1e-6, 1e-6,
                         c.op + " gradient " + std::to_string(i));
  }
}

TEST(PdfTest, ContinuousAsMxnet) {
  ExpectAsMxnet({"_random_pdf_uniform",
                 {},
                 {Given(TShape{2, 3}, {1, 2, 3, 4, 5, 6}), Given(TShape{2}, {0, 1}),
                  Given(TShape{2}, {10, 8})}},
                {0.1, 0.1, 0.1, 0.14285714285714285, 0.14285714285714285, 0.14285714285714285},
                {{0, 0, 0, 0, 0, 0}, {0.03, 0.061224489795918366}, {-0.03, -0.061224489795918366}});
  const std::vector<InputSpec> normal = {Given(TShape{2, 3}, {-2, -1, 0.5, 1, 2, 3}),
                                         Given(TShape{2}, {0, 1}), Given(TShape{2}, {1, 2})};
  ExpectAsMxnet({"_random_pdf_normal", {}, normal},
                {0.05399096576197031, 0.241970721152419, 0.35206532186574446, 0.1994711374253213,
                 0.17603266093287223, 0.1209853605762095},
                {{0.10798193152394062, 0.241970721152419, -0.17603266093287223, 0.0,
                  -0.04400816523321806, -0.06049268028810475},
                 {-0.17391999174348738, 0.1045008455213228},
                 {-0.10207609411339746, -0.16574781656248774}});
  ExpectAsMxnet({"_random_pdf_normal", {{"is_log", "True"}}, normal},
                {-2.91893854711844, -1.4189385471184401, -1.0439385471184401, -1.6120857276783855,
                 -1.7370857276783855, -2.1120857276783855},
                {{2.0, 1.0, -0.5, 0.0, -0.25, -0.5}, {-2.5, 0.75}, {2.25, -0.875}});
  ExpectAsMxnet({"_random_pdf_gamma",
                 {},
                 {Given(TShape{2, 3}, {1, 2, 3, 0.5, 4, 6}), Given(TShape{2}, {5, 2.5}),
                  Given(TShape{2}, {1, 0.5})}},
                {0.015328310048810101, 0.09022352215774178, 0.16803135574154085,
                 0.03661594078897687, 0.14397591070183477, 0.0973043466592829},
                {{0.045984930146430306, 0.09022352215774178, 0.05601045191384694,
                  0.09153985197244217, -0.017996988837729346, -0.024326086664820726},
                 {-0.16490898085147443, -0.03946880524321705},
                 {0.6680465181515475, 0.21144329759294778}});
  ExpectAsMxnet({"_random_pdf_exponential",
                 {},
                 {Given(TShape{2, 3}, {1, 2, 3, 0.5, 1, 4}), Given(TShape{2}, {1, 0.25})}},
                {0.36787944117144233, 0.1353352832366127, 0.049787068367863944, 0.22062422564614886,
                 0.19470019576785122, 0.09196986029286058},
                {{-0.36787944117144233, -0.1353352832366127, -0.049787068367863944,
                  -0.055156056411537216, -0.048675048941962805, -0.022992465073215146},
                 {-0.2349094199723406, 1.3562853770650747}});
}

TEST(PdfTest, DiscreteAsMxnet) {
  ExpectAsMxnet(
      {"_random_pdf_poisson",
       {},
       {Given(TShape{2, 4}, {0, 1, 2, 3, 0, 2, 5, 7}), Given(TShape{2}, {1, 3})}},
      {0.36787944117144233, 0.36787944117144233, 0.18393972058572114, 0.06131324019524039,
       0.049787068367863944, 0.22404180765538775, 0.10081881344492458, 0.02160403145248386},
      {Values(8, 0.0), {-0.06131324019524041, -0.028449753353065}});
  const InputSpec counts = Given(TShape{2, 4}, {0, 1, 2, 3, 1, 2, 3, 4});
  ExpectAsMxnet({"_random_pdf_negative_binomial",
                 {},
                 {counts, Given(TShape{2}, {1, 1.5}), Given(TShape{2}, {0.5, 0.3})}},
                {0.5, 0.25, 0.12500000000000003, 0.0625, 0.17253260561412725, 0.15096602991236138,
                 0.12328892442842847, 0.09709002798738736},
                {Values(8, 0.0),
                 {-0.09774214844161537, -0.059149796454525935},
                 {0.49999999999999994, 0.9584000101776867}});
  ExpectAsMxnet({"_random_pdf_generalized_negative_binomial",
                 {},
                 {counts, Given(TShape{2}, {1, 1.5}), Given(TShape{2}, {1, 0.6666})}},
                {0.5, 0.25, 0.12500000000000003, 0.0625, 0.26517061893406757, 0.16573329423303051,
                 0.09667706437934565, 0.05437994232058372},
                {Values(8, 0.0),
                 {-0.12499999999999999, 0.07708611764586878},
                 {-0.027257851558384616, -0.20130525427943347}});
}

TEST(PdfTest, DirichletAsMxnet) {
  ExpectAsMxnet(
      {"_random_pdf_dirichlet",
       {},
       {Given(TShape{2, 2, 3}, {0.2, 0.3, 0.5, 0.1, 0.1, 0.8, 0.6, 0.2, 0.2, 0.3, 0.3, 0.4}),
        Given(TShape{2, 3}, {0.5, 1.5, 2, 3, 1, 2})}},
      {2.339090403701028, 3.0557749073643903, 4.32, 2.159999999999999},
      {{-5.847726009252569, 3.89848400616838, 4.678180807402056, -15.27887453682195,
        15.27887453682195, 3.8197186342054876, 14.400000000000002, 0.0, 21.6, 14.399999999999993,
        0.0, 5.399999999999997},
       {6.568654783253695, -3.2726562954657292, 2.1925107093081824, 0.26865204798689857,
        5.242646960940663, -0.6159597625634893}});
  ExpectAsMxnet(
      {"_random_pdf_dirichlet",
       {{"is_log", "1"}},
       {Given(TShape{2, 3}, {0.2, 0.3, 0.5, 0.1, 0.1, 0.8}), Given(TShape{3}, {0.5, 1.5, 2})}},
      {0.8497621374327368, 1.1170332126243903},
      {{-2.5, 1.6666666666666667, 2.0, -5.0, 5.0, 1.25},
       {2.527232214974445, -1.0673026769173892, 0.7503759347925113}});
  // One vector: a density of shape (1).
  ExpectAsMxnet({"_random_pdf_dirichlet",
                 {},
                 {Given(TShape{3}, {0.2, 0.3, 0.5}), Given(TShape{3}, {0.5, 1.5, 2})}},
                {2.339090403701028},
                {{-5.847726009252569, 3.89848400616838, 4.678180807402056},
                 {3.7663792701855043, 0.036618006194857174, 0.3279080846839978}});
}

// A distribution by its definition, with ranges for its samples and parameters.
struct Distribution {
  std::string name;
  std::function<double(double x, double a, double b)> log_density;
  double x_lo, x_hi;
  bool counts;  // samples are whole numbers in [x_lo, x_hi); no gradient in them
  double a_lo, a_hi, b_lo, b_hi;
  int params;
};

double NegativeBinomial(double x, double k, double p) {
  return std::lgamma(x + k) - std::lgamma(x + 1) - std::lgamma(k) + k * std::log(p) +
         x * std::log(1 - p);
}

const std::vector<Distribution>& Distributions() {
  static const std::vector<Distribution> kAll = {
      {"uniform", [](double, double lo, double hi) { return -std::log(hi - lo); }, -1, 1, false, -2,
       -1, 1, 2, 2},
      {"normal",
       [](double x, double mu, double s) {
         return -(x - mu) * (x - mu) / (2 * s * s) - std::log(s * std::sqrt(2 * M_PI));
       },
       -2, 2, false, -1, 1, 0.5, 2, 2},
      {"gamma",
       [](double x, double a, double b) {
         return a * std::log(b) + (a - 1) * std::log(x) - b * x - std::lgamma(a);
       },
       0.2, 4, false, 0.5, 3, 0.5, 2, 2},
      {"exponential", [](double x, double lam, double) { return std::log(lam) - lam * x; }, 0.1, 3,
       false, 0.5, 2, 0, 0, 1},
      {"poisson",
       [](double x, double lam, double) { return x * std::log(lam) - std::lgamma(x + 1) - lam; }, 0,
       8, true, 0.5, 4, 0, 0, 1},
      {"negative_binomial", NegativeBinomial, 0, 8, true, 0.5, 3, 0.2, 0.8, 2},
      {"generalized_negative_binomial",
       [](double x, double mu, double alpha) {
         return NegativeBinomial(x, 1 / alpha, 1 / (mu * alpha + 1));
       },
       0, 8, true, 0.5, 3, 0.2, 1.5, 2},
  };
  return kAll;
}

// sample (3, 2, per_dist), parameters (3, 2).
OpCase RandomCase(const Distribution& d, index_t per_dist, bool is_log) {
  InputSpec sample(TShape{3, 2, per_dist}, d.x_lo, d.x_hi);
  sample.integer = d.counts;
  sample.differentiable = !d.counts;
  OpCase c{"_random_pdf_" + d.name,
           {{"is_log", is_log ? "True" : "False"}},
           {sample, InputSpec(TShape{3, 2}, d.a_lo, d.a_hi)}};
  if (d.params == 2) c.inputs.push_back(InputSpec(TShape{3, 2}, d.b_lo, d.b_hi));
  return c;
}

TEST(PdfTest, DefinitionsOnRandomSamples) {
  for (const Distribution& d : Distributions()) {
    for (const bool is_log : {false, true}) {
      // 600 samples a distribution: three runs of them on the CPU.
      for (const index_t per_dist : {1, 5, 600}) {
        SCOPED_TRACE(d.name + (is_log ? " log" : "") + " per_dist " + std::to_string(per_dist));
        const OpCase c = RandomCase(d, per_dist, is_log);
        testing::CheckForward(
            c,
            [&](const std::vector<Values>& in) {
              Values out;
              for (size_t i = 0; i < in[0].size(); ++i) {
                const size_t dist = i / per_dist;
                const double lp = d.log_density(in[0][i], in[1][dist], in[d.params][dist]);
                out.push_back(is_log ? lp : std::exp(lp));
              }
              return std::vector<Values>{out};
            },
            1e-10, 1e-4);
        testing::CheckWriteModes(c);
        if (per_dist != 600) testing::CheckGradient(c, 1e-5, 1e-8);
      }
    }
  }
}

TEST(PdfTest, DiscreteAndUniformSampleGradientsAreZero) {
  for (const Distribution& d : Distributions()) {
    if (!d.counts && d.name != "uniform") continue;
    SCOPED_TRACE(d.name);
    const OpCase c = RandomCase(d, 4, false);
    const std::vector<CpuTensor> g =
        testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat64), {Values(24, 1.0)});
    EXPECT_EQ(testing::ToValues(g[0].blob()), Values(24, 0.0));
  }
}

// log p(x) of Dirichlet vectors x (k each) under alpha (one k-vector).
double DirichletLogDensity(const double* x, const double* alpha, int k) {
  double sum = 0, lp = 0;
  for (int j = 0; j < k; ++j) {
    sum += alpha[j];
    lp += (alpha[j] - 1) * std::log(x[j]) - std::lgamma(alpha[j]);
  }
  return lp + std::lgamma(sum);
}

TEST(PdfTest, DirichletDefinitionOnRandomSamples) {
  constexpr int kK = 4;
  for (const bool is_log : {false, true}) {
    for (const index_t per_dist : {3, 300}) {
      SCOPED_TRACE(std::string(is_log ? "log" : "") + " per_dist " + std::to_string(per_dist));
      const OpCase c{
          "_random_pdf_dirichlet",
          {{"is_log", is_log ? "True" : "False"}},
          {InputSpec(TShape{2, per_dist, kK}, 0.1, 1), InputSpec(TShape{2, kK}, 0.5, 3)}};
      testing::CheckForward(
          c,
          [&](const std::vector<Values>& in) {
            Values out;
            for (size_t i = 0; i < in[0].size() / kK; ++i) {
              const double lp = DirichletLogDensity(&in[0][i * kK], &in[1][i / per_dist * kK], kK);
              out.push_back(is_log ? lp : std::exp(lp));
            }
            return std::vector<Values>{out};
          },
          1e-10, 1e-4);
      testing::CheckWriteModes(c);
      if (per_dist == 3) testing::CheckGradient(c, 1e-5, 1e-8);
    }
  }
}

TEST(PdfTest, NoSamplesGiveZeroParameterGradients) {
  const OpCase c{"_random_pdf_normal",
                 {},
                 {InputSpec(TShape{3, 0}), InputSpec(TShape{3}), InputSpec(TShape{3}, 1, 2)}};
  const std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat64);
  EXPECT_EQ(testing::Forward(c, inputs)[0].shape(), (TShape{3, 0}));
  const std::vector<CpuTensor> g = testing::Backward(c, inputs, {Values()});
  EXPECT_EQ(testing::ToValues(g[1].blob()), Values(3, 0.0));
  EXPECT_EQ(testing::ToValues(g[2].blob()), Values(3, 0.0));
}

std::string ForwardError(const std::string& op, const std::vector<InputSpec>& inputs) {
  return testing::ErrorOf([&] {
    const OpCase c{op, {}, inputs};
    testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32));
  });
}

TEST(PdfTest, ParametersOutsideTheDomainAreErrors) {
  const InputSpec sample(TShape{3, 2});
  EXPECT_THAT(ForwardError("_random_pdf_normal",
                           {sample, Given(TShape{3}, {0, 1, 2}), Given(TShape{3}, {1, 0, 1})}),
              HasSubstr("distribution 1 has mu 1, sigma 0; valid: finite mu, finite sigma > 0"));
  EXPECT_THAT(ForwardError("_random_pdf_negative_binomial",
                           {sample, Given(TShape{3}, {1, 1, 1}), Given(TShape{3}, {0.5, 0.5, 1})}),
              HasSubstr("distribution 2 has k 1, p 1; valid: finite k > 0 and 0 < p < 1"));
  EXPECT_THAT(ForwardError("_random_pdf_uniform",
                           {sample, Given(TShape{3}, {0, 1, 2}), Given(TShape{3}, {1, 1, 3})}),
              HasSubstr("distribution 1 has low 1, high 1; valid: finite low < high"));
  EXPECT_THAT(ForwardError("_random_pdf_poisson", {sample, Given(TShape{3}, {1, -1, 1})}),
              HasSubstr("distribution 1 has lam -1; valid: finite lam > 0"));
  EXPECT_THAT(ForwardError("_random_pdf_dirichlet",
                           {InputSpec(TShape{2, 3}, 0.1, 1), Given(TShape{3}, {1, 2, 0})}),
              HasSubstr("distribution 2 has alpha 0; valid: finite alpha > 0"));
}

TEST(PdfTest, BadShapesAreErrors) {
  const auto shapes = [](const std::string& op, const std::vector<TShape>& in) {
    return testing::ErrorOf([&] {
      std::vector<InputSpec> specs(in.begin(), in.end());
      testing::InferOutputShapes({op, {}, specs});
    });
  };
  EXPECT_THAT(shapes("_random_pdf_normal", {TShape{2, 4, 5}, TShape{2, 3}, TShape{2, 3}}),
              HasSubstr("_random_pdf_normal: the parameters' shape (2,3) must be the leading "
                        "axes of the sample's (2,4,5)"));
  EXPECT_THAT(shapes("_random_pdf_gamma", {TShape{2, 4}, TShape{2}, TShape{3}}),
              HasSubstr("the parameters' shapes (2,) and (3,) differ"));
  EXPECT_THAT(shapes("_random_pdf_exponential", {TShape{2}, TShape{2, 1}}),
              HasSubstr("(2,1) must be the leading axes of the sample's (2,)"));
  EXPECT_THAT(shapes("_random_pdf_dirichlet", {TShape{2, 5, 4}, TShape{2, 3}}),
              HasSubstr("alpha (2,3) must be (2,4): the sample's first 1 axes, then its last"));
  EXPECT_THAT(shapes("_random_pdf_dirichlet", {TShape{2, 5, 4}, TShape{2, 5, 3, 4}}),
              HasSubstr("alpha (2,5,3,4) must have 1 to 3 axes"));
  EXPECT_THAT(shapes("_random_pdf_dirichlet", {TShape{2, 0}, TShape{0}}),
              HasSubstr("vectors of length 0; valid: k >= 1"));
  EXPECT_THAT(shapes("_random_pdf_dirichlet", {TShape{2, 3}, TShape{4}}),
              HasSubstr("alpha (4,) must be (3,): the sample's first 0 axes"));
}

}  // namespace
}  // namespace ops
