// Reshape, Flatten, expand_dims, squeeze, _copy, reshape_like.
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

std::vector<Values> Identity(const std::vector<Values>& in) { return {in[0]}; }

TShape ReshapeTo(const TShape& data, const std::string& spec) {
  return testing::InferOutputShapes(OpCase{"Reshape", {{"shape", spec}}, {InputSpec{data}}})[0];
}

TEST(ExpandDimsSqueezeTest, ShapesCopiesAndGradients) {
  const OpCase expand{"expand_dims", {{"axis", "-1"}}, {InputSpec(TShape{2, 3})}};
  EXPECT_EQ(testing::InferOutputShapes(expand)[0], (TShape{2, 3, 1}));
  EXPECT_EQ(
      testing::InferOutputShapes({"expand_dims", {{"axis", "0"}}, {InputSpec(TShape{2, 3})}})[0],
      (TShape{1, 2, 3}));
  const OpCase squeeze{"squeeze", {}, {InputSpec(TShape{2, 1, 3, 1})}};
  EXPECT_EQ(testing::InferOutputShapes(squeeze)[0], (TShape{2, 3}));
  EXPECT_EQ(testing::InferOutputShapes(
                {"squeeze", {{"axis", "(-1,)"}}, {InputSpec(TShape{2, 1, 3, 1})}})[0],
            (TShape{2, 1, 3}));
  EXPECT_EQ(testing::InferOutputShapes({"squeeze", {}, {InputSpec(TShape{1, 1})}})[0], TShape{1});
  for (const OpCase& c : {expand, squeeze}) {
    testing::CheckForward(c, Identity);
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  EXPECT_THAT(
      testing::ErrorOf([] {
        testing::InferOutputShapes({"squeeze", {{"axis", "(0,)"}}, {InputSpec(TShape{2, 1})}});
      }),
      HasSubstr("cannot squeeze axis 0 of (2,1): its extent is 2, not 1"));
  EXPECT_THAT(
      testing::ErrorOf([] {
        testing::InferOutputShapes({"expand_dims", {{"axis", "3"}}, {InputSpec(TShape{2, 3})}});
      }),
      HasSubstr("axis 3"));
}

// _copy (alias identity): the input and its gradient through unchanged.
TEST(CopyTest, ForwardWriteModesAndGradient) {
  const OpCase c{"identity", {}, {InputSpec(TShape{3, 5})}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{3, 5}));
  testing::CheckForward(c, Identity);
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

TEST(ReshapeTest, SpecialValuesAsInMXNet) {
  EXPECT_EQ(ReshapeTo(TShape{2, 3, 4}, "(4,0,2)"), (TShape{4, 3, 2}));
  EXPECT_EQ(ReshapeTo(TShape{2, 3, 4}, "(6,1,-1)"), (TShape{6, 1, 4}));
  EXPECT_EQ(ReshapeTo(TShape{2, 3, 4}, "(-1,)"), (TShape{24}));
  EXPECT_EQ(ReshapeTo(TShape{2, 3, 4}, "(0,-1)"), (TShape{2, 12}));
  EXPECT_EQ(ReshapeTo(TShape{2, 3, 4}, "(-2,)"), (TShape{2, 3, 4}));
  EXPECT_EQ(ReshapeTo(TShape{2, 3, 4}, "(2,-2)"), (TShape{2, 3, 4}));
  EXPECT_EQ(ReshapeTo(TShape{2, 3, 4, 5}, "(-3,-3)"), (TShape{6, 20}));
  EXPECT_EQ(ReshapeTo(TShape{2, 3, 4}, "(-3,-2)"), (TShape{6, 4}));
  EXPECT_EQ(ReshapeTo(TShape{2, 3, 4}, "(-4,1,2,-2)"), (TShape{1, 2, 3, 4}));
  EXPECT_EQ(ReshapeTo(TShape{2, 3, 4}, "(2,-4,-1,3,-2)"), (TShape{2, 1, 3, 4}));
}

// reverse=True applies the special values from the last axis (MXNet 1.9.1's results).
TEST(ReshapeTest, ReverseAsInMXNet) {
  auto reversed = [](const TShape& data, const std::string& spec) {
    return testing::InferOutputShapes(
        OpCase{"Reshape", {{"shape", spec}, {"reverse", "True"}}, {InputSpec{data}}})[0];
  };
  EXPECT_EQ(reversed(TShape{10, 5, 4}, "(-1,0)"), (TShape{50, 4}));
  EXPECT_EQ(reversed(TShape{10, 5, 4}, "(0,-1)"), (TShape{5, 40}));
  EXPECT_EQ(reversed(TShape{10, 5, 4}, "(-3,0)"), (TShape{50, 4}));
  EXPECT_EQ(reversed(TShape{10, 5, 4}, "(0,-1,2)"), (TShape{10, 10, 2}));
  EXPECT_EQ(reversed(TShape{2, 3, 4, 5}, "(-1,0,0)"), (TShape{6, 4, 5}));
  EXPECT_EQ(reversed(TShape{2, 3, 4, 5}, "(0,-3,0)"), (TShape{2, 12, 5}));
  EXPECT_EQ(testing::ErrorOf([&] {
              reversed(TShape{10, 5, 4}, "(5,0,0)");
            }),
            "Reshape: cannot reshape (10,5,4) into (5,0,0) with reverse=True: the input has 200 "
            "elements, the target shape (4,5,5) has 100");
}

// Without shape, the deprecated target_shape (one 0 inferred; keep_highest keeps axis 0).
TEST(ReshapeTest, DeprecatedTargetShape) {
  auto legacy = [](const TShape& data, std::map<std::string, std::string> kwargs) {
    return testing::InferOutputShapes(OpCase{"Reshape", std::move(kwargs), {InputSpec{data}}})[0];
  };
  EXPECT_EQ(legacy(TShape{10, 5, 4}, {{"target_shape", "(0,20)"}}), (TShape{10, 20}));
  EXPECT_EQ(legacy(TShape{10, 5, 4}, {{"target_shape", "(20,0)"}}), (TShape{20, 10}));
  EXPECT_EQ(legacy(TShape{10, 5, 4}, {{"target_shape", "(3,20)"}, {"keep_highest", "1"}}),
            (TShape{10, 20}));
  EXPECT_EQ(legacy(TShape{10, 5, 4}, {{"shape", "(40,5)"}, {"target_shape", "(8,25)"}}),
            (TShape{40, 5}));
  EXPECT_EQ(testing::ErrorOf([&] {
              legacy(TShape{10, 5, 4}, {{"target_shape", "(0,0)"}});
            }),
            "Reshape: cannot reshape (10,5,4) into (0,0): target_shape may infer only one 0");
  EXPECT_EQ(testing::ErrorOf([&] {
              legacy(TShape{10, 5, 4}, {{"target_shape", "(7,0)"}});
            }),
            "Reshape: cannot reshape (10,5,4) into (7,0): the input has 200 elements, the "
            "target shape (7,28) has 196");
  EXPECT_EQ(testing::ErrorOf([&] {
              legacy(TShape{10, 5, 4}, {{"target_shape", "(-1,5)"}});
            }),
            "Reshape: cannot reshape (10,5,4) into (-1,5): invalid target_shape value -1; "
            "valid: positive extents and one 0");
  EXPECT_EQ(testing::ErrorOf([&] {
              legacy(TShape{10, 5, 4}, {});
            }),
            "Reshape: no target shape for (10,5,4); give shape (or the deprecated target_shape)");
}

TEST(ReshapeTest, ErrorsSayWhy) {
  auto error = [](const TShape& data, const std::string& spec) {
    return testing::ErrorOf([&] { ReshapeTo(data, spec); });
  };
  EXPECT_EQ(error(TShape{2, 3}, "(4,2)"),
            "Reshape: cannot reshape (2,3) into (4,2): the input has 6 elements, the target "
            "shape (4,2) has 8");
  EXPECT_EQ(error(TShape{2, 3}, "(4,-1)"),
            "Reshape: cannot reshape (2,3) into (4,-1): 6 elements do not divide into 4");
  EXPECT_EQ(error(TShape{2, 3}, "(-1,-1)"),
            "Reshape: cannot reshape (2,3) into (-1,-1): only one -1 is allowed");
  EXPECT_EQ(error(TShape{2, 3}, "(-5,)"),
            "Reshape: cannot reshape (2,3) into (-5,): invalid value -5; valid: positive "
            "extents, 0, -1, -2, -3, -4");
  EXPECT_EQ(error(TShape{6}, "(-4,4,-1)"),
            "Reshape: cannot reshape (6,) into (-4,4,-1): -4 cannot split an axis of 6 into 4 "
            "x -1");
  EXPECT_EQ(error(TShape{6}, "(0,0)"),
            "Reshape: cannot reshape (6,) into (0,0): 0 runs past the input's axes");
  // Products that overflow index_t are errors, never wrapped (signed overflow is undefined).
  EXPECT_EQ(error(TShape{2, 3}, "(-4,4611686018427387904,2,-2)"),
            "Reshape: cannot reshape (2,3) into (-4,4611686018427387904,2,-2): -4 cannot split "
            "an axis of 2 into 4611686018427387904 x 2");
  EXPECT_EQ(error(TShape{2, 3}, "(-3,4611686018427387904,2)"),
            "Reshape: cannot reshape (2,3) into (-3,4611686018427387904,2): 6 x "
            "4611686018427387904 overflows index_t");
  EXPECT_EQ(error(TShape{2, 3}, "(4611686018427387904,4,-1)"),
            "Reshape: cannot reshape (2,3) into (4611686018427387904,4,-1): 4611686018427387904 "
            "x 4 overflows index_t");
}

TEST(ReshapeTest, ForwardGradientAndFlatten) {
  const OpCase reshape{"Reshape", {{"shape", "(0,-1)"}}, {InputSpec{TShape{2, 3, 4}}}};
  testing::CheckForward(reshape, Identity);
  testing::CheckWriteModes(reshape);
  testing::CheckGradient(reshape);
  const OpCase flatten{"Flatten", {}, {InputSpec{TShape{2, 3, 4}}}};
  EXPECT_EQ(testing::InferOutputShapes(flatten)[0], (TShape{2, 12}));
  testing::CheckForward(flatten, Identity);
  testing::CheckGradient(flatten);
}

// reshape_like: shapes as MXNet 1.9.1 gives them, the elements unchanged, lhs's gradient the
// output gradient's, rhs's zero; bad ranges and sizes named.
TEST(ReshapeLikeTest, ShapesValuesGradientsAndErrors) {
  const auto shape_of = [](const TShape& lhs, const TShape& rhs,
                           const std::map<std::string, std::string>& kwargs) {
    return testing::InferOutputShapes(
        OpCase{"reshape_like", kwargs, {InputSpec{lhs}, InputSpec{rhs}}})[0];
  };
  EXPECT_EQ(shape_of(TShape{2, 3, 4}, TShape{6, 4}, {}), (TShape{6, 4}));
  EXPECT_EQ(shape_of(TShape{30, 7}, TShape{15, 2, 4},
                     {{"lhs_begin", "0"}, {"lhs_end", "1"}, {"rhs_begin", "0"}, {"rhs_end", "2"}}),
            (TShape{15, 2, 7}));
  EXPECT_EQ(shape_of(TShape{30, 7}, TShape{15, 2, 4},
                     {{"lhs_begin", "-2"}, {"lhs_end", "-1"}, {"rhs_end", "-1"}}),
            (TShape{15, 2, 7}));
  const OpCase c{"reshape_like", {}, {InputSpec{TShape{2, 3}}, [] {
                                        InputSpec rhs{TShape{3, 2}};
                                        rhs.differentiable = false;
                                        return rhs;
                                      }()}};
  testing::CheckForward(c, Identity);
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
  const std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat32);
  const std::vector<CpuTensor> grads = testing::Backward(c, inputs, {Values(6, 2.0)});
  EXPECT_EQ(testing::ToValues(grads[0].blob()), Values(6, 2.0));
  EXPECT_EQ(grads[0].shape(), (TShape{2, 3}));
  EXPECT_EQ(testing::ToValues(grads[1].blob()), Values(6, 0.0));

  const auto error_of = [&](const std::map<std::string, std::string>& kwargs) {
    return testing::ErrorOf([&] { shape_of(TShape{30, 7}, TShape{15, 2, 4}, kwargs); });
  };
  EXPECT_THAT(error_of({{"lhs_begin", "1"}, {"rhs_begin", "2"}}),
              HasSubstr("reshape_like: lhs (30,7) cannot take the shape (30,4) (7 elements of "
                        "axes [1, 2) against 4 of rhs (15,2,4)'s [2, 3))"));
  EXPECT_THAT(error_of({{"lhs_begin", "1"}, {"lhs_end", "1"}}),
              HasSubstr("lhs_begin 1 must come before lhs_end 1 (at least one axis)"));
  EXPECT_THAT(error_of({{"lhs_begin", "2"}}), HasSubstr("lhs_begin 2 is out of range"));
  EXPECT_THAT(error_of({{"rhs_end", "4"}}),
              HasSubstr("rhs_end 4 is out of range for a 3-d input; valid: [-2, 3]"));
}

}  // namespace
}  // namespace ops
