// The diagonal and triangle operators of square matrices: MXNet 1.9.1's printed values (its
// packing order of upper and lower triangles), loops over the matrices as references for every
// offset, write modes, gradients, and the shapes and offsets they refuse.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"
#include "ops/testing/sample_values.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Ramp;
using testing::Values;

Values Run1(const std::string& op, const TShape& shape, const Values& x,
            const std::map<std::string, std::string>& kw) {
  const OpCase c{op, kw, {InputSpec::WithValues(shape, x)}};
  return testing::ToValues(
      testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32))[0].blob());
}

TEST(LinalgTriangleTest, MxnetsValues) {
  const TShape square{4, 4};
  const Values a = Ramp(16);
  const auto trian = [&](int offset, bool lower) {
    return Run1("_linalg_extracttrian", square, a,
                {{"offset", std::to_string(offset)}, {"lower", lower ? "True" : "False"}});
  };
  EXPECT_EQ(trian(0, true), (Values{0, 4, 5, 8, 9, 10, 12, 13, 14, 15}));
  EXPECT_EQ(trian(0, false), (Values{0, 1, 5, 2, 6, 10, 3, 7, 11, 15}));
  EXPECT_EQ(trian(1, true), (Values{1, 2, 6, 3, 7, 11}));  // offset > 0: upper, `lower` aside
  EXPECT_EQ(trian(-1, false), (Values{4, 8, 9, 12, 13, 14}));
  EXPECT_EQ(Run1("linalg_maketrian", TShape{6}, Ramp(6, 1), {{"lower", "false"}}),
            (Values{1, 2, 4, 0, 3, 5, 0, 0, 6}));
  EXPECT_EQ(Run1("_linalg_maketrian", TShape{6}, Ramp(6, 1), {{"offset", "-1"}}),
            (Values{0, 0, 0, 0, 1, 0, 0, 0, 2, 3, 0, 0, 4, 5, 6, 0}));
  EXPECT_EQ(Run1("_linalg_extractdiag", square, a, {{"offset", "-2"}}), (Values{8, 13}));
  EXPECT_EQ(Run1("linalg_makediag", TShape{2}, {1, 2}, {{"offset", "-1"}}),
            (Values{0, 0, 0, 1, 0, 0, 0, 2, 0}));
  const Values sums = Run1("_linalg_sumlogdiag", TShape{2, 2}, {2, 1, 1, 3}, {});
  ASSERT_EQ(sums.size(), 1u);
  EXPECT_NEAR(sums[0], 1.7917595, 1e-6);
}

// (row, column) of each packed element of an n x n matrix, in packing order: the diagonal in
// order, a lower triangle row by row, an upper one column by column.
std::vector<std::pair<int, int>> PackingOrder(int n, int offset, bool diagonal, bool lower) {
  std::vector<std::pair<int, int>> order;
  if (diagonal) {
    for (int r = 0; r < n; ++r) {
      if (r + offset >= 0 && r + offset < n) order.emplace_back(r, r + offset);
    }
    return order;
  }
  lower = offset < 0 || (offset == 0 && lower);
  for (int outer = 0; outer < n; ++outer) {
    for (int inner = 0; inner < n; ++inner) {
      // lower: row `outer`, columns up to outer + offset; upper: column `outer`, rows from
      // `outer - offset` down to 0.
      if (lower && inner <= outer + offset) order.emplace_back(outer, inner);
      if (!lower && inner <= outer - offset) order.emplace_back(inner, outer);
    }
  }
  return order;
}

