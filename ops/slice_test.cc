// slice / crop: Python's slicing rules as MXNet 1.9.1 applies them (values checked against
// MXNet), the gradient, and the errors for bad begin/end/step; slice_like.
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/slice-inl.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

// 0..n-1 in a (rows, cols) array.
InputSpec Iota(index_t rows, index_t cols) {
  Values v;
  for (index_t i = 0; i < rows * cols; ++i) v.push_back(static_cast<double>(i));
  return InputSpec::WithValues(TShape{rows, cols}, v);
}

TShape OutputShape(const std::string& begin, const std::string& end, const std::string& step) {
  return testing::InferOutputShapes(
      {"slice", {{"begin", begin}, {"end", end}, {"step", step}}, {InputSpec(TShape{3, 4})}})[0];
}

TEST(SliceTest, FollowsPythonSlicing) {
  EXPECT_EQ(Op::Get("crop"), Op::Get("slice"));
  const OpCase rows{"slice", {{"begin", "(1,None)"}, {"end", "(3,None)"}}, {Iota(3, 4)}};
  testing::CheckForward(rows, [](const std::vector<Values>&) {
    return std::vector<Values>{{4, 5, 6, 7, 8, 9, 10, 11}};
  });
  // Every other column backwards from the last; rows backwards from -1 down to (not
  // including) 0.
  const OpCase backwards{
      "slice", {{"begin", "(-1,None)"}, {"end", "(0,None)"}, {"step", "(-1,-2)"}}, {Iota(3, 4)}};
  testing::CheckForward(backwards, [](const std::vector<Values>&) {
    return std::vector<Values>{{11, 9, 7, 5}};
  });
  for (const OpCase& c : {rows, backwards}) {
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
}

// Rows of the last axis copied whole (37 elements: packets and a tail), in both directions.
TEST(SliceTest, ContiguousRowsCopyWhole) {
  const OpCase c{"slice", {{"begin", "(None,1)"}, {"end", "(None,38)"}}, {Iota(3, 40)}};
  testing::CheckForward(c, [](const std::vector<Values>&) {
    Values out;
    for (int r = 0; r < 3; ++r) {
      for (int t = 1; t < 38; ++t) out.push_back(r * 40 + t);
    }
    return std::vector<Values>{out};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

TEST(SliceTest, ClampsBoundsAsMXNet) {
  // Values from MXNet 1.9.1 on a (3, 4) input.
  EXPECT_EQ(OutputShape("(0,-9)", "(3,10)", "()"), (TShape{3, 4}));
  EXPECT_EQ(OutputShape("(0,5)", "(3,10)", "()"), (TShape{3, 0}));
  EXPECT_EQ(OutputShape("(0,2)", "(3,1)", "()"), (TShape{3, 0}));
  EXPECT_EQ(OutputShape("(0,2)", "(3,1)", "(1,-1)"), (TShape{3, 1}));
  EXPECT_EQ(OutputShape("(0,-1)", "(3,-10)", "(1,-1)"), (TShape{3, 4}));
  EXPECT_EQ(OutputShape("(0,10)", "(3,None)", "(1,-1)"), (TShape{3, 4}));
  EXPECT_EQ(OutputShape("(None,1)", "(None,4)", "(None,2)"), (TShape{3, 2}));
  // Steps near 2^63 take one element, without overflow (found by //ops:invoke_fuzz).
  EXPECT_EQ(OutputShape("(None,)", "(1,)", "(9223372036854775807,)"), (TShape{1, 4}));
  EXPECT_EQ(OutputShape("(None,)", "(None,)", "(-9223372036854775808,)"), (TShape{1, 4}));
  EXPECT_EQ(OutputShape("(1,)", "(0,)", "()"), (TShape{0, 4}));
}

TEST(SliceTest, BadParametersAreErrorsNamingThem) {
  auto error = [](const std::string& begin, const std::string& end, const std::string& step) {
    return testing::ErrorOf([&] { OutputShape(begin, end, step); });
  };
  EXPECT_THAT(error("(0,)", "(1,)", "(0,)"), HasSubstr("has 0 at axis 0"));
  EXPECT_THAT(error("(0,0)", "(1,)", "()"), HasSubstr("same length"));
  EXPECT_THAT(error("(0,0)", "(1,1)", "(1,)"), HasSubstr("same length"));
  EXPECT_THAT(error("(0,0,0)", "(1,1,1)", "()"), HasSubstr("the input (3,4) has 2"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    {"slice", {{"begin", "(0,x)"}, {"end", "(1,1)"}}, {InputSpec(TShape{3, 4})}});
              }),
              HasSubstr("(0,x)"));
}

TEST(SliceTest, ParsesTuplesOfOptionalIndices) {
  slice::OptionalIndices v;
  ASSERT_TRUE(slice::ParseOptionalIndices(" ( 1, None ,-2L) ", &v));
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(*v.items[0], 1);
  EXPECT_FALSE(v.items[1].has_value());
  EXPECT_EQ(*v.items[2], -2);
  ASSERT_TRUE(slice::ParseOptionalIndices("[3,]", &v));
  EXPECT_EQ(v.size(), 1u);
  ASSERT_TRUE(slice::ParseOptionalIndices("()", &v));
  EXPECT_EQ(v.size(), 0u);
  ASSERT_TRUE(slice::ParseOptionalIndices("None", &v));
  EXPECT_EQ(v.size(), 1u);
  for (const char* bad : {"", "(1,,2)", "(1 2)", "(1", "(a)", "(1.5)", "(99999999999999999999,)"}) {
    EXPECT_FALSE(slice::ParseOptionalIndices(bad, &v)) << bad;
  }
  // An embedded NUL ends a C string (the C ABI's view of the value) but not the item: both
  // APIs must refuse it (found by //ops:invoke_fuzz, which holds them to agreeing).
  for (const std::string& bad : {std::string("(\0yp)", 5), std::string("(1\0,2)", 6)}) {
    EXPECT_FALSE(slice::ParseOptionalIndices(bad, &v));
  }
}

// slice_like: MXNet 1.9.1's shapes, the leading corner's values, gradients (shape_like's
// zero), the extents and ranks it refuses.
TEST(SliceLikeTest, ShapesValuesGradientsAndErrors) {
  const auto shape_of = [](const TShape& data, const TShape& like, const std::string& axes) {
    return testing::InferOutputShapes(
        {"slice_like", {{"axes", axes}}, {InputSpec{data}, InputSpec{like}}})[0];
  };
  EXPECT_EQ(shape_of(TShape{2, 3, 4}, TShape{1, 2, 3}, "()"), (TShape{1, 2, 3}));
  EXPECT_EQ(shape_of(TShape{2, 3, 4}, TShape{1, 2, 3}, "(0,2)"), (TShape{1, 3, 3}));
  EXPECT_EQ(shape_of(TShape{2, 3, 4}, TShape{1, 2, 3}, "(-1,)"), (TShape{2, 3, 3}));
  EXPECT_EQ(shape_of(TShape{2, 3, 4}, TShape{1, 2}, "(1,)"), (TShape{2, 2, 4}));
  InputSpec like{TShape{2, 3, 9}};
  like.differentiable = false;
  const OpCase c{"slice_like", {{"axes", "(0,1)"}}, {InputSpec{TShape{3, 4, 5}}, like}};
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    Values out;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 5; ++k) out.push_back(in[0][(i * 4 + j) * 5 + k]);
    return std::vector<Values>{out};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
  const std::vector<CpuTensor> grads =
      testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat64), {Values(30, 1.0)});
  EXPECT_EQ(testing::ToValues(grads[1].blob()), Values(54, 0.0));

  const auto error_of = [&](const TShape& data, const TShape& like, const std::string& axes) {
    return testing::ErrorOf([&] { shape_of(data, like, axes); });
  };
  EXPECT_EQ(error_of(TShape{2, 3, 4}, TShape{3, 2, 3}, "()"),
            "slice_like: axis 0 of shape_like (3,2,3) has extent 3, beyond data (2,3,4)'s 2");
  EXPECT_THAT(
      error_of(TShape{2, 3, 4}, TShape{1, 2}, "()"),
      HasSubstr("shape_like (1,2) must have the rank of data (2,3,4) when no axes are given"));
  EXPECT_THAT(error_of(TShape{2, 3, 4}, TShape{1, 2}, "(2,)"),
              HasSubstr("axis 2 is past shape_like (1,2)"));
  EXPECT_THAT(error_of(TShape{2, 3, 4}, TShape{1, 2, 3}, "(3,)"),
              HasSubstr("axes 3 is out of range for a 3-d input"));
}

