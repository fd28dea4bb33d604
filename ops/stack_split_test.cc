// stack, split (SliceChannel), _split_v2.
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

TEST(StackSplitTest, ValuesShapesAndGradients) {
  // stack of two (2,3) on axis 1: element (i, k, j) is input k's (i, j).
  const OpCase stack{"stack",
                     {{"num_args", "2"}, {"axis", "1"}},
                     {InputSpec(TShape{2, 3}), InputSpec(TShape{2, 3})}};
  EXPECT_EQ(testing::InferOutputShapes(stack)[0], (TShape{2, 2, 3}));
  testing::CheckForward(stack, [](const std::vector<Values>& in) {
    Values out;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 3; ++j) out.push_back(in[k][i * 3 + j]);
    return std::vector<Values>{out};
  });
  // split (2,6) into 3 along axis 1: part k holds columns 2k and 2k + 1.
  const OpCase split{"split", {{"num_outputs", "3"}, {"axis", "1"}}, {InputSpec(TShape{2, 6})}};
  testing::CheckForward(split, [](const std::vector<Values>& in) {
    std::vector<Values> parts(3);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 6; ++j) parts[j / 2].push_back(in[0][i * 6 + j]);
    return parts;
  });
  const OpCase squeezed{"SliceChannel",
                        {{"num_outputs", "3"}, {"axis", "-1"}, {"squeeze_axis", "True"}},
                        {InputSpec(TShape{2, 3})}};
  EXPECT_EQ(testing::InferOutputShapes(squeezed), (std::vector<TShape>(3, TShape{2})));
  const OpCase stack_last{"stack",
                          {{"num_args", "3"}, {"axis", "-1"}},
                          {InputSpec(TShape{4}), InputSpec(TShape{4}), InputSpec(TShape{4})}};
  for (const OpCase& c : {stack, split, squeezed, stack_last}) {
    SCOPED_TRACE(c.op);
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  EXPECT_THAT(
      testing::ErrorOf([] {
        testing::InferOutputShapes({"split", {{"num_outputs", "4"}}, {InputSpec(TShape{2, 6})}});
      }),
      HasSubstr("cannot split axis 1 of (2,6) (extent 6) into 4 equal parts"));
  EXPECT_THAT(
      testing::ErrorOf([] {
        testing::InferOutputShapes(
            {"split", {{"num_outputs", "2"}, {"squeeze_axis", "1"}}, {InputSpec(TShape{2, 6})}});
      }),
      HasSubstr("squeeze_axis needs parts of extent 1 on the axis"));
  EXPECT_THAT(
      testing::ErrorOf([] {
        testing::InferOutputShapes(
            {"stack", {{"num_args", "2"}}, {InputSpec(TShape{2, 3}), InputSpec(TShape{3, 2})}});
      }),
      HasSubstr("(3,2)"));
}

// Columns [begin, end) of each row of a (rows, columns) array.
Values Columns(const Values& data, int columns, int begin, int end) {
  Values part;
  for (size_t row = 0; row < data.size() / columns; ++row) {
    for (int j = begin; j < end; ++j) part.push_back(data[row * columns + j]);
  }
  return part;
}

