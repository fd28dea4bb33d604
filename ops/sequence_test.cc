// SequenceMask, SequenceLast and SequenceReverse against index arithmetic written out (axes 0
// and 1, with and without lengths), write modes, gradients, lengths in an integer type, lengths
// out of range (clamped, never read past the data) and errors.
#include <algorithm>
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

// data (T, B, R) for axis 0, (B, T, R) for axis 1.
struct Layout {
  int steps, batch, rest, axis;
  int At(int t, int b, int r) const {
    return ((axis == 0 ? t * batch + b : b * steps + t) * rest) + r;
  }
  // A length as the operators read it: truncated, clamped to [lowest, T], NaN as lowest.
  int Length(const Values* lengths, int b, int lowest) const {
    if (lengths == nullptr) return steps;
    const double v = (*lengths)[b];
    if (!(v > lowest)) return lowest;
    return std::min<int>(steps, static_cast<int>(v));
  }
};

Values Reference(const std::string& op, const Layout& l, const Values& x, const Values* lengths,
                 double value) {
  Values out(op == "SequenceLast" ? l.batch * l.rest : x.size());
  for (int b = 0; b < l.batch; ++b) {
    for (int r = 0; r < l.rest; ++r) {
      if (op == "SequenceLast") {
        out[b * l.rest + r] = x[l.At(l.Length(lengths, b, 1) - 1, b, r)];
        continue;
      }
      const int n = l.Length(lengths, b, 0);
      for (int t = 0; t < l.steps; ++t) {
        if (op == "SequenceMask") {
          out[l.At(t, b, r)] = t < n ? x[l.At(t, b, r)] : value;
        } else {
          out[l.At(t, b, r)] = x[l.At(t < n ? n - 1 - t : t, b, r)];
        }
      }
    }
  }
  return out;
}

struct SequenceCase {
  std::string name;
  std::string op;
  int axis;
  bool with_lengths;
};

class SequenceTest : public ::testing::TestWithParam<SequenceCase> {};

TEST_P(SequenceTest, MatchesReferenceWithGradients) {
  const SequenceCase& sc = GetParam();
  const Layout l{5, 3, 2, sc.axis};
  const TShape data = sc.axis == 0 ? TShape{5, 3, 2} : TShape{3, 5, 2};
  OpCase c{sc.op, {{"axis", std::to_string(sc.axis)}}, {InputSpec{data}}};
  if (sc.op == "SequenceMask") c.kwargs["value"] = "-7.5";
  if (sc.with_lengths) {
    c.kwargs["use_sequence_length"] = "True";
    InputSpec lengths = InputSpec::WithValues(TShape{3}, {2, 5, 1});
    lengths.differentiable = false;
    c.inputs.push_back(lengths);
  }
  testing::CheckForward(c, [&](const std::vector<Values>& in) {
    return std::vector<Values>{
        Reference(sc.op, l, in[0], sc.with_lengths ? &in[1] : nullptr, -7.5)};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

INSTANTIATE_TEST_SUITE_P(
    Operators, SequenceTest,
    ::testing::Values(SequenceCase{"mask_axis0", "SequenceMask", 0, true},
                      SequenceCase{"mask_axis1", "SequenceMask", 1, true},
                      SequenceCase{"mask_no_lengths", "SequenceMask", 0, false},
                      SequenceCase{"last_axis0", "SequenceLast", 0, true},
                      SequenceCase{"last_axis1", "SequenceLast", 1, true},
                      SequenceCase{"last_no_lengths", "SequenceLast", 1, false},
                      SequenceCase{"reverse", "SequenceReverse", 0, true},
                      SequenceCase{"reverse_no_lengths", "SequenceReverse", 0, false}),
    [](const ::testing::TestParamInfo<SequenceCase>& info) { return info.param.name; });

// op on data (T=4, B=3) with the given lengths in `length_type`, against the reference.
void CheckLengths(const std::string& op, const Values& lengths, int length_type) {
  const OpCase c{op, {{"use_sequence_length", "True"}}, {InputSpec{TShape{4, 3}}}};
  std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat32);
  in.emplace_back(TShape{3}, length_type);
  testing::SetValues(in[1].blob(), lengths);
  const Values x = testing::ToValues(in[0].blob());
  const Values out = testing::ToValues(testing::Forward(c, in)[0].blob());
  EXPECT_THAT(out, ElementsAreArray(Reference(op, Layout{4, 3, 1, 0}, x, &lengths, 0)));
}

TEST(SequenceTest, LengthsInEveryIndexTypeAndOutOfRange) {
  for (const std::string op : {"SequenceMask", "SequenceLast", "SequenceReverse"}) {
    SCOPED_TRACE(op);
    for (const int type :
         {mshadow::kFloat32, mshadow::kFloat64, mshadow::kInt32, mshadow::kInt64}) {
      CheckLengths(op, {1, 4, 2}, type);
      CheckLengths(op, {-3, 0, 100},
                   type);  // clamped: no step, no step (last: the first), every step
    }
    CheckLengths(op, {std::nan(""), 2.9, 4.5}, mshadow::kFloat64);  // NaN as 0 (last: 1); truncated
  }
}

TEST(SequenceTest, ShapesAndErrors) {
  std::vector<TShape> in = {TShape{5, 3, 2}, TShape()}, out;
  InferShapes(ParseAttrs(Op::Get("SequenceLast"), {{"use_sequence_length", "True"}}), &in, &out);
  EXPECT_EQ(in[1], (TShape{3}));
  EXPECT_EQ(out[0], (TShape{3, 2}));
  EXPECT_EQ(testing::InferOutputShapes(
                OpCase{"SequenceLast", {{"axis", "1"}}, {InputSpec{TShape{4, 6, 2}}}})[0],
            (TShape{4, 2}));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(OpCase{"SequenceMask", {}, {InputSpec{TShape{4}}}});
              }),
              HasSubstr("SequenceMask: data (4,) must have at least 2 axes (steps, batch, ...)"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(OpCase{"SequenceMask",
                                                  {{"use_sequence_length", "True"}},
                                                  {InputSpec{TShape{4, 3}}, InputSpec{TShape{4}}}});
              }),
              HasSubstr("(3,)"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("SequenceReverse"), {{"axis", "1"}});
              }),
              HasSubstr("axis"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("SequenceMask"), {{"axis", "2"}});
              }),
              HasSubstr("axis"));
}

}  // namespace
}  // namespace ops
