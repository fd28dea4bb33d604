// _histogram: counts and edges as MXNet 1.9.1 gives them (equal bins and given edges), the
// counts of many chunks of data against the edges' definition, write modes, bad parameters and
// bad edges.
#include <cmath>
#include <map>
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

std::vector<Values> Outputs(const OpCase& c, int type = mshadow::kFloat32) {
  std::vector<Values> values;
  for (const CpuTensor& t : testing::Forward(c, testing::MakeInputs(c, type))) {
    values.push_back(testing::ToValues(t.blob()));
  }
  return values;
}

TEST(HistogramTest, EqualBinsAndGivenEdgesAsMxnet) {
  const InputSpec data = InputSpec::WithValues(TShape{10}, {0, 1, 2, 2.5, 3, 4, 5, -1, NAN, 10});
  // mx.nd._internal._histogram(data, bin_cnt=5, range=(0,5)): 5 lands in the last bin.
  const OpCase equal{"_histogram", {{"bin_cnt", "5"}, {"range", "(0,5)"}}, {data}};
  for (const int type : {mshadow::kFloat32, mshadow::kFloat64}) {
    const std::vector<Values> out = Outputs(equal, type);
    EXPECT_EQ(out[0], (Values{1, 1, 2, 1, 2}));
    EXPECT_EQ(out[1], (Values{0, 1, 2, 3, 4, 5}));
  }
  EXPECT_EQ(
      testing::Forward(equal, testing::MakeInputs(equal, mshadow::kFloat32))[0].blob().type_flag_,
      mshadow::kInt64);
  // With bins [0, 1, 3, 5]: [1, 3, 3].
  const OpCase given{"_histogram", {}, {data, InputSpec::WithValues(TShape{4}, {0, 1, 3, 5})}};
  EXPECT_EQ(Outputs(given), (std::vector<Values>{{1, 3, 3}, {0, 1, 3, 5}}));
  // MXNet's documented example: [[0, 1], [2, 2], [3, 4]] over [0, 2.1, 3] is [4, 1].
  const OpCase documented{"_histogram",
                          {},
                          {InputSpec::WithValues(TShape{3, 2}, {0, 1, 2, 2, 3, 4}),
                           InputSpec::WithValues(TShape{3}, {0, 2.1, 3})}};
  EXPECT_EQ(Outputs(documented)[0], (Values{4, 1}));
  // A range of one point is widened by 0.5 each way.
  const OpCase point{"_histogram",
                     {{"bin_cnt", "2"}, {"range", "(2,2)"}},
                     {InputSpec::WithValues(TShape{3}, {1.6, 2, 2.5})}};
  EXPECT_EQ(Outputs(point), (std::vector<Values>{{1, 2}, {1.5, 2, 2.5}}));
}

// The number of x in each [edges[i], edges[i + 1]) (the last closed).
Values CountsBetween(const Values& x, const Values& edges) {
  const size_t bins = edges.size() - 1;
  Values counts(bins, 0.0);
  for (double v : x) {
    for (size_t i = 0; i < bins; ++i) {
      if (v >= edges[i] && (v < edges[i + 1] || (i == bins - 1 && v == edges[bins]))) {
        ++counts[i];
        break;
      }
    }
  }
  return counts;
}

TEST(HistogramTest, ManyChunksCountAsTheEdgesSay) {
  // 150000 elements: three of the CPU's chunks; some outside the range.
  const OpCase equal{"_histogram",
                     {{"bin_cnt", "7"}, {"range", "(0,1)"}},
                     {InputSpec(TShape{3, 50000}, -0.2, 1.2)}};
  InputSpec edges = InputSpec::WithValues(TShape{5}, {-0.5, 0, 0.25, 0.25, 0.9});
  edges.differentiable = false;
  const OpCase given{"_histogram", {}, {InputSpec(TShape{3, 50000}, -1, 1), edges}};
  for (const OpCase& c : {equal, given}) {
    for (const int type : {mshadow::kFloat32, mshadow::kFloat64}) {
      const std::vector<CpuTensor> inputs = testing::MakeInputs(c, type);
      const std::vector<CpuTensor> out = testing::Forward(c, inputs);
      const Values edge_values = testing::ToValues(out[1].blob());
      EXPECT_EQ(testing::ToValues(out[0].blob()),
                CountsBetween(testing::ToValues(inputs[0].blob()), edge_values));
    }
    testing::CheckWriteModes(c);
  }
}

TEST(HistogramTest, BadParametersAndEdgesAreErrors) {
  const auto parse = [](std::map<std::string, std::string> kwargs) {
    return testing::ErrorOf([&] { ParseAttrs(Op::Get("_histogram"), kwargs); });
  };
  EXPECT_THAT(parse({{"bin_cnt", "3"}}),
              HasSubstr("bin_cnt and range come together (equal bins over range) or not at all "
                        "(the edges as the input bins); got only bin_cnt"));
  EXPECT_THAT(parse({{"range", "(0,1)"}}), HasSubstr("got only range"));
  EXPECT_THAT(parse({{"bin_cnt", "0"}, {"range", "(0,1)"}}),
              HasSubstr("bin_cnt 0; valid: at least 1 bin"));
  EXPECT_THAT(parse({{"bin_cnt", "2"}, {"range", "(1,0)"}}),
              HasSubstr("range (1,0); valid: (lower, upper), finite, lower <= upper"));
  EXPECT_THAT(parse({{"bin_cnt", "2"}, {"range", "(0,1,2)"}}), HasSubstr("range (0,1,2)"));
  const auto run = [](const Values& edges) {
    return testing::ErrorOf([&] {
      const OpCase c{"_histogram",
                     {},
                     {InputSpec(TShape{4}),
                      InputSpec::WithValues(TShape{static_cast<index_t>(edges.size())}, edges)}};
      testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32));
    });
  };
  EXPECT_THAT(run({0, 2, 1}), HasSubstr("_histogram: bins edge 2 (1) is below edge 1 (2); valid: "
                                        "non-decreasing edges, none NaN"));
  EXPECT_THAT(run({0, NAN}), HasSubstr("bins edge 1 (nan)"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    {"_histogram", {}, {InputSpec(TShape{4}), InputSpec(TShape{1})}});
              }),
              HasSubstr("_histogram: bins (1,) must be a vector of at least 2 edges"));
}

}  // namespace
}  // namespace ops
