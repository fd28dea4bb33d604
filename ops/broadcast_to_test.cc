// broadcast_to, broadcast_like, broadcast_axis, tile and repeat: shapes as MXNet 1.9.1 gives them,
// values against index arithmetic written out, write modes, gradients, bad parameters.
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

TShape OutShape(const std::string& op, const std::map<std::string, std::string>& kwargs,
                std::vector<TShape> inputs) {
  OpCase c{op, kwargs, {}};
  for (const TShape& s : inputs) c.inputs.push_back(InputSpec(s));
  return testing::InferOutputShapes(c)[0];
}

TEST(BroadcastToTest, ShapesAsMxnet) {
  EXPECT_EQ(OutShape("broadcast_to", {{"shape", "(4,0)"}}, {TShape{1, 3}}), (TShape{4, 3}));
  EXPECT_EQ(OutShape("broadcast_like", {}, {TShape{1, 3}, TShape{5, 3}}), (TShape{5, 3}));
  EXPECT_EQ(OutShape("broadcast_like", {{"lhs_axes", "(0,2)"}, {"rhs_axes", "(1,0)"}},
                     {TShape{1, 3, 1}, TShape{7, 5, 4}}),
            (TShape{5, 3, 7}));
  EXPECT_EQ(
      OutShape("broadcast_axis", {{"axis", "(0,2)"}, {"size", "(2,4)"}}, {TShape{1, 2, 1, 3}}),
      (TShape{2, 2, 4, 3}));
  EXPECT_EQ(OutShape("broadcast_axes", {{"axis", "-1"}, {"size", "5"}}, {TShape{3, 1}}),
            (TShape{3, 5}));
  EXPECT_EQ(OutShape("broadcast_axis", {}, {TShape{1, 3}}), (TShape{1, 3}));
  EXPECT_EQ(OutShape("tile", {{"reps", "(2,)"}}, {TShape{2, 3}}), (TShape{2, 6}));
  EXPECT_EQ(OutShape("tile", {{"reps", "(2,1,2)"}}, {TShape{2, 3}}), (TShape{2, 2, 6}));
  EXPECT_EQ(OutShape("repeat", {{"repeats", "2"}}, {TShape{2, 3}}), (TShape{12}));
  EXPECT_EQ(OutShape("repeat", {{"repeats", "2"}, {"axis", "-1"}}, {TShape{2, 3}}), (TShape{2, 6}));
}

