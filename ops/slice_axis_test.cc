// slice_axis.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using testing::InputSpec;
using testing::OpCase;
using testing::Values;

TEST(SliceAxisTest, RangesForwardAndGradient) {
  struct SliceCase {
    std::string axis, begin, end;
    TShape out;
  };
  for (const SliceCase& s : std::vector<SliceCase>{{"1", "1", "3", TShape{2, 2, 4}},
                                                   {"-1", "-3", "None", TShape{2, 3, 3}},
                                                   {"0", "0", "1", TShape{1, 3, 4}}}) {
    SCOPED_TRACE(s.axis + " " + s.begin + " " + s.end);
    const OpCase c{"slice_axis",
                   {{"axis", s.axis}, {"begin", s.begin}, {"end", s.end}},
                   {InputSpec{TShape{2, 3, 4}}}};
    EXPECT_EQ(testing::InferOutputShapes(c)[0], s.out);
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  const OpCase middle{
      "slice_axis", {{"axis", "1"}, {"begin", "1"}, {"end", "2"}}, {InputSpec{TShape{2, 3}}}};
  testing::CheckForward(middle, [](const std::vector<Values>& in) {
    return std::vector<Values>{{in[0][1], in[0][4]}};
  });
  const OpCase bad{
      "slice_axis", {{"axis", "1"}, {"begin", "2"}, {"end", "5"}}, {InputSpec{TShape{2, 3}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(bad); }),
            "slice_axis: slice [2, 5) of axis 1 (extent 3) of (2,3) is empty or out of range");
}

TEST(SliceAxisTest, LargeRowsOnThreads) {
  mshadow::SetNumThreads(2);
  const OpCase c{
      "slice_axis", {{"axis", "1"}, {"begin", "7"}, {"end", "-30"}}, {InputSpec{TShape{500, 130}}}};
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    Values out;
    for (index_t r = 0; r < 500; ++r) {
      out.insert(out.end(), in[0].begin() + r * 130 + 7, in[0].begin() + r * 130 + 100);
    }
    return std::vector<Values>{out};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
  mshadow::SetNumThreads(0);
}

}  // namespace
}  // namespace ops
