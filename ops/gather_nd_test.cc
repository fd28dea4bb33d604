// gather_nd and scatter_nd against index arithmetic written out (negative and fractional
// indices, repeated places, every index type), write modes, gradients (repeated places sum),
// and the errors for indices outside their axes and shapes that do not fit.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

// data (3, 4, 5) addressed by indices (2, 2, 3): 6 columns picking (i0, i1) slabs of 5.
const TShape kArray{3, 4, 5};
const TShape kIndices{2, 2, 3};
// Row 0 indexes axis 0 (extent 3), row 1 axis 1 (extent 4): negatives, a fraction, a repeat.
const std::vector<double> kIndexValues = {0, 2,  -1, 1.7, 0, 2,        // i0
                                          3, -4, 1,  2,   3, -4};      // i1
const std::vector<double> kDistinctIndexValues = {0, 2,  -1, 1, 0, 1,  // no place twice
                                                  3, -4, 1,  2, 2, 0};

// Slab offset (in slabs) of column y.
int SlabOf(const Values& indices, int y) {
  auto wrap = [](double v, int n) {
    const int i = static_cast<int>(std::trunc(v));
    return i < 0 ? i + n : i;
  };
  return wrap(indices[y], 3) * 4 + wrap(indices[6 + y], 4);
}

Values Gather(const Values& data, const Values& indices) {
  Values out(6 * 5);
  for (int y = 0; y < 6; ++y) {
    for (int e = 0; e < 5; ++e) out[y * 5 + e] = data[SlabOf(indices, y) * 5 + e];
  }
  return out;
}

Values Scatter(const Values& slabs, const Values& indices) {
  Values out(3 * 4 * 5, 0.0);
  for (int y = 0; y < 6; ++y) {
    for (int e = 0; e < 5; ++e) out[SlabOf(indices, y) * 5 + e] = slabs[y * 5 + e];
  }
  return out;
}

InputSpec Indices(const std::vector<double>& values) {
  InputSpec spec = InputSpec::WithValues(kIndices, values);
  spec.differentiable = false;
  return spec;
}

TEST(GatherNDTest, GathersSlabsWithGradients) {
  const OpCase c{"gather_nd", {}, {InputSpec{kArray}, Indices(kIndexValues)}};
  testing::CheckForward(
      c, [](const std::vector<Values>& in) { return std::vector<Values>{Gather(in[0], in[1])}; });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);  // places picked twice sum their gradients
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{2, 3, 5}));
}

// Slabs of one element (every axis indexed), 40 columns: written and added.
TEST(GatherNDTest, GathersSingleElements) {
  Values idx;
  for (int y = 0; y < 40; ++y) idx.push_back(y % 3 - (y % 2 ? 3 : 0));  // axis 0: -3 to 2
  for (int y = 0; y < 40; ++y) idx.push_back((y * 7) % 9 - 4);          // axis 1: -4 to 4
  InputSpec indices = InputSpec::WithValues(TShape{2, 40}, idx);
  indices.differentiable = false;
  const OpCase c{"gather_nd", {}, {InputSpec{TShape{3, 5}}, indices}};
  testing::CheckForward(c, [&](const std::vector<Values>& in) {
    Values out;
    for (int y = 0; y < 40; ++y) {
      const int i0 = static_cast<int>(idx[y]), i1 = static_cast<int>(idx[40 + y]);
      out.push_back(in[0][(i0 < 0 ? i0 + 3 : i0) * 5 + (i1 < 0 ? i1 + 5 : i1)]);
    }
    return std::vector<Values>{out};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

TEST(GatherNDTest, ScattersSlabsWithGradients) {
  const OpCase c{"scatter_nd",
                 {{"shape", "(3,4,5)"}},
                 {InputSpec{TShape{2, 3, 5}}, Indices(kDistinctIndexValues)}};
  testing::CheckForward(
      c, [](const std::vector<Values>& in) { return std::vector<Values>{Scatter(in[0], in[1])}; });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

TEST(GatherNDTest, ScatterKeepsTheLastSlabOfARepeatedPlace) {
  const OpCase c{
      "scatter_nd", {{"shape", "(3,4,5)"}}, {InputSpec{TShape{2, 3, 5}}, Indices(kIndexValues)}};
  const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
  EXPECT_THAT(testing::ToValues(testing::Forward(c, in)[0].blob()),
              ElementsAreArray(Scatter(testing::ToValues(in[0].blob()), kIndexValues)));
}

// Slabs wider than the CPU's run of 1024 elements (three runs, the last partial) and slabs of
// one element: every run placed, the later of two columns picking one place kept; the write
// modes on distinct places (kAddTo adds every column's slab, a repeated place's too).
TEST(GatherNDTest, ScattersWideAndSingleElementSlabs) {
  for (const int slab : {1, 2500}) {
    SCOPED_TRACE(slab);
    auto scatter_case = [&](const std::vector<double>& places) {
      return OpCase{"scatter_nd",
                    {{"shape", "(4," + std::to_string(slab) + ")"}},
                    {InputSpec{TShape{4, slab}}, InputSpec::WithValues(TShape{1, 4}, places)}};
    };
    const std::vector<double> places = {2, 0, 2, 3};  // place 2 twice
    const OpCase c = scatter_case(places);
    const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat32);
    const Values data = testing::ToValues(in[0].blob());
    Values expected(4 * slab, 0.0);
    for (int y = 0; y < 4; ++y) {
      for (int e = 0; e < slab; ++e) expected[places[y] * slab + e] = data[y * slab + e];
    }
    EXPECT_EQ(testing::ToValues(testing::Forward(c, in)[0].blob()), expected);
    testing::CheckWriteModes(scatter_case({2, 0, 1, 3}));
  }
}

TEST(GatherNDTest, EveryIndexType) {
  const std::vector<double> whole = {0, 2, -1, 1, 0, 2, 3, -4, 1, 2, 3, -4};
  for (const int type : {mshadow::kFloat32, mshadow::kFloat64, mshadow::kInt32, mshadow::kInt64}) {
    SCOPED_TRACE(mshadow::TypeFlagName(type));
    const OpCase c{"gather_nd", {}, {InputSpec{kArray}}};
    std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat32);
    in.emplace_back(kIndices, type);
    testing::SetValues(in[1].blob(), whole);
    EXPECT_THAT(testing::ToValues(testing::Forward(c, in)[0].blob()),
                ElementsAreArray(Gather(testing::ToValues(in[0].blob()), whole)));
  }
}

std::string GatherError(const TShape& data, const TShape& indices, std::vector<double> values) {
  return testing::ErrorOf([&] {
    const OpCase c{"gather_nd", {}, {InputSpec{data}, InputSpec::WithValues(indices, values)}};
    testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32));
  });
}