// Outputs large enough for the threads, rows that are copies (tile) and fills (repeat along
// the last axis, broadcast_to along columns), on 1, 2 and 3 threads.
TEST(BroadcastToTest, LargeOutputsOnThreads) {
  // (300, 70) tiled (2, 3): element (i, j) of (600, 210) is input (i % 300, j % 70).
  const OpCase tile{"tile", {{"reps", "(2,3)"}}, {InputSpec(TShape{300, 70})}};
  // (700, 90) repeated 5 times along axis 1: element (i, j) of (700, 450) is input (i, j / 5).
  const OpCase repeat{"repeat", {{"repeats", "5"}, {"axis", "1"}}, {InputSpec(TShape{700, 90})}};
  // (5000, 1) to (5000, 20): element (i, j) is input i.
  const OpCase column{"broadcast_to", {{"shape", "(5000,20)"}}, {InputSpec(TShape{5000, 1})}};
  for (const int threads : {1, 2, 3}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    mshadow::SetNumThreads(threads);
    testing::CheckForward(tile, [](const std::vector<Values>& in) {
      Values out;
      for (int i = 0; i < 600; ++i)
        for (int j = 0; j < 210; ++j) out.push_back(in[0][(i % 300) * 70 + j % 70]);
      return std::vector<Values>{out};
    });
    testing::CheckForward(repeat, [](const std::vector<Values>& in) {
      Values out;
      for (int i = 0; i < 700; ++i)
        for (int j = 0; j < 450; ++j) out.push_back(in[0][i * 90 + j / 5]);
      return std::vector<Values>{out};
    });
    testing::CheckForward(column, [](const std::vector<Values>& in) {
      Values out;
      for (int i = 0; i < 5000; ++i) out.insert(out.end(), 20, in[0][i]);
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(repeat);
  }
  mshadow::SetNumThreads(0);
}

// Each element of a row repeated 1 to 17 times along the last axis (a row of 37 elements, not
// a whole number of the packets the CPU fills, and rows of 4 to 8 elements), outputs in float
// and double, added to as well as written.
TEST(BroadcastToTest, RepeatEachElementAlongTheLastAxis) {
  for (const TShape& shape : {TShape{3, 37}, TShape{5, 4}, TShape{2, 8}}) {
    for (int r = 1; r <= 17; ++r) {
      SCOPED_TRACE("repeats=" + std::to_string(r));
      const OpCase repeat{
          "repeat", {{"repeats", std::to_string(r)}, {"axis", "-1"}}, {InputSpec(shape)}};
      testing::CheckForward(repeat, [&](const std::vector<Values>& in) {
        Values out;
        for (const double v : in[0]) out.insert(out.end(), r, v);
        return std::vector<Values>{out};
      });
      testing::CheckWriteModes(repeat);
    }
  }
}

TEST(BroadcastToTest, ValuesWriteModesAndGradients) {
  // (2,1,3) -> (2,4,3): element (i, j, k) is input (i, 0, k).
  const OpCase to{"broadcast_to", {{"shape", "(2,4,3)"}}, {InputSpec(TShape{2, 1, 3})}};
  testing::CheckForward(to, [](const std::vector<Values>& in) {
    Values out;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 3; ++k) out.push_back(in[0][i * 3 + k]);
    return std::vector<Values>{out};
  });
  // tile (2,3) by (2,2): element (i, j) of (4,6) is input (i % 2, j % 3).
  const OpCase tile{"tile", {{"reps", "(2,2)"}}, {InputSpec(TShape{2, 3})}};
  testing::CheckForward(tile, [](const std::vector<Values>& in) {
    Values out;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 6; ++j) out.push_back(in[0][(i % 2) * 3 + j % 3]);
    return std::vector<Values>{out};
  });
  // repeat (2,3) twice along axis 0: row i of (4,3) is input row i / 2; flattened: element
  // i is input element i / 3.
  const OpCase rows{"repeat", {{"repeats", "2"}, {"axis", "0"}}, {InputSpec(TShape{2, 3})}};
  testing::CheckForward(rows, [](const std::vector<Values>& in) {
    Values out;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 3; ++j) out.push_back(in[0][(i / 2) * 3 + j]);
    return std::vector<Values>{out};
  });
  const OpCase flat{"repeat", {{"repeats", "3"}}, {InputSpec(TShape{2, 2})}};
  testing::CheckForward(flat, [](const std::vector<Values>& in) {
    Values out;
    for (int i = 0; i < 12; ++i) out.push_back(in[0][i / 3]);
    return std::vector<Values>{out};
  });
  const OpCase like{"broadcast_like", {}, {InputSpec(TShape{3, 1}), InputSpec(TShape{3, 5})}};
  testing::CheckForward(like, [](const std::vector<Values>& in) {
    Values out;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) out.push_back(in[0][i]);
    return std::vector<Values>{out};
  });
  // broadcast_axis (1,2,1,3) along axes 0 and 2 to (2,2,4,3): element (a, i, b, k) is input
  // (0, i, 0, k).
  const OpCase axes{
      "broadcast_axis", {{"axis", "(0,2)"}, {"size", "(2,4)"}}, {InputSpec(TShape{1, 2, 1, 3})}};
  testing::CheckForward(axes, [](const std::vector<Values>& in) {
    Values out;
    for (int a = 0; a < 2; ++a)
      for (int i = 0; i < 2; ++i)
        for (int b = 0; b < 4; ++b)
          for (int k = 0; k < 3; ++k) out.push_back(in[0][i * 3 + k]);
    return std::vector<Values>{out};
  });
  const OpCase no_copy{"broadcast_to", {{"shape", "(0,0)"}}, {InputSpec(TShape{2, 3})}};
  const OpCase tile_3d{"tile", {{"reps", "(3,1,2,2)"}}, {InputSpec(TShape{2, 1, 3})}};
  for (const OpCase& c : {to, tile, rows, flat, like, axes, no_copy, tile_3d}) {
    SCOPED_TRACE(c.op);
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
}

