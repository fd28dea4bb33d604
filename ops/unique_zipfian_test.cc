// _sample_unique_zipfian: distinct classes in range in every row, tries counted, the same rows
// for a seed on any thread count, the classes' frequencies (one draw a row) against the
// distribution MXNet's kernel draws, every class when a row asks for all, and bad shapes.
#include <cmath>
#include <map>
#include <set>
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
using testing::OpCase;
using testing::Values;

std::vector<Values> Draw(int range_max, int batch, int num_sampled) {
  const OpCase c{"_sample_unique_zipfian",
                 {{"range_max", std::to_string(range_max)},
                  {"shape", "(" + std::to_string(batch) + "," + std::to_string(num_sampled) + ")"}},
                 {}};
  std::vector<Values> out;
  for (const CpuTensor& t : testing::Forward(c, {})) out.push_back(testing::ToValues(t.blob()));
  return out;
}

TEST(UniqueZipfianTest, DistinctClassesInRangeWithTheirTries) {
  SetRandomSeed(2);
  const std::vector<Values> out = Draw(50, 30, 20);
  ASSERT_EQ(out[0].size(), 600u);
  ASSERT_EQ(out[1].size(), 30u);
  for (int row = 0; row < 30; ++row) {
    const std::set<double> classes(out[0].begin() + row * 20, out[0].begin() + (row + 1) * 20);
    EXPECT_EQ(classes.size(), 20u) << "row " << row;
    EXPECT_GE(*classes.begin(), 0);
    EXPECT_LT(*classes.rbegin(), 50);
    EXPECT_GE(out[1][row], 20);  // a repeat costs a try
  }
  // Asking for every class gives every class.
  const std::vector<Values> all = Draw(7, 3, 7);
  for (int row = 0; row < 3; ++row) {
    EXPECT_EQ(std::set<double>(all[0].begin() + row * 7, all[0].begin() + (row + 1) * 7).size(),
              7u);
  }
}

TEST(UniqueZipfianTest, SameSeedSameRowsOnAnyThreadCount) {
  SetRandomSeed(6);
  const std::vector<Values> first = Draw(1000, 64, 100);
  EXPECT_NE(Draw(1000, 64, 100), first);  // a call takes fresh random numbers
  const int threads = mshadow::GetNumThreads();
  mshadow::SetNumThreads(threads == 1 ? 2 : 1);
  SetRandomSeed(6);
  EXPECT_EQ(Draw(1000, 64, 100), first);
  mshadow::SetNumThreads(threads);
}

// One draw a row: class v has probability (log(min(v + 1.5, R)) - log(max(v + 0.5, 1))) /
// log(R), round(exp(u log R)) - 1 for uniform u in [0, 1).
TEST(UniqueZipfianTest, FrequenciesAsTheLogUniformDraw) {
  constexpr int kRange = 20, kRows = 40000;
  SetRandomSeed(12);
  const std::vector<Values> out = Draw(kRange, kRows, 1);
  std::map<int, int> count;
  for (double v : out[0]) ++count[static_cast<int>(v)];
  for (int v : {0, 1, 2, 5, 19}) {
    const double p =
        (std::log(std::min(v + 1.5, double(kRange))) - std::log(std::max(v + 0.5, 1.0))) /
        std::log(double(kRange));
    const double sd = std::sqrt(kRows * p * (1 - p));
    EXPECT_NEAR(count[v], kRows * p, 5 * sd) << "class " << v;
  }
  EXPECT_EQ(out[1], Values(kRows, 1.0));  // one try each: nothing to repeat
}

TEST(UniqueZipfianTest, BadShapesAreErrors) {
  const auto parse = [](std::map<std::string, std::string> kwargs) {
    return testing::ErrorOf([&] { ParseAttrs(Op::Get("_sample_unique_zipfian"), kwargs); });
  };
  EXPECT_THAT(parse({{"range_max", "5"}, {"shape", "(2,6)"}}),
              HasSubstr("shape (2,6) asks for 6 distinct classes of range_max 5; valid: "
                        "num_sampled <= 5"));
  EXPECT_THAT(parse({{"range_max", "5"}, {"shape", "(4,)"}}),
              HasSubstr("shape (4,); valid: (batch, num_sampled)"));
  EXPECT_THAT(parse({{"range_max", "0"}, {"shape", "(1,1)"}}), HasSubstr("range_max"));
  // Every one of 100000 classes: the rarest come about once in a million draws each; the row
  // gives up (a fixed seed: the same draws every run).
  SetRandomSeed(1);
  EXPECT_THAT(testing::ErrorOf([] { Draw(100000, 1, 100000); }),
              HasSubstr("_sample_unique_zipfian: row 0 drew 10100000 times without finding "
                        "100000 distinct classes of range_max 100000; ask for fewer"));
}

}  // namespace
}  // namespace ops