TEST(GatherNDTest, ErrorsNameTheBadIndexOrShape) {
  EXPECT_THAT(GatherError(TShape{3, 4}, TShape{2, 1}, {3, 0}),
              HasSubstr("gather_nd: index 3 (row 0, column 0 of indices) is outside axis 0 of "
                        "extent 3 (valid: -3 to 2)"));
  EXPECT_THAT(GatherError(TShape{3, 4}, TShape{2, 2}, {0, 1, 2, -5}),
              HasSubstr("index -5 (row 1, column 1 of indices) is outside axis 1 of extent 4"));
  EXPECT_THAT(GatherError(TShape{3, 4}, TShape{1, 1}, {std::nan("")}),
              HasSubstr("index nan (row 0, column 0 of indices) is outside axis 0"));
  // The first bad index of a row past its first packets; fractions truncate toward zero.
  std::vector<double> many(2 * 40, 0.5);
  many[40 + 5] = -4.9;  // truncates to -4: valid
  many[40 + 33] = 4;
  many[40 + 38] = 9;
  EXPECT_THAT(GatherError(TShape{3, 4}, TShape{2, 40}, many),
              HasSubstr("index 4 (row 1, column 33 of indices) is outside axis 1"));
  many[40 + 5] = -5;
  EXPECT_THAT(GatherError(TShape{3, 4}, TShape{2, 40}, many),
              HasSubstr("index -5 (row 1, column 5 of indices)"));
  EXPECT_THAT(GatherError(TShape{3, 4}, TShape{2}, {0, 1}),
              HasSubstr("gather_nd: indices (2,) must have at least 2 axes (M, Y...)"));
  EXPECT_THAT(
      GatherError(TShape{3, 4}, TShape{3, 1}, {0, 1, 2}),
      HasSubstr("gather_nd: indices (3,1) address 3 axes of (3,4); they may address 1 to 2"));
  EXPECT_THAT(
      testing::ErrorOf([] {
        testing::InferOutputShapes(OpCase{
            "scatter_nd", {{"shape", "(3,4,5)"}}, {InputSpec{TShape{6, 5}}, InputSpec{kIndices}}});
      }),
      HasSubstr("(2,3,5)"));
  EXPECT_THAT(
      testing::ErrorOf([] {
        testing::InferOutputShapes(OpCase{"scatter_nd",
                                          {{"shape", "(2,4611686018427387904,4,0)"}},
                                          {InputSpec{TShape{1, 0}}, InputSpec{TShape{3, 1}}}});
      }),
      HasSubstr("overflows index_t"));
}

}  // namespace
}  // namespace ops
