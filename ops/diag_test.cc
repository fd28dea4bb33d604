// diag: MXNet 1.9.1's printed values, NumPy's diagonal and diag written out as loops over
// random data (every axis pair and order, offsets above and below), write modes, gradients,
// the diagonals and axes it refuses.
#include <array>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/testing/op_test_util.h"
#include "ops/testing/sample_values.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Ramp;
using testing::Values;

Values DiagOf(const TShape& shape, const Values& x, const std::map<std::string, std::string>& kw) {
  const OpCase c{"diag", kw, {InputSpec::WithValues(shape, x)}};
  return testing::ToValues(
      testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32))[0].blob());
}

TEST(DiagTest, MxnetsValues) {
  const TShape cube{2, 3, 4};
  EXPECT_EQ(DiagOf(cube, Ramp(24), {}), (Values{0, 16, 1, 17, 2, 18, 3, 19}));
  EXPECT_EQ(DiagOf(cube, Ramp(24), {{"k", "1"}, {"axis1", "0"}, {"axis2", "2"}}),
            (Values{1, 14, 5, 18, 9, 22}));
  EXPECT_EQ(DiagOf(cube, Ramp(24), {{"k", "-1"}, {"axis1", "-1"}, {"axis2", "-2"}}),
            (Values{1, 6, 11, 13, 18, 23}));
  Values square(25, 0);
  square[2] = 1, square[8] = 2, square[14] = 3;
  EXPECT_EQ(DiagOf(TShape{3}, {1, 2, 3}, {{"k", "2"}}), square);
  EXPECT_EQ(testing::InferOutputShapes({"diag", {{"k", "-2"}}, {InputSpec{TShape{3}}}})[0],
            (TShape{5, 5}));
}

// Element d of line (rest...) of the diagonal over axes a1, a2 of a 3-d input: the input at
// position d + max(-k, 0) on a1 and d + max(k, 0) on a2.
Values DiagonalReference(const Values& x, std::array<int, 3> dims, int a1, int a2, int k) {
  const int rest = 3 - a1 - a2;
  const int length = std::min(dims[a1] - std::max(-k, 0), dims[a2] - std::max(k, 0));
  Values out;
  for (int r = 0; r < dims[rest]; ++r) {
    for (int d = 0; d < length; ++d) {
      int at[3];
      at[rest] = r;
      at[a1] = d + std::max(-k, 0);
      at[a2] = d + std::max(k, 0);
      out.push_back(x[(at[0] * dims[1] + at[1]) * dims[2] + at[2]]);
    }
  }
  return out;
}

TEST(DiagTest, EveryAxisPairAndOffsetWithGradients) {
  for (const auto& [a1, a2] : std::vector<std::pair<int, int>>{{0, 1}, {1, 0}, {0, 2}, {2, 1}}) {
    for (const int k : {0, 2, -1}) {
      SCOPED_TRACE("axes " + std::to_string(a1) + "," + std::to_string(a2) + " k " +
                   std::to_string(k));
      const OpCase c{"diag",
                     {{"k", std::to_string(k)},
                      {"axis1", std::to_string(a1)},
                      {"axis2", std::to_string(a2 - 3)}},  // negative: counted from the end
                     {InputSpec{TShape{3, 4, 5}}}};
      testing::CheckForward(c, [&](const std::vector<Values>& in) {
        return std::vector<Values>{DiagonalReference(in[0], {3, 4, 5}, a1, a2, k)};
      });
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
  for (const int k : {0, 3, -2}) {
    SCOPED_TRACE("1-d, k " + std::to_string(k));
    const OpCase c{"diag", {{"k", std::to_string(k)}}, {InputSpec{TShape{4}}}};
    const int side = 4 + std::abs(k);
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      Values out(side * side, 0.0);
      for (int i = 0; i < 4; ++i) out[(i + std::max(-k, 0)) * side + i + std::max(k, 0)] = in[0][i];
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
}

// Lines long enough for two threads, which split the diagonal array within a line.
TEST(DiagTest, LinesSharedBetweenThreads) {
  mshadow::SetNumThreads(2);
  const OpCase c{
      "diag", {{"k", "1"}, {"axis1", "1"}, {"axis2", "2"}}, {InputSpec{TShape{3, 301, 300}}}};
  testing::CheckForward(c, [&](const std::vector<Values>& in) {
    return std::vector<Values>{DiagonalReference(in[0], {3, 301, 300}, 1, 2, 1)};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
  mshadow::SetNumThreads(0);
}

TEST(DiagTest, MissingDiagonalsAndAxesAreNamed) {
  const auto error_of = [](const TShape& shape, const std::map<std::string, std::string>& kw) {
    return testing::ErrorOf([&] { testing::InferOutputShapes({"diag", kw, {InputSpec{shape}}}); });
  };
  EXPECT_EQ(error_of(TShape{2, 3, 4}, {{"k", "3"}}),
            "diag: diagonal k = 3 of axes 0 and 1 of (2,3,4) does not exist; valid k: [-1, 2]");
  EXPECT_THAT(error_of(TShape{2, 3, 4}, {{"k", "-4"}, {"axis1", "2"}, {"axis2", "0"}}),
              HasSubstr("valid k: [-3, 1]"));
  EXPECT_THAT(error_of(TShape{2, 3}, {{"axis1", "1"}, {"axis2", "-1"}}),
              HasSubstr("axis1 1 and axis2 -1 name the same axis 1 of (2,3)"));
  EXPECT_THAT(error_of(TShape{2, 3}, {{"axis2", "2"}}),
              HasSubstr("axis2 2 is out of range for a 2-d input"));
}

}  // namespace
}  // namespace ops
