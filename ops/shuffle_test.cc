// _shuffle: a permutation of the first axis' slices (every type, 1 to 3 axes), the same for a
// seed on any thread count and a fresh one after it, every order of three slices about as
// often as the others, write modes, and empty data.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/random_source.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using testing::InputSpec;
using testing::OpCase;
using testing::Values;

// The slices of a (rows, width) array of values, as rows.
std::vector<Values> Slices(const Values& v, size_t rows) {
  const size_t width = v.size() / rows;
  std::vector<Values> slices;
  for (size_t r = 0; r < rows; ++r) {
    slices.emplace_back(v.begin() + r * width, v.begin() + (r + 1) * width);
  }
  return slices;
}

Values Shuffled(const OpCase& c, int type) {
  const std::vector<CpuTensor> inputs = testing::MakeInputs(c, type);
  return testing::ToValues(testing::Forward(c, inputs)[0].blob());
}

TEST(ShuffleTest, PermutesTheFirstAxisSlicesOfEveryType) {
  for (const TShape& shape : {TShape{1000}, TShape{50, 7}, TShape{20, 3, 4}}) {
    for (const int type : {mshadow::kFloat32, mshadow::kFloat64, mshadow::kInt32, mshadow::kInt64,
                           mshadow::kUint8}) {
      SCOPED_TRACE(std::to_string(shape.ndim()) + " axes, type " + std::to_string(type));
      const OpCase c{"_shuffle", {}, {InputSpec(shape, 0, 100)}};
      const Values in = testing::ToValues(testing::MakeInputs(c, type)[0].blob());
      const Values out = Shuffled(c, type);
      std::vector<Values> a = Slices(in, shape[0]), b = Slices(out, shape[0]);
      EXPECT_NE(a, b);  // 20! orders and more: the identity is not drawn by chance
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      EXPECT_EQ(a, b);
    }
  }
}

TEST(ShuffleTest, SameSeedSameOrderOnAnyThreadCount) {
  const OpCase c{"_shuffle", {}, {InputSpec(TShape{300, 5})}};
  SetRandomSeed(3);
  const Values first = Shuffled(c, mshadow::kFloat32);
  const Values second = Shuffled(c, mshadow::kFloat32);
  EXPECT_NE(first, second);  // a call takes fresh random numbers
  const int threads = mshadow::GetNumThreads();
  mshadow::SetNumThreads(threads == 1 ? 2 : 1);
  SetRandomSeed(3);
  EXPECT_EQ(Shuffled(c, mshadow::kFloat32), first);
  mshadow::SetNumThreads(threads);
}

// A vector's elements are swapped in place on the CPU, slices gathered: the same order.
TEST(ShuffleTest, VectorsAndSlicesTakeTheSameOrder) {
  Values v, pairs;
  for (int i = 0; i < 500; ++i) {
    v.push_back(i);
    pairs.insert(pairs.end(), {double(i), double(i)});
  }
  SetRandomSeed(4);
  const Values vector =
      Shuffled({"_shuffle", {}, {InputSpec::WithValues(TShape{500}, v)}}, mshadow::kFloat64);
  SetRandomSeed(4);
  const Values slices =
      Shuffled({"_shuffle", {}, {InputSpec::WithValues(TShape{500, 2}, pairs)}}, mshadow::kFloat64);
  for (int i = 0; i < 500; ++i) EXPECT_EQ(slices[2 * i], vector[i]) << i;
}

TEST(ShuffleTest, EveryOrderOfThreeAboutAsOften) {
  const OpCase c{"_shuffle", {}, {InputSpec::WithValues(TShape{3}, {0, 1, 2})}};
  SetRandomSeed(8);
  std::map<Values, int> seen;
  constexpr int kCalls = 6000;
  for (int i = 0; i < kCalls; ++i) ++seen[Shuffled(c, mshadow::kFloat32)];
  ASSERT_EQ(seen.size(), 6u);
  for (const auto& [order, count] : seen) {
    // 1000 expected each; 5 standard deviations (sqrt(1000 * 5 / 6) = 29) either way.
    EXPECT_NEAR(count, kCalls / 6, 145) << order[0] << order[1] << order[2];
  }
}

TEST(ShuffleTest, WriteModesAndEmptyData) {
  // One slice: the only order, so the write modes see fixed values.
  testing::CheckWriteModes({"_shuffle", {}, {InputSpec(TShape{1, 40})}});
  const OpCase empty{"_shuffle", {}, {InputSpec(TShape{0, 3})}};
  EXPECT_EQ(testing::Forward(empty, testing::MakeInputs(empty, mshadow::kFloat32))[0].shape(),
            (TShape{0, 3}));
}

}  // namespace
}  // namespace ops
