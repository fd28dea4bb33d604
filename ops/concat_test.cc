// Concat and _rnn_param_concat.
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/backward.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using testing::InputSpec;
using testing::OpCase;
using testing::Values;

TEST(ConcatTest, AlongEachAxis) {
  for (const int dim : {0, 1, -1}) {
    SCOPED_TRACE(dim);
    const OpCase c{"Concat",
                   {{"num_args", "3"}, {"dim", std::to_string(dim)}},
                   {InputSpec{TShape{2, 3}}, InputSpec{TShape{2, 3}}, InputSpec{TShape{2, 3}}}};
    const TShape expected = dim == 0 ? TShape{6, 3} : TShape{2, 9};
    EXPECT_EQ(testing::InferOutputShapes(c)[0], expected);
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      Values out;
      if (dim == 0) {
        for (const Values& v : in) out.insert(out.end(), v.begin(), v.end());
      } else {
        for (int r = 0; r < 2; ++r) {
          for (const Values& v : in)
            out.insert(out.end(), v.begin() + r * 3, v.begin() + r * 3 + 3);
        }
      }
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  const OpCase uneven{
      "Concat", {{"num_args", "2"}}, {InputSpec{TShape{2, 3}}, InputSpec{TShape{2, 5}}}};
  EXPECT_EQ(testing::InferOutputShapes(uneven)[0], (TShape{2, 8}));
  const OpCase bad{
      "Concat", {{"num_args", "2"}}, {InputSpec{TShape{2, 3}}, InputSpec{TShape{3, 3}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(bad); }),
            "Concat: input arg1 has shape (3,3), which does not match arg0's (2,3) on every axis "
            "but 1");
  const OpCase wrong_count{
      "Concat", {{"num_args", "3"}}, {InputSpec{TShape{2}}, InputSpec{TShape{2}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(wrong_count); }),
            "Concat takes 3 inputs (arg0, arg1, arg2), given 2");
}

TEST(ConcatTest, ArityIsBounded) {
  // 2e9 inputs once built 2e9 names before failing with std::bad_alloc.
  EXPECT_EQ(testing::ErrorOf([] {
              ParseAttrs(Op::Get("Concat"), {{"num_args", "2000000000"}});
            }),
            "Invalid parameter of operator Concat: these parameters give 2000000000 inputs; at "
            "most 65536 are supported");
  EXPECT_EQ(testing::ErrorOf([] {
              NodeAttrs attrs = ParseAttrs(Op::Get("Concat"), {{"num_args", "2000000000"}});
              BackwardAttrs(attrs);
            }),
            "Invalid parameter of operator Concat: these parameters give 2000000000 inputs; at "
            "most 65536 are supported");
  const NodeAttrs widest = ParseAttrs(Op::Get("Concat"), {{"num_args", "65536"}});
  EXPECT_EQ(widest.op->num_inputs(widest), 65536u);
}

// Rows long and many enough to be split over threads, parts of uneven widths.
TEST(ConcatTest, LargeUnevenPartsOnThreads) {
  mshadow::SetNumThreads(2);
  const OpCase c{"Concat",
                 {{"num_args", "3"}, {"dim", "1"}},
                 {InputSpec{TShape{300, 2, 70}}, InputSpec{TShape{300, 1, 70}},
                  InputSpec{TShape{300, 4, 70}}}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{300, 7, 70}));
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    Values out;
    for (index_t r = 0; r < 300; ++r) {
      for (const Values& v : in) {
        const index_t row = static_cast<index_t>(v.size()) / 300;
        out.insert(out.end(), v.begin() + r * row, v.begin() + (r + 1) * row);
      }
    }
    return std::vector<Values>{out};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
  mshadow::SetNumThreads(0);
}

// With every shape known, _rnn_param_concat is Concat: the same values and gradients.
TEST(RnnParamConcatTest, IsConcatOnKnownShapes) {
  OpCase c{"_rnn_param_concat",
           {{"num_args", "3"}, {"dim", "0"}},
           {InputSpec{TShape{12}}, InputSpec{TShape{4}}, InputSpec{TShape{7}}}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{23}));
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    Values out;
    for (const Values& v : in) out.insert(out.end(), v.begin(), v.end());
    return std::vector<Values>{out};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

// One input of unknown shape takes what a known output leaves along dim (an RNN's parameter
// vector, its length inferred from the RNN); two unknown inputs wait; known inputs longer
// than the output are an error.
TEST(RnnParamConcatTest, InfersOneInputFromTheOutput) {
  const NodeAttrs attrs =
      ParseAttrs(Op::Get("_rnn_param_concat"), {{"num_args", "3"}, {"dim", "1"}});
  std::vector<TShape> in{TShape{2, 3}, TShape(), TShape{2, 4}};
  std::vector<TShape> out{TShape{2, 10}};
  InferShapes(attrs, &in, &out);
  EXPECT_EQ(in[1], (TShape{2, 3}));
  in = {TShape{2, 3}, TShape(), TShape()};
  EXPECT_THAT(testing::ErrorOf([&] { InferShapes(attrs, &in, &out); }),
              ::testing::HasSubstr("arg1"));
  in = {TShape{2, 8}, TShape(), TShape{2, 4}};
  EXPECT_THAT(
      testing::ErrorOf([&] { InferShapes(attrs, &in, &out); }),
      ::testing::HasSubstr("the known inputs are longer along dim 1 than the output (2,10)"));
  in = {TShape{3, 3}, TShape(), TShape{2, 4}};
  EXPECT_THAT(testing::ErrorOf([&] { InferShapes(attrs, &in, &out); }),
              ::testing::HasSubstr("input arg0 has shape (3,3), which does not match the "
                                   "output's (2,10) on every axis but 1"));
}

}  // namespace
}  // namespace ops
