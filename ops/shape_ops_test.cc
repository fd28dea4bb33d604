// Reshape, Flatten, transpose, Concat, slice_axis, Cast.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"
#include "ops/backward.h"
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
  EXPECT_EQ(testing::InferOutputShapes({"expand_dims", {{"axis", "0"}}, {InputSpec(TShape{2, 3})}})[0],
            (TShape{1, 2, 3}));
  const OpCase squeeze{"squeeze", {}, {InputSpec(TShape{2, 1, 3, 1})}};
  EXPECT_EQ(testing::InferOutputShapes(squeeze)[0], (TShape{2, 3}));
  EXPECT_EQ(testing::InferOutputShapes({"squeeze", {{"axis", "(-1,)"}}, {InputSpec(TShape{2, 1, 3, 1})}})[0],
            (TShape{2, 1, 3}));
  EXPECT_EQ(testing::InferOutputShapes({"squeeze", {}, {InputSpec(TShape{1, 1})}})[0], TShape{1});
  for (const OpCase& c : {expand, squeeze}) {
    testing::CheckForward(c, Identity);
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"squeeze", {{"axis", "(0,)"}}, {InputSpec(TShape{2, 1})}});
              }),
              HasSubstr("cannot squeeze axis 0 of (2,1): its extent is 2, not 1"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"expand_dims", {{"axis", "3"}}, {InputSpec(TShape{2, 3})}});
              }),
              HasSubstr("axis 3"));
}

TEST(StackSplitTest, ValuesShapesAndGradients) {
  // stack of two (2,3) on axis 1: element (i, k, j) is input k's (i, j).
  const OpCase stack{"stack", {{"num_args", "2"}, {"axis", "1"}},
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
  const OpCase squeezed{"SliceChannel", {{"num_outputs", "3"}, {"axis", "-1"}, {"squeeze_axis", "True"}},
                        {InputSpec(TShape{2, 3})}};
  EXPECT_EQ(testing::InferOutputShapes(squeezed), (std::vector<TShape>(3, TShape{2})));
  const OpCase stack_last{"stack", {{"num_args", "3"}, {"axis", "-1"}},
                          {InputSpec(TShape{4}), InputSpec(TShape{4}), InputSpec(TShape{4})}};
  for (const OpCase& c : {stack, split, squeezed, stack_last}) {
    SCOPED_TRACE(c.op);
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"split", {{"num_outputs", "4"}}, {InputSpec(TShape{2, 6})}});
              }),
              HasSubstr("cannot split axis 1 of (2,6) (extent 6) into 4 equal parts"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    {"split", {{"num_outputs", "2"}, {"squeeze_axis", "1"}}, {InputSpec(TShape{2, 6})}});
              }),
              HasSubstr("squeeze_axis needs parts of extent 1 on the axis"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"stack", {{"num_args", "2"}}, {InputSpec(TShape{2, 3}), InputSpec(TShape{3, 2})}});
              }),
              HasSubstr("(3,2)"));
}

