// _sample_multinomial: shapes and types, each distribution's frequencies (within five
// standard errors, fixed seeds), no draw of a category of probability 0, the same draws on
// any thread count, the log probabilities, the score-function gradient against its sum
// written out, write modes, and the errors for rows that are not distributions and for
// outputs that cannot hold the categories.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/backward.h"
#include "ops/random_source.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::Values;

using Kwargs = std::map<std::string, std::string>;

// The operator's outputs for probabilities of this shape and type.
std::vector<CpuTensor> Draw(const TShape& shape, const Values& p, const Kwargs& kwargs,
                            int type = mshadow::kFloat32) {
  const CpuTensor data = testing::TensorOf(shape, type, p);
  return RunCpu(ParseAttrs(Op::Get("_sample_multinomial"), kwargs), {data.blob()});
}

TEST(SampleMultinomialTest, ShapesAndTypes) {
  SetRandomSeed(1);
  const Values p = {0.5, 0.5, 0.25, 0.75, 1, 0};
  EXPECT_EQ(Draw({3, 2}, p, {})[0].shape(), (TShape{3}));
  EXPECT_EQ(Draw({3, 2}, p, {{"shape", "(4,5)"}})[0].shape(), (TShape{3, 4, 5}));
  EXPECT_EQ(Draw({6}, {0.5, 0.5, 0, 0, 0, 0}, {})[0].shape(), (TShape{1}));
  EXPECT_EQ(Draw({6}, {0.5, 0.5, 0, 0, 0, 0}, {{"shape", "(7,)"}})[0].shape(), (TShape{7}));
  const std::vector<CpuTensor> both = Draw({3, 2}, p, {{"get_prob", "True"}}, mshadow::kFloat64);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].type_flag(), mshadow::kInt32);
  EXPECT_EQ(both[1].type_flag(), mshadow::kFloat64);
  EXPECT_EQ(both[1].shape(), (TShape{3}));
  for (const std::string dtype : {"float16", "float32", "float64", "int32", "uint8"}) {
    const CpuTensor y = Draw({3, 2}, p, {{"dtype", dtype}})[0];
    EXPECT_EQ(mshadow::TypeFlagName(y.type_flag()), dtype);
    EXPECT_EQ(testing::ToValues(y.blob())[2], 0);  // row 2 can only draw category 0
  }
}

TEST(SampleMultinomialTest, FrequenciesFollowEachRow) {
  SetRandomSeed(7);
  const std::vector<Values> rows = {
      {0.1, 0.2, 0.3, 0.4, 0}, {0, 0, 1, 0, 0}, {0.5, 0, 0, 0, 0.5}, {0.01, 0.09, 0.4, 0.4, 0.1}};
  Values p;
  for (const Values& r : rows) p.insert(p.end(), r.begin(), r.end());
  const size_t n = 100000;
  for (const int type : {mshadow::kFloat32, mshadow::kFloat64, mshadow::kFloat16}) {
    SCOPED_TRACE(type);
    const std::vector<CpuTensor> out =
        Draw({4, 5}, p, {{"shape", "(100000,)"}, {"get_prob", "True"}}, type);
    const Values drawn = testing::ToValues(out[0].blob());
    const Values log_p = testing::ToValues(out[1].blob());
    for (size_t i = 0; i < rows.size(); ++i) {
      std::vector<double> count(5, 0);
      for (size_t j = i * n; j < (i + 1) * n; ++j) {
        const int s = static_cast<int>(drawn[j]);
        ASSERT_TRUE(s >= 0 && s < 5) << s;
        ASSERT_GT(rows[i][s], 0) << "row " << i << " drew category " << s;
        count[s] += 1;
        ASSERT_NEAR(log_p[j], std::log(rows[i][s]), 1e-3 * (1 + std::abs(log_p[j])));
      }
      for (int s = 0; s < 5; ++s) {
        const double q = rows[i][s];
        EXPECT_NEAR(count[s] / n, q, 5 * std::sqrt(q * (1 - q) / n) + 1e-9)
            << "row " << i << " category " << s;
      }
    }
  }
}