TEST(LinalgTriangleTest, EveryOffsetAgainstLoopsWithGradients) {
  const int n = 4, batch = 3;
  for (const bool diagonal : {true, false}) {
    for (const bool lower : {true, false}) {
      for (const int offset : {0, 1, -2, 3}) {
        if (diagonal && !lower) continue;
        SCOPED_TRACE(std::string(diagonal ? "diag" : "trian") + " offset " +
                     std::to_string(offset) + (lower ? " lower" : " upper"));
        std::map<std::string, std::string> kw{{"offset", std::to_string(offset)}};
        if (!diagonal) kw["lower"] = lower ? "1" : "0";
        const auto order = PackingOrder(n, offset, diagonal, lower);
        const int packed = static_cast<int>(order.size());
        const OpCase extract{diagonal ? "_linalg_extractdiag" : "_linalg_extracttrian",
                             kw,
                             {InputSpec{TShape{batch, n, n}}}};
        testing::CheckForward(extract, [&](const std::vector<Values>& in) {
          Values out;
          for (int b = 0; b < batch; ++b) {
            for (const auto& [r, c] : order) out.push_back(in[0][(b * n + r) * n + c]);
          }
          return std::vector<Values>{out};
        });
        const OpCase make{diagonal ? "_linalg_makediag" : "_linalg_maketrian",
                          kw,
                          {InputSpec{TShape{batch, 1, packed}}}};
        testing::CheckForward(make, [&](const std::vector<Values>& in) {
          Values out(batch * n * n, 0.0);
          for (int b = 0; b < batch; ++b) {
            for (int p = 0; p < packed; ++p) {
              out[(b * n + order[p].first) * n + order[p].second] = in[0][b * packed + p];
            }
          }
          return std::vector<Values>{out};
        });
        for (const OpCase& c : {extract, make}) {
          testing::CheckWriteModes(c);
          testing::CheckGradient(c);
        }
      }
    }
  }
}

// Triangles of 700 rows: packed indices past 2^17, where the row is found by a square root.
TEST(LinalgTriangleTest, LargeTriangleRoundTrips) {
  const int n = 700;
  for (const int offset : {0, 5, -5}) {
    const Values a = Ramp(n * n);
    const std::map<std::string, std::string> kw{{"offset", std::to_string(offset)}};
    const Values packed = Run1("_linalg_extracttrian", TShape{n, n}, a, kw);
    const int side = n - std::abs(offset);
    ASSERT_EQ(packed.size(), static_cast<size_t>(side * (side + 1) / 2));
    Values kept(n * n, 0.0);
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c) {
        if (offset <= 0 ? c <= r + offset : c >= r + offset) kept[r * n + c] = a[r * n + c];
      }
    }
    EXPECT_EQ(Run1("_linalg_maketrian", TShape{static_cast<int>(packed.size())}, packed, kw), kept)
        << "offset " << offset;
  }
}

TEST(LinalgTriangleTest, SumLogDiagAndItsGradient) {
  const OpCase c{"_linalg_sumlogdiag", {}, {InputSpec{TShape{2, 3, 3, 3}, 0.5, 2.0}}};
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    Values out;
    for (int m = 0; m < 6; ++m) {
      double sum = 0;
      for (int d = 0; d < 3; ++d) sum += std::log(in[0][m * 9 + d * 4]);
      out.push_back(sum);
    }
    return std::vector<Values>{out};
  });
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{2, 3}));
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

TEST(LinalgTriangleTest, BadShapesAndOffsetsAreNamed) {
  const auto error_of = [](const std::string& op, const TShape& shape,
                           const std::map<std::string, std::string>& kw) {
    return testing::ErrorOf([&] { testing::InferOutputShapes({op, kw, {InputSpec{shape}}}); });
  };
  EXPECT_THAT(error_of("_linalg_extractdiag", TShape{3, 4}, {}),
              HasSubstr("A must be square matrices (the last two axes), got (3,4)"));
  EXPECT_THAT(error_of("_linalg_sumlogdiag", TShape{5}, {}),
              HasSubstr("A must be square matrices (the last two axes), got (5,)"));
  EXPECT_THAT(error_of("_linalg_extractdiag", TShape{3, 3}, {{"offset", "3"}}),
              HasSubstr("offset 3 leaves nothing of 3 x 3 matrices; valid: [-2, 2]"));
  EXPECT_THAT(error_of("_linalg_extracttrian", TShape{2, 2, 2}, {{"offset", "-2"}}),
              HasSubstr("offset -2 leaves nothing of 2 x 2 matrices; valid: [-1, 1]"));
  EXPECT_THAT(error_of("_linalg_maketrian", TShape{5}, {}),
              HasSubstr("the last axis, 5, is not the size of a triangle"));
  EXPECT_THAT(error_of("_linalg_makediag", TShape{2, 0}, {}),
              HasSubstr("A must be vectors of one or more elements (the last axis), got (2,0)"));
  const NodeAttrs attrs = ParseAttrs(Op::Get("_linalg_extractdiag"), {});
  std::vector<int> in = {mshadow::kInt32}, out;
  EXPECT_EQ(testing::ErrorOf([&] { InferTypes(attrs, &in, &out); }),
            "_linalg_extractdiag: data type int32 is not supported; valid: float32, float64");
}

}  // namespace
}  // namespace ops