TEST(SplitV2Test, CutsAtIndicesOrIntoSections) {
  // (2,6,2) cut on axis 1 at 0, 2, 3: parts of extents 2, 1 and 3; as (2, 12) rows, columns
  // [0,4), [4,6), [6,12).
  const OpCase at_indices{
      "_split_v2", {{"indices", "(0,2,3)"}, {"axis", "1"}}, {InputSpec(TShape{2, 6, 2})}};
  EXPECT_EQ(testing::InferOutputShapes(at_indices),
            (std::vector<TShape>{{2, 2, 2}, {2, 1, 2}, {2, 3, 2}}));
  testing::CheckForward(at_indices, [](const std::vector<Values>& in) {
    return std::vector<Values>{Columns(in[0], 12, 0, 4), Columns(in[0], 12, 4, 6),
                               Columns(in[0], 12, 6, 12)};
  });
  // Four sections of an extent of 6, as NumPy's array_split: 2, 2, 1, 1; indices ignored.
  const OpCase sections{"_split_v2",
                        {{"indices", "()"}, {"axis", "-1"}, {"sections", "4"}},
                        {InputSpec(TShape{3, 6})}};
  EXPECT_EQ(testing::InferOutputShapes(sections),
            (std::vector<TShape>{{3, 2}, {3, 2}, {3, 1}, {3, 1}}));
  testing::CheckForward(sections, [](const std::vector<Values>& in) {
    return std::vector<Values>{Columns(in[0], 6, 0, 2), Columns(in[0], 6, 2, 4),
                               Columns(in[0], 6, 4, 5), Columns(in[0], 6, 5, 6)};
  });
  const OpCase squeezed{"_split_v2",
                        {{"indices", "(0,1,2)"}, {"axis", "0"}, {"squeeze_axis", "True"}},
                        {InputSpec(TShape{3, 4})}};
  EXPECT_EQ(testing::InferOutputShapes(squeezed), (std::vector<TShape>(3, TShape{4})));
  testing::CheckForward(squeezed, [](const std::vector<Values>& in) {
    return std::vector<Values>{Columns(in[0], 12, 0, 4), Columns(in[0], 12, 4, 8),
                               Columns(in[0], 12, 8, 12)};
  });
  for (const OpCase& c : {at_indices, sections, squeezed}) {
    SCOPED_TRACE(c.op);
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
}

TEST(SplitV2Test, EmptyParts) {
  // A repeated index and an index at the extent give parts of extent 0, as in MXNet; more
  // sections than the extent give empty last parts.
  const OpCase repeated{
      "_split_v2", {{"indices", "(0,0,2,4)"}, {"axis", "1"}}, {InputSpec(TShape{2, 4})}};
  EXPECT_EQ(testing::InferOutputShapes(repeated),
            (std::vector<TShape>{{2, 0}, {2, 2}, {2, 2}, {2, 0}}));
  testing::CheckForward(repeated, [](const std::vector<Values>& in) {
    return std::vector<Values>{{}, Columns(in[0], 4, 0, 2), Columns(in[0], 4, 2, 4), {}};
  });
  testing::CheckGradient(repeated);
  EXPECT_EQ(testing::InferOutputShapes(
                {"_split_v2", {{"indices", "()"}, {"sections", "3"}}, {InputSpec(TShape{2, 2})}}),
            (std::vector<TShape>{{2, 1}, {2, 1}, {2, 0}}));
}

TEST(SplitV2Test, BadIndicesAreErrors) {
  const auto error_of = [](const std::string& indices, const std::string& extra_key,
                           const std::string& extra_value) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes({"_split_v2",
                                  {{"indices", indices}, {"axis", "1"}, {extra_key, extra_value}},
                                  {InputSpec(TShape{2, 6})}});
    });
  };
  EXPECT_THAT(error_of("(0,7)", "sections", "0"),
              HasSubstr("index 7 of indices (0,7) is past the axis' extent 6"));
  EXPECT_THAT(error_of("(2,3)", "sections", "0"),
              HasSubstr("indices (2,3) start at 2; the first part starts at 0"));
  EXPECT_THAT(error_of("(0,4,2)", "sections", "0"),
              HasSubstr("indices (0,4,2) decrease at position 2 (4 then 2)"));
  EXPECT_THAT(error_of("()", "sections", "0"), HasSubstr("name no parts"));
  EXPECT_THAT(error_of("()", "sections", "-1"), HasSubstr("sections"));
  EXPECT_THAT(error_of("(0,1,3)", "squeeze_axis", "True"),
              HasSubstr("part 1 of (2,6) has extent 2"));
}

}  // namespace
}  // namespace ops