TEST(SampleMultinomialTest, SameDrawsOnAnyThreadCount) {
  // Enough draws for two threads; an odd count leaves half a Philox block.
  Values p(3 * 7);
  for (size_t i = 0; i < p.size(); ++i) p[i] = 1.0 / 7;
  const auto draw = [&] {
    return testing::ToValues(Draw({3, 7}, p, {{"shape", "(20001,)"}})[0].blob());
  };
  mshadow::SetNumThreads(1);
  SetRandomSeed(21);
  const Values first = draw(), second = draw();
  EXPECT_NE(first, second);  // the sequence moves on between calls
  mshadow::SetNumThreads(2);
  SetRandomSeed(21);
  EXPECT_EQ(draw(), first);
  EXPECT_EQ(draw(), second);
  mshadow::SetNumThreads(1);
}

// With get_prob the gradient of data is, row by row, the sum over its draws of the log
// probabilities' output gradient over p of the drawn category; without it zeros.
TEST(SampleMultinomialTest, ScoreFunctionGradient) {
  const testing::OpCase c{
      "_sample_multinomial", {{"shape", "(6,)"}, {"get_prob", "True"}}, {{TShape{2, 3}}}};
  const Values p = {0.2, 0.3, 0.5, 0.6, 0.4, 0};
  for (const int type : {mshadow::kFloat32, mshadow::kFloat64}) {
    SCOPED_TRACE(type);
    const std::vector<CpuTensor> inputs = {testing::TensorOf(TShape{2, 3}, type, p)};
    Values heads(12);
    for (size_t j = 0; j < heads.size(); ++j) heads[j] = 0.5 + static_cast<double>(j);
    SetRandomSeed(5);
    const Values drawn = testing::ToValues(testing::Forward(c, inputs)[0].blob());
    SetRandomSeed(5);  // the backward's own forward draws the same
    const Values grad =
        testing::ToValues(testing::Backward(c, inputs, {Values(12, 0.0), heads})[0].blob());
    Values want(6, 0.0);
    for (size_t j = 0; j < 12; ++j) {
      const size_t row = j / 6, s = static_cast<size_t>(drawn[j]);
      want[row * 3 + s] += heads[j] / p[row * 3 + s];
    }
    testing::ExpectClose(want, grad, 1e-6, 1e-6, "gradient");
  }
  // A draw that is not a category of data (a host's own outputs) is an error, not a write
  // outside the gradient.
  const NodeAttrs attrs = ParseAttrs(Op::Get("_sample_multinomial"), c.kwargs);
  const CpuTensor data = testing::TensorOf(TShape{2, 3}, mshadow::kFloat32, p);
  const CpuTensor heads_tensor(TShape{2, 6}, mshadow::kFloat32),
      grad(TShape{2, 3}, mshadow::kFloat32);
  for (const double bad : {3.0, -1.0}) {
    Values drawn(12, 0.0);
    drawn[7] = bad;
    const CpuTensor drawn_tensor = testing::TensorOf(TShape{2, 6}, mshadow::kInt32, drawn);
    const NodeAttrs backward = BackwardAttrs(attrs);
    EXPECT_THAT(testing::ErrorOf([&] {
                  Invoke<mshadow::cpu>(
                      backward, MakeCpuContext(backward, true),
                      BackwardInputs(attrs, {drawn_tensor.blob(), heads_tensor.blob()},
                                     {data.blob()}, {drawn_tensor.blob(), heads_tensor.blob()}),
                      {kWriteTo}, {grad.blob()});
                }),
                HasSubstr("draw 7 is category " + dmlc::NumberToString(bad) + "; valid: 0 to 2"));
  }
  const testing::OpCase no_prob{"_sample_multinomial", {{"shape", "(6,)"}}, {{TShape{2, 3}}}};
  const std::vector<CpuTensor> inputs = {testing::TensorOf(TShape{2, 3}, mshadow::kFloat32, p)};
  EXPECT_EQ(testing::ToValues(testing::Backward(no_prob, inputs, {Values(12, 1.0)})[0].blob()),
            Values(6, 0.0));
}