TEST(BroadcastToTest, BadShapesAndParametersAreNamed) {
  EXPECT_THAT(testing::ErrorOf([] { OutShape("broadcast_to", {{"shape", "(4,3)"}}, {TShape{2, 3}}); }),
              HasSubstr("cannot broadcast (2,3) to shape (4,3): axis 0 has extent 2, neither 1 nor 4"));
  EXPECT_THAT(testing::ErrorOf([] { OutShape("broadcast_to", {{"shape", "(4,3)"}}, {TShape{3}}); }),
              HasSubstr("cannot broadcast (3,) to shape (4,3): the ranks differ"));
  EXPECT_THAT(testing::ErrorOf([] { OutShape("tile", {{"reps", "(2,0)"}}, {TShape{3}}); }),
              HasSubstr("reps (2,0) must be at least 1 each"));
  EXPECT_THAT(testing::ErrorOf([] { ParseAttrs(Op::Get("repeat"), {{"repeats", "0"}}); }),
              HasSubstr("repeats"));
  EXPECT_THAT(testing::ErrorOf([] { OutShape("repeat", {{"repeats", "2"}, {"axis", "2"}}, {TShape{2, 3}}); }),
              HasSubstr("axis"));
  EXPECT_THAT(testing::ErrorOf([] {
                OutShape("broadcast_like", {{"lhs_axes", "(0,)"}}, {TShape{1, 3}, TShape{4, 3}});
              }),
              HasSubstr("lhs_axes and rhs_axes must be given together"));
  const auto axis_error = [](const std::string& axis, const std::string& size) {
    return testing::ErrorOf([&] {
      OutShape("broadcast_axis", {{"axis", axis}, {"size", size}}, {TShape{1, 2, 1}});
    });
  };
  EXPECT_EQ(axis_error("(0,2)", "(2,)"),
            "broadcast_axis: axis (0,2) and size (2,) must be as long");
  EXPECT_THAT(axis_error("(1,)", "(3,)"),
              HasSubstr("axis 1 of (1,2,1) has extent 2; only axes of extent 1 broadcast"));
  EXPECT_THAT(axis_error("(0,-3)", "(2,3)"), HasSubstr("axis -3 of (1,2,1) is named twice"));
  EXPECT_THAT(axis_error("(3,)", "(2,)"), HasSubstr("axis 3 is out of range for a 3-d input"));
  EXPECT_THAT(axis_error("(2,)", "(0,)"), HasSubstr("size 0 for axis 2 must be at least 1"));
  // Found by //ops:invoke_fuzz: an empty axis tiled a huge number of times is an empty output
  // (the index space's size multiplied the other extents first and overflowed).
  const OpCase empty{"tile", {{"reps", "(9223372036854775807,)"}}, {InputSpec{TShape{40, 0}}}};
  const std::vector<CpuTensor> out =
      testing::Forward(empty, testing::MakeInputs(empty, mshadow::kFloat32));
  EXPECT_EQ(out[0].shape(), (TShape{40, 0}));
  // Found by //ops:invoke_fuzz: a merged extent past index_t wrapped (undefined) before.
  EXPECT_THAT(testing::ErrorOf([] {
                OutShape("tile", {{"reps", "(9223372036854775807,)"}}, {TShape{2}});
              }),
              HasSubstr("tile: an output extent 9223372036854775807 x 2 overflows index_t"));
  EXPECT_THAT(testing::ErrorOf([] {
                OutShape("repeat", {{"repeats", "2"}}, {TShape{4611686018427387904}});
              }),
              HasSubstr("repeat: an output extent 4611686018427387904 x 2 overflows index_t"));
}

}  // namespace
}  // namespace ops