// MXNet 1.9.1's values: (3,4) 0..11 with [1:3, 1:3] = -1, with [0:3:2, ::2] = -1, and row 1
// set to 7 by the scalar form; in place (the operators' in-place option) as written; every
// numeric type; the slice's shape required of rhs; an addition refused.
TEST(SliceAssignTest, AsMXNetInPlaceAndWritten) {
  Values lhs(12);
  for (int i = 0; i < 12; ++i) lhs[i] = i;
  const auto assign = [&](const std::map<std::string, std::string>& kwargs, const TShape& rhs_shape,
                          int type, bool in_place) {
    std::vector<CpuTensor> in = {
        testing::TensorOf(TShape{3, 4}, type, lhs),
        testing::TensorOf(rhs_shape, type, Values(rhs_shape.Size(), -1.0))};
    const NodeAttrs attrs = ParseAttrs(Op::Get("_slice_assign"), kwargs);
    CpuTensor out(TShape{3, 4}, type);
    const TBlob target = in_place ? in[0].blob() : out.blob();
    Invoke<mshadow::cpu>(attrs, OpContext(), Blobs(in), {in_place ? kWriteInplace : kWriteTo},
                         {target});
    return testing::ToValues(target);
  };
  for (const int type : {mshadow::kFloat32, mshadow::kFloat64, mshadow::kInt32, mshadow::kInt8}) {
    for (const bool in_place : {false, true}) {
      EXPECT_EQ(assign({{"begin", "(1,1)"}, {"end", "(3,3)"}}, TShape{2, 2}, type, in_place),
                (Values{0, 1, 2, 3, 4, -1, -1, 7, 8, -1, -1, 11}));
      EXPECT_EQ(assign({{"begin", "(0,None)"}, {"end", "(3,None)"}, {"step", "(2,2)"}},
                       TShape{2, 2}, type, in_place),
                (Values{-1, 1, -1, 3, 4, 5, 6, 7, -1, 9, -1, 11}));
    }
  }
  const std::vector<CpuTensor> scalar =
      RunCpu(ParseAttrs(Op::Get("_slice_assign_scalar"),
                        {{"scalar", "7"}, {"begin", "(1,)"}, {"end", "(2,)"}}),
             {testing::TensorOf(TShape{3, 4}, mshadow::kFloat32, lhs).blob()});
  EXPECT_EQ(testing::ToValues(scalar[0].blob()), (Values{0, 1, 2, 3, 7, 7, 7, 7, 8, 9, 10, 11}));
  EXPECT_EQ(Op::Get("_crop_assign"), Op::Get("_slice_assign"));

  EXPECT_THAT(
      testing::ErrorOf([] {
        testing::InferOutputShapes(OpCase{"_slice_assign",
                                          {{"begin", "(1,1)"}, {"end", "(3,3)"}},
                                          {InputSpec(TShape{3, 4}), InputSpec(TShape{3, 3})}});
      }),
      HasSubstr("(3,3)"));
  const OpCase c{"_slice_assign",
                 {{"begin", "(1,1)"}, {"end", "(3,3)"}},
                 {InputSpec(TShape{3, 4}), InputSpec(TShape{2, 2})}};
  std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat32);
  CpuTensor out(TShape{3, 4}, mshadow::kFloat32);
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke<mshadow::cpu>(ParseAttrs(Op::Get("_slice_assign"), c.kwargs), OpContext(),
                                     Blobs(in), {kAddTo}, {out.blob()});
              }),
              HasSubstr("kAddTo"));
}

}  // namespace
}  // namespace ops