// kAddTo adds the draws (and log probabilities) to what is there: the same seed's plus 100;
// kNullOp leaves both alone.
TEST(SampleMultinomialTest, WriteModes) {
  const NodeAttrs attrs =
      ParseAttrs(Op::Get("_sample_multinomial"), {{"shape", "(5,)"}, {"get_prob", "True"}});
  const CpuTensor data = testing::TensorOf(TShape{2, 2}, mshadow::kFloat32, {0.5, 0.5, 0.25, 0.75});
  SetRandomSeed(8);
  const std::vector<CpuTensor> written = RunCpu(attrs, {data.blob()});
  for (const OpReqType req : {kAddTo, kNullOp}) {
    SCOPED_TRACE(req);
    CpuTensor drawn(TShape{2, 5}, mshadow::kInt32), log_p(TShape{2, 5}, mshadow::kFloat32);
    std::fill_n(drawn.data<int32_t>(), 10, 100);
    std::fill_n(log_p.data<float>(), 10, 100.0f);
    SetRandomSeed(8);
    Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs, true), {data.blob()}, {req, req},
                         {drawn.blob(), log_p.blob()});
    const Values got_drawn = testing::ToValues(drawn.blob()),
                 got_log_p = testing::ToValues(log_p.blob());
    const Values want_drawn = testing::ToValues(written[0].blob());
    const Values want_log_p = testing::ToValues(written[1].blob());
    for (size_t j = 0; j < 10; ++j) {
      EXPECT_EQ(got_drawn[j], req == kAddTo ? 100 + want_drawn[j] : 100) << j;
      EXPECT_FLOAT_EQ(got_log_p[j], req == kAddTo ? 100 + want_log_p[j] : 100) << j;
    }
  }
}

TEST(SampleMultinomialTest, RowsThatAreNotDistributionsAreErrors) {
  struct Bad {
    Values p;
    std::string message;
  };
  const std::vector<Bad> cases = {
      {{0.5, 0.5, 0.2, 0.7}, "distribution 1 sums to 0.8999"},
      {{0.5, 0.5, 1, 1}, "distribution 1 sums to 2"},
      {{0.5, 0.5, -0.5, 1.5}, "distribution 1 has probability -0.5 for category 0; valid: finite"},
      {{NAN, 1, 0.5, 0.5}, "distribution 0 has probability nan for category 0"},
      {{0.5, 0.5, INFINITY, 0}, "distribution 1 has probability inf"},
      {{0, 0, 0.5, 0.5}, "distribution 0 sums to 0"}};
  for (const Bad& b : cases) {
    EXPECT_THAT(testing::ErrorOf([&] { Draw({2, 2}, b.p, {}); }), HasSubstr(b.message));
  }
  // Within the tolerance of rounding: drawn.
  EXPECT_NO_THROW(Draw({2, 2}, {0.5, 0.5001, 0.3, 0.7}, {}));
  // Categories the output type cannot hold, an empty axis, integer data.
  EXPECT_THAT(testing::ErrorOf([] {
                Draw({300}, Values(300, 1.0 / 300), {{"dtype", "uint8"}});
              }),
              HasSubstr("dtype uint8 cannot hold the 300 categories"));
  EXPECT_THAT(testing::ErrorOf([] {
                Draw({2, 0}, {}, {});
              }),
              HasSubstr("has length 0; valid: at least 1"));
  EXPECT_THAT(testing::ErrorOf([] {
                Draw({2}, {0, 1}, {}, mshadow::kInt32);
              }),
              HasSubstr("data type int32 is not supported"));
}

}  // namespace
}  // namespace ops