TEST(SwapAxesTest, SwapsTwoAxesThroughTranspose) {
  EXPECT_EQ(Op::Get("SwapAxis"), Op::Get("swapaxes"));
  const OpCase c{"swapaxes", {{"dim1", "0"}, {"dim2", "-1"}}, {InputSpec(TShape{2, 3, 4})}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{4, 3, 2}));
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    Values out;
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 2; ++i) out.push_back(in[0][(i * 3 + j) * 4 + k]);
    return std::vector<Values>{out};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
  const OpCase same{"swapaxes", {}, {InputSpec(TShape{2, 3})}};
  testing::CheckForward(same, Identity);
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"swapaxes", {{"dim2", "3"}}, {InputSpec(TShape{2, 3})}});
              }),
              HasSubstr("dim2 3"));
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
  EXPECT_EQ(testing::ErrorOf([&] { reversed(TShape{10, 5, 4}, "(5,0,0)"); }),
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
  EXPECT_EQ(testing::ErrorOf([&] { legacy(TShape{10, 5, 4}, {{"target_shape", "(0,0)"}}); }),
            "Reshape: cannot reshape (10,5,4) into (0,0): target_shape may infer only one 0");
  EXPECT_EQ(testing::ErrorOf([&] { legacy(TShape{10, 5, 4}, {{"target_shape", "(7,0)"}}); }),
            "Reshape: cannot reshape (10,5,4) into (7,0): the input has 200 elements, the "
            "target shape (7,28) has 196");
  EXPECT_EQ(testing::ErrorOf([&] { legacy(TShape{10, 5, 4}, {{"target_shape", "(-1,5)"}}); }),
            "Reshape: cannot reshape (10,5,4) into (-1,5): invalid target_shape value -1; "
            "valid: positive extents and one 0");
  EXPECT_EQ(testing::ErrorOf([&] { legacy(TShape{10, 5, 4}, {}); }),
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

// x with its axes permuted (output axis i is input axis perm[i]), for any shape.
Values Permuted(const Values& x, const TShape& shape, const std::vector<int>& perm) {
  const int ndim = static_cast<int>(shape.ndim());
  std::vector<index_t> strides(ndim, 1);
  for (int d = ndim - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  Values out(x.size());
  std::vector<index_t> out_index(ndim, 0);
  for (size_t o = 0; o < out.size(); ++o) {
    index_t rest = static_cast<index_t>(o), at = 0;
    for (int i = ndim - 1; i >= 0; --i) {
      at += rest % shape[perm[i]] * strides[perm[i]];
      rest /= shape[perm[i]];
    }
    out[o] = x[at];
  }
  return out;
}

// Every permutation of a 4-d shape with a unit axis, and shapes that take the tiled path with
// partial tiles, merged axes, and threads; the tiles written through ordinary stores and, forced
// on, through streaming stores (rows aligned or not).
TEST(TransposeTest, AnyPermutationMergedTiledAndThreaded) {
  mshadow::SetNumThreads(2);
  std::vector<std::pair<TShape, std::vector<int>>> cases;
  std::vector<int> perm = {0, 1, 2, 3};
  do {
    cases.push_back({TShape{3, 1, 5, 7}, perm});
  } while (std::next_permutation(perm.begin(), perm.end()));
  cases.push_back({TShape{67, 45}, {1, 0}});
  cases.push_back({TShape{5, 33, 70}, {0, 2, 1}});
  cases.push_back({TShape{4, 6, 35, 3}, {2, 3, 0, 1}});
  cases.push_back({TShape{700, 300}, {1, 0}});
  cases.push_back({TShape{40, 30, 50}, {1, 0, 2}});
  cases.push_back({TShape{3, 64, 40}, {0, 2, 1}});
  for (const index_t stream_from : {index_t{0}, index_t{1}}) {
    mshadow::SetStreamingStoreMinBytes(stream_from);  // 0: the default; 1: every output
    for (const auto& [shape, p] : cases) {
      std::ostringstream axes;
      axes << "(";
      for (size_t i = 0; i < p.size(); ++i) axes << (i ? "," : "") << p[i];
      axes << ")";
      std::ostringstream trace;
      trace << shape << " axes " << axes.str() << (stream_from ? " streamed" : "");
      SCOPED_TRACE(trace.str());
      const OpCase c{"transpose", {{"axes", axes.str()}}, {InputSpec{shape}}};
      testing::CheckForward(c, [&](const std::vector<Values>& in) {
        return std::vector<Values>{Permuted(in[0], shape, p)};
      });
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
  mshadow::SetStreamingStoreMinBytes(0);
  mshadow::SetNumThreads(0);
}

TEST(TransposeTest, PermutationsForwardAndGradient) {
  for (const std::string axes : {"()", "(1,0,2)", "(2,0,1)", "(0,1,2)"}) {
    SCOPED_TRACE(axes);
    const OpCase c{"transpose", {{"axes", axes}}, {InputSpec{TShape{2, 3, 4}}}};
    const std::vector<int> perm = axes == "()"        ? std::vector<int>{2, 1, 0}
                                  : axes == "(1,0,2)" ? std::vector<int>{1, 0, 2}
                                  : axes == "(2,0,1)" ? std::vector<int>{2, 0, 1}
                                                      : std::vector<int>{0, 1, 2};
    const index_t dims[3] = {2, 3, 4};
    const TShape out_shape{dims[perm[0]], dims[perm[1]], dims[perm[2]]};
    EXPECT_EQ(testing::InferOutputShapes(c)[0], out_shape);
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      Values out(24);
      for (index_t i = 0; i < 2; ++i) {
        for (index_t j = 0; j < 3; ++j) {
          for (index_t k = 0; k < 4; ++k) {
            const index_t idx[3] = {i, j, k};
            const index_t o = (idx[perm[0]] * out_shape[1] + idx[perm[1]]) * out_shape[2] + idx[perm[2]];
            out[o] = in[0][(i * 3 + j) * 4 + k];
          }
        }
      }
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  const OpCase bad{"transpose", {{"axes", "(0,0,1)"}}, {InputSpec{TShape{2, 3, 4}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(bad); }),
            "transpose: axes (0,0,1) is not a permutation of the 3 axes of the input");
}

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
          for (const Values& v : in) out.insert(out.end(), v.begin() + r * 3, v.begin() + r * 3 + 3);
        }
      }
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  const OpCase uneven{"Concat", {{"num_args", "2"}}, {InputSpec{TShape{2, 3}}, InputSpec{TShape{2, 5}}}};
  EXPECT_EQ(testing::InferOutputShapes(uneven)[0], (TShape{2, 8}));
  const OpCase bad{"Concat", {{"num_args", "2"}}, {InputSpec{TShape{2, 3}}, InputSpec{TShape{3, 3}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(bad); }),
            "Concat: input arg1 has shape (3,3), which does not match arg0's (2,3) on every axis "
            "but 1");
  const OpCase wrong_count{"Concat", {{"num_args", "3"}}, {InputSpec{TShape{2}}, InputSpec{TShape{2}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(wrong_count); }),
            "Concat takes 3 inputs (arg0, arg1, arg2), given 2");
}

TEST(ConcatTest, ArityIsBounded) {
  // 2e9 inputs once built 2e9 names before failing with std::bad_alloc.
  EXPECT_EQ(testing::ErrorOf([] { ParseAttrs(Op::Get("Concat"), {{"num_args", "2000000000"}}); }),
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

TEST(SliceAxisTest, RangesForwardAndGradient) {
  struct SliceCase {
    std::string axis, begin, end;
    TShape out;
  };
  for (const SliceCase& s : std::vector<SliceCase>{{"1", "1", "3", TShape{2, 2, 4}},
                                                   {"-1", "-3", "None", TShape{2, 3, 3}},
                                                   {"0", "0", "1", TShape{1, 3, 4}}}) {
    SCOPED_TRACE(s.axis + " " + s.begin + " " + s.end);
    const OpCase c{"slice_axis", {{"axis", s.axis}, {"begin", s.begin}, {"end", s.end}},
                   {InputSpec{TShape{2, 3, 4}}}};
    EXPECT_EQ(testing::InferOutputShapes(c)[0], s.out);
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  const OpCase middle{"slice_axis", {{"axis", "1"}, {"begin", "1"}, {"end", "2"}}, {InputSpec{TShape{2, 3}}}};
  testing::CheckForward(middle, [](const std::vector<Values>& in) {
    return std::vector<Values>{{in[0][1], in[0][4]}};
  });
  const OpCase bad{"slice_axis", {{"axis", "1"}, {"begin", "2"}, {"end", "5"}}, {InputSpec{TShape{2, 3}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(bad); }),
            "slice_axis: slice [2, 5) of axis 1 (extent 3) of (2,3) is empty or out of range");
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

TEST(SliceAxisTest, LargeRowsOnThreads) {
  mshadow::SetNumThreads(2);
  const OpCase c{"slice_axis", {{"axis", "1"}, {"begin", "7"}, {"end", "-30"}},
                 {InputSpec{TShape{500, 130}}}};
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

TEST(CastTest, ConvertsAndSaturates) {
  InputSpec x{TShape{6}};
  x.values = {-300.7, -1.5, 0.4, 2.9, 255.5, 1e10};
  const OpCase to_uint8{"Cast", {{"dtype", "uint8"}}, {x}};
  const auto out = testing::Forward(to_uint8, testing::MakeInputs(to_uint8, mshadow::kFloat64));
  EXPECT_EQ(out[0].type_flag(), mshadow::kUint8);
  EXPECT_EQ(testing::ToValues(out[0].blob()), (Values{0, 0, 0, 2, 255, 255}));
  const OpCase to_int32{"Cast", {{"dtype", "int32"}}, {x}};
  EXPECT_EQ(testing::ToValues(
                testing::Forward(to_int32, testing::MakeInputs(to_int32, mshadow::kFloat32))[0].blob()),
            (Values{-300, -1, 0, 2, 255, 2147483647}));
  const OpCase to_half{"Cast", {{"dtype", "float16"}}, {InputSpec::WithValues(TShape{3}, {0.5, -2, 1024})}};
  EXPECT_EQ(testing::ToValues(
                testing::Forward(to_half, testing::MakeInputs(to_half, mshadow::kFloat32))[0].blob()),
            (Values{0.5, -2, 1024}));
  const OpCase identity{"Cast", {{"dtype", "float64"}}, {InputSpec{TShape{3, 2}}}};
  testing::CheckWriteModes(identity);
  testing::CheckGradient(identity);
  EXPECT_THAT(testing::ErrorOf([] { ParseAttrs(Op::Get("Cast"), {{"dtype", "bfloat17"}}); }),
              HasSubstr("Invalid Input: 'bfloat17' for dtype, valid values are: {'bfloat16', "
                        "'bool', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8', "
                        "'uint8'}"));
}

// Runs Cast(dtype) on `values` held in `from`; the result's values as doubles.
Values CastValues(const Values& values, int from, const std::string& dtype) {
  const OpCase c{"Cast", {{"dtype", dtype}}, {InputSpec::WithValues(TShape{static_cast<index_t>(values.size())}, values)}};
  CpuTensor x(c.inputs[0].shape, from);
  testing::SetValues(x.blob(), values);
  const std::vector<CpuTensor> out = testing::Forward(c, {x});
  EXPECT_EQ(mshadow::TypeFlagName(out[0].type_flag()), dtype);
  return testing::ToValues(out[0].blob());
}

TEST(CastTest, BoolIsNotZero) {
  const double nan = std::nan("");
  EXPECT_EQ(CastValues({0, 1.5, -2, nan, -0.0, 1e-30}, mshadow::kFloat32, "bool"),
            (Values{0, 1, 1, 1, 0, 1}));
  EXPECT_EQ(CastValues({0, -1, 7}, mshadow::kInt64, "bool"), (Values{0, 1, 1}));
  EXPECT_EQ(CastValues({0, 1, 1}, mshadow::kBool, "float64"), (Values{0, 1, 1}));
  EXPECT_EQ(CastValues({0, 1}, mshadow::kBool, "bfloat16"), (Values{0, 1}));
  EXPECT_EQ(CastValues({0, 1}, mshadow::kBool, "int8"), (Values{0, 1}));
  // Its gradient converts the output gradient back to the input's type, as MXNet.
  const OpCase c{"Cast", {{"dtype", "bool"}}, {InputSpec{TShape{3}}}};
  const std::vector<CpuTensor> grads =
      testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat32), {Values{0, 1, 1}});
  EXPECT_EQ(grads[0].type_flag(), mshadow::kFloat32);
  EXPECT_EQ(testing::ToValues(grads[0].blob()), (Values{0, 1, 1}));
}

// Values from MXNet 1.9.1's CPU Cast to bfloat16 (the low 16 bits of the float dropped).
TEST(CastTest, Bfloat16AsMxnet) {
  const double inf = std::numeric_limits<double>::infinity();
  const Values x{0, 1.5, -2, 1.00390625, 1.01171875, 1.0068359375, 3.4e38, inf, 1e-40};
  const Values expected{0, 1.5, -2, 1, 1.0078125, 1, 3.3895313892515355e+38, inf,
                        9.183549615799121e-41};
  EXPECT_EQ(CastValues(CastValues(x, mshadow::kFloat32, "bfloat16"), mshadow::kBfloat16,
                       "float32"),
            expected);
  EXPECT_TRUE(std::isnan(CastValues({std::nan("")}, mshadow::kFloat64, "bfloat16")[0]));
  // To integers through the same saturating conversion as from float; to float16 exactly.
  EXPECT_EQ(CastValues({1.5, -2.7, 300, 1e30}, mshadow::kBfloat16, "int32"),
            (Values{1, -2, 300, 2147483647}));
  EXPECT_EQ(CastValues({1.5, -2.5, 300}, mshadow::kBfloat16, "float16"), (Values{1.5, -2.5, 300}));
  EXPECT_EQ(CastValues({1.5, -2.5, 300}, mshadow::kFloat16, "bfloat16"), (Values{1.5, -2.5, 300}));
}

TEST(CastTest, OtherOperatorsNameTheTypesTheyTake) {
  CpuTensor x(TShape{3}, mshadow::kBool);
  EXPECT_THAT(testing::ErrorOf([&] { RunCpu(ParseAttrs(Op::Get("relu"), {}), {x.blob()}); }),
              HasSubstr("bool"));
}

}  // namespace
}  // namespace ops
