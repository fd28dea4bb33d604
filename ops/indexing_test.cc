// take, pick, batch_take, fill_element_0index and one_hot against MXNet 1.9.1's outputs (run
// there on these inputs), index modes, gradients with repeated indices, shapes and bad indices.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

// a = arange(12).reshape(3, 4).
InputSpec Arange34() {
  Values v;
  for (int i = 0; i < 12; ++i) v.push_back(i);
  return InputSpec::WithValues(TShape{3, 4}, v);
}

InputSpec Indices(TShape shape, Values values) {
  InputSpec spec = InputSpec::WithValues(std::move(shape), std::move(values));
  spec.differentiable = false;
  return spec;
}

// Integer indices in [lo, hi), not differentiated.
InputSpec RandomIndices(TShape shape, double lo, double hi) {
  InputSpec spec(std::move(shape), lo, hi);
  spec.integer = true;
  spec.differentiable = false;
  return spec;
}

Values ForwardValues(const OpCase& c, int type = mshadow::kFloat32) {
  return testing::ToValues(testing::Forward(c, testing::MakeInputs(c, type))[0].blob());
}

TEST(TakeTest, ModesAsMxnet) {
  // mx.nd.take(a, [[-1.5, 0.7], [2.9, 5]], axis=0): rows 0, 0, 2, 2.
  const OpCase clip{"take", {}, {Arange34(), Indices(TShape{2, 2}, {-1.5, 0.7, 2.9, 5})}};
  EXPECT_EQ(testing::InferOutputShapes(clip)[0], (TShape{2, 2, 4}));
  EXPECT_EQ(ForwardValues(clip), (Values{0, 1, 2, 3, 0, 1, 2, 3, 8, 9, 10, 11, 8, 9, 10, 11}));
  // mx.nd.take(a, [-1, 5, -5], axis=1, mode='wrap'): columns 3, 1, 3.
  const OpCase wrap{"take", {{"axis", "1"}, {"mode", "wrap"}}, {Arange34(), Indices(TShape{3}, {-1, 5, -5})}};
  EXPECT_EQ(ForwardValues(wrap), (Values{3, 1, 3, 7, 5, 7, 11, 9, 11}));
  const OpCase raise{"take", {{"mode", "raise"}}, {Arange34(), Indices(TShape{2}, {1, 3})}};
  EXPECT_THAT(testing::ErrorOf([&] { ForwardValues(raise); }),
              HasSubstr("take with mode=raise: index 3 at position 1 is outside the axis of "
                        "extent 3 (valid: 0 to 2)"));
  const OpCase in_range{"take", {{"mode", "raise"}, {"axis", "-1"}}, {Arange34(), Indices(TShape{2}, {3, 0})}};
  EXPECT_EQ(ForwardValues(in_range), (Values{3, 0, 7, 4, 11, 8}));
}

// Found by //ops:invoke_fuzz: a huge index in wrap mode overflowed the integer conversion.
// The raise check counts bad indices in SIMD lanes first: the first one past the first
// packets (NaN included) is still the one named, with its position.
TEST(TakeTest, RaiseNamesTheFirstBadIndexAfterPackets) {
  const std::pair<double, const char*> cases[] = {{3, "3"}, {-1, "-1"}, {std::nan(""), "nan"}};
  for (const auto& [bad, text] : cases) {
    Values idx(45, 1.0);
    idx[37] = bad;
    idx[41] = 7;
    const OpCase c{"take", {{"mode", "raise"}}, {Arange34(), Indices(TShape{45}, idx)}};
    EXPECT_THAT(testing::ErrorOf([&] { ForwardValues(c); }),
                HasSubstr(std::string("index ") + text + " at position 37 is outside the axis"));
  }
}

// Large outputs are written through streaming stores: forced on here (any output size), rows
// of 40 elements (some start aligned, some not) come out as with ordinary stores.
TEST(TakeTest, ThroughStreamingStoresAsOrdinaryStores) {
  const OpCase c{"take", {}, {InputSpec(TShape{50, 40}), RandomIndices(TShape{7, 3}, 0, 50)}};
  const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat32);
  mshadow::SetStreamingStoreMinBytes(mshadow::kNoStreamingStores);
  const Values ordinary = testing::ToValues(testing::Forward(c, in)[0].blob());
  mshadow::SetStreamingStoreMinBytes(1);
  const Values streamed = testing::ToValues(testing::Forward(c, in)[0].blob());
  mshadow::SetStreamingStoreMinBytes(0);
  EXPECT_EQ(streamed, ordinary);
  const Values table = testing::ToValues(in[0].blob()), idx = testing::ToValues(in[1].blob());
  ASSERT_EQ(ordinary.size(), 21u * 40);
  for (size_t j = 0; j < 21; ++j) {
    for (size_t t = 0; t < 40; ++t) {
      ASSERT_EQ(ordinary[j * 40 + t], table[static_cast<size_t>(idx[j]) * 40 + t]) << j;
    }
  }
}

TEST(TakeTest, HugeAndNonFiniteIndicesStayInside) {
  const double inf = std::numeric_limits<double>::infinity();
  const OpCase wrap{"take", {{"mode", "wrap"}},
                    {Arange34(), Indices(TShape{4}, {1e30, -1e30, inf, std::nan("")})}};
  const Values out = ForwardValues(wrap, mshadow::kFloat64);
  ASSERT_EQ(out.size(), 16u);
  for (double v : out) EXPECT_TRUE(v >= 0 && v < 12) << v;
  const OpCase clip{"take", {}, {Arange34(), Indices(TShape{2}, {1e30, -inf})}};
  EXPECT_EQ(ForwardValues(clip, mshadow::kFloat64), (Values{8, 9, 10, 11, 0, 1, 2, 3}));
}

TEST(TakeTest, GradientsAddRepeatedIndices) {
  for (const char* axis : {"0", "1", "-1"}) {
    for (const char* mode : {"clip", "wrap"}) {
      SCOPED_TRACE(std::string(axis) + " " + mode);
      const OpCase c{"take", {{"axis", axis}, {"mode", mode}},
                     {InputSpec(TShape{4, 3, 5}), RandomIndices(TShape{2, 6}, -2, 7)}};
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
  // Rows longer than the CPU's blocks of columns (600 elements: blocks of at most 256), every
  // element of the gradient against the direct sums.
  const OpCase wide{"take", {}, {InputSpec(TShape{4, 600}), Indices(TShape{4}, {1, 3, 1, 0})}};
  Values og(4 * 600), expected(4 * 600, 0.0);
  const int rows[4] = {1, 3, 1, 0};
  for (int j = 0; j < 4; ++j) {
    for (int t = 0; t < 600; ++t) {
      og[j * 600 + t] = j * 1000 + t;
      expected[rows[j] * 600 + t] += og[j * 600 + t];
    }
  }
  EXPECT_EQ(
      testing::ToValues(
          testing::Backward(wide, testing::MakeInputs(wide, mshadow::kFloat64), {og})[0].blob()),
      expected);
  // Index 1 taken three times: its row of the gradient is three output gradients' sum.
  const OpCase c{"take", {}, {InputSpec(TShape{3, 2}), Indices(TShape{4}, {1, 1, 0, 1})}};
  const std::vector<CpuTensor> grads =
      testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat64), {{1, 2, 3, 4, 5, 6, 7, 8}});
  EXPECT_EQ(testing::ToValues(grads[0].blob()), (Values{5, 6, 1 + 3 + 7, 2 + 4 + 8, 0, 0}));
  EXPECT_EQ(testing::ToValues(grads[1].blob()), Values(4, 0.0));
}

// The gradient of one outer block (an embedding table's rows) on 1-4 threads, which block its
// columns differently: float32 sums the same bits on each, and the direct sums.
TEST(TakeTest, GradientOfRepeatedRowsIsTheSameOnEveryThreadCount) {
  for (const int inner : {600, 256, 40}) {
    SCOPED_TRACE("inner " + std::to_string(inner));
    const OpCase c{"take", {}, {InputSpec(TShape{30, inner}), RandomIndices(TShape{400}, 0, 30)}};
    const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat32);
    std::mt19937_64 rng(3);
    const Values og = testing::RandomValues(400 * inner, -1, 1, &rng);
    const Values idx = testing::ToValues(in[1].blob());
    Values expected(30 * inner, 0.0);
    for (int j = 0; j < 400; ++j) {
      for (int t = 0; t < inner; ++t) {
        expected[static_cast<int>(idx[j]) * inner + t] += static_cast<float>(og[j * inner + t]);
      }
    }
    Values first;
    for (const int threads : {1, 2, 3, 4}) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      mshadow::SetNumThreads(threads);
      const Values grad = testing::ToValues(testing::Backward(c, in, {og})[0].blob());
      testing::ExpectClose(expected, grad, 1e-5, 1e-5, "gradient");
      if (first.empty()) first = grad;
      EXPECT_EQ(grad, first);
    }
    mshadow::SetNumThreads(0);
  }
}

TEST(PickTest, ClipAndWrapAsMxnet) {
  // mx.nd.pick(a, [0, 5, -1], axis=1): [0, 7, 8]; mode='wrap': [0, 5, 11].
  const OpCase clip{"pick", {{"axis", "1"}}, {Arange34(), Indices(TShape{3}, {0, 5, -1})}};
  EXPECT_EQ(ForwardValues(clip), (Values{0, 7, 8}));
  const OpCase wrap{"pick", {{"axis", "1"}, {"mode", "wrap"}}, {Arange34(), Indices(TShape{3}, {0, 5, -1})}};
  EXPECT_EQ(ForwardValues(wrap), (Values{0, 5, 11}));
  const OpCase keep{"pick", {{"axis", "0"}, {"keepdims", "True"}}, {Arange34(), Indices(TShape{1, 4}, {0, 2, 1, 1})}};
  EXPECT_EQ(testing::InferOutputShapes(keep)[0], (TShape{1, 4}));
  EXPECT_EQ(ForwardValues(keep), (Values{0, 9, 6, 7}));
  const OpCase flat{"pick", {{"axis", "None"}}, {Arange34(), Indices(TShape{1}, {7})}};
  EXPECT_EQ(ForwardValues(flat), (Values{7}));
  const OpCase random{"pick", {{"axis", "1"}}, {InputSpec(TShape{3, 5, 2}), RandomIndices(TShape{3, 2}, -1, 6)}};
  for (const OpCase& c : {clip, keep, random}) {
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"pick", {}, {InputSpec(TShape{3, 4}), InputSpec(TShape{4})}});
              }),
              HasSubstr("shape of input 'index' is (4,) but (3,) is required"));
}

TEST(BatchTakeTest, PicksAlongTheLastAxisAsMxnet) {
  // mx.nd.batch_take(arange(6).reshape(3, 2), [0, 1, 0]): [0, 3, 4]; [5, -1, 2]: [1, 2, 5].
  Values arange6;
  for (int i = 0; i < 6; ++i) arange6.push_back(i);
  const InputSpec a = InputSpec::WithValues(TShape{3, 2}, arange6);
  EXPECT_EQ(ForwardValues({"batch_take", {}, {a, Indices(TShape{3}, {0, 1, 0})}}),
            (Values{0, 3, 4}));
  const OpCase clipped{"batch_take", {}, {a, Indices(TShape{3}, {5, -1, 2})}};
  EXPECT_EQ(ForwardValues(clipped), (Values{1, 2, 5}));
  // A batch of (2, 3) positions from a (2, 3, 4) array: element (i, j) is a[i, j, index].
  const OpCase batch{
      "batch_take", {}, {InputSpec(TShape{2, 3, 4}), RandomIndices(TShape{2, 3}, 0, 4)}};
  testing::CheckForward(batch, [](const std::vector<Values>& in) {
    Values out;
    for (int p = 0; p < 6; ++p) out.push_back(in[0][p * 4 + static_cast<int>(in[1][p])]);
    return std::vector<Values>{out};
  });
  for (const OpCase& c : {clipped, batch}) {
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    {"batch_take", {}, {InputSpec(TShape{2, 3, 4}), InputSpec(TShape{2})}});
              }),
              HasSubstr("shape of input 'indices' is (2,) but (2,3) is required"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("batch_take"), {{"axis", "0"}});
              }),
              HasSubstr("batch_take takes no parameters; got 'axis'"));
}

TEST(FillElementTest, ReplacesOneElementPerRowAsMxnet) {
  // mx.nd.fill_element_0index(arange(12).reshape(3, 4), [10, 20, 30], [1.7, 2.2, 0.9]).
  const OpCase c{"fill_element_0index",
                 {},
                 {Arange34(), InputSpec::WithValues(TShape{3}, {10, 20, 30}),
                  Indices(TShape{3}, {1.7, 2.2, 0.9})}};
  EXPECT_EQ(ForwardValues(c), (Values{0, 10, 2, 3, 4, 5, 20, 7, 30, 9, 10, 11}));
  // Rows longer than a SIMD packet, int32 indices too.
  for (const int index_type : {-1, static_cast<int>(mshadow::kInt32)}) {
    InputSpec columns = RandomIndices(TShape{5}, 0, 300);
    columns.type_flag = index_type;
    const OpCase rows{
        "fill_element_0index", {}, {InputSpec(TShape{5, 300}), InputSpec(TShape{5}), columns}};
    testing::CheckForward(rows, [](const std::vector<Values>& in) {
      Values out = in[0];
      for (int r = 0; r < 5; ++r) out[r * 300 + static_cast<int>(in[2][r])] = in[1][r];
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(rows);
  }
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

TEST(FillElementTest, BadIndicesAndShapesAreErrors) {
  const auto fill = [](const TShape& lhs, const TShape& mhs, const TShape& rhs, Values columns) {
    return testing::ErrorOf([&] {
      const OpCase c{"fill_element_0index",
                     {},
                     {InputSpec(lhs), InputSpec(mhs), Indices(rhs, std::move(columns))}};
      testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32));
    });
  };
  EXPECT_THAT(fill(TShape{3, 4}, TShape{3}, TShape{3}, {0, 4, 1}),
              HasSubstr("fill_element_0index: index 4 at position 1 is outside the axis of "
                        "extent 4 (valid: 0 to 3)"));
  EXPECT_THAT(fill(TShape{3, 4}, TShape{3}, TShape{3}, {0, 1, -1}),
              HasSubstr("index -1 at position 2 is outside"));
  EXPECT_THAT(fill(TShape{2, 3, 4}, TShape{2}, TShape{2}, {0, 0}),
              HasSubstr("fill_element_0index: lhs (2,3,4) must be a matrix (rows, cols)"));
  EXPECT_THAT(fill(TShape{3, 4}, TShape{2}, TShape{3}, {0, 0, 0}),
              HasSubstr("fill_element_0index: mhs (2,) must be (3,), one per row of lhs (3,4)"));
  EXPECT_THAT(fill(TShape{3, 4}, TShape{3}, TShape{3, 1}, {0, 0, 0}),
              HasSubstr("rhs (3,1) must be (3,)"));
}

// Selecting along an empty axis would read outside the data (found by //ops:invoke_fuzz:
// pick without an axis on empty data): an error, unless the output is empty too.
TEST(TakeTest, EmptyAxisIsAnErrorUnlessTheOutputIsEmpty) {
  auto error = [](const OpCase& c) {
    return testing::ErrorOf([&] { testing::InferOutputShapes(c); });
  };
  EXPECT_THAT(error({"pick",
                     {{"axis", "None"}},
                     {InputSpec(TShape{0, 3}), InputSpec(TShape{1})}}),
              HasSubstr("pick: data (0,3) has no element to select along the axis, but the "
                        "output (1,) is not empty"));
  EXPECT_THAT(error({"pick", {{"axis", "1"}}, {InputSpec(TShape{2, 0}), InputSpec(TShape{2})}}),
              HasSubstr("pick: data (2,0) has no element"));
  EXPECT_THAT(error({"take", {}, {InputSpec(TShape{0, 3}), InputSpec(TShape{2})}}),
              HasSubstr("take: data (0,3) has no element"));
  EXPECT_EQ(testing::InferOutputShapes(
                {"take", {}, {InputSpec(TShape{0, 3}), InputSpec(TShape{0})}})[0],
            (TShape{0, 3}));
}

TEST(OneHotTest, OnOffAndIndicesOutside) {
  // mx.nd.one_hot([1, -1, 5, 2.7], depth=4, on_value=3, off_value=-1).
  const OpCase c{"one_hot", {{"depth", "4"}, {"on_value", "3"}, {"off_value", "-1"}},
                 {Indices(TShape{4}, {1, -1, 5, 2.7})}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{4, 4}));
  EXPECT_EQ(ForwardValues(c), (Values{-1, 3, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 3, -1}));
  const OpCase f64{"one_hot", {{"depth", "3"}, {"dtype", "float64"}}, {Indices(TShape{2}, {0, 2})}};
  const std::vector<CpuTensor> out = testing::Forward(f64, testing::MakeInputs(f64, mshadow::kInt32));
  EXPECT_EQ(out[0].type_flag(), mshadow::kFloat64);
  EXPECT_EQ(testing::ToValues(out[0].blob()), (Values{1, 0, 0, 0, 0, 1}));
  testing::CheckWriteModes(f64);  // its output is float64, as the check reads it
  // 37 classes (packets and a tail), hits at both ends, inside a packet, after the last
  // packet, outside and NaN; written and added.
  const Values hits = {0, 36, 9, 33, -1, 37, std::nan("")};
  const OpCase wide{
      "one_hot",
      {{"depth", "37"}, {"on_value", "2"}, {"off_value", "-0.5"}, {"dtype", "float64"}},
      {Indices(TShape{7}, hits)}};
  const Values classes = ForwardValues(wide);
  ASSERT_EQ(classes.size(), 7u * 37);
  for (int r = 0; r < 7; ++r) {
    for (int k = 0; k < 37; ++k) {
      EXPECT_EQ(classes[r * 37 + k], hits[r] == k ? 2 : -0.5) << r << " " << k;
    }
  }
  // (The write-mode check compares the inputs after each run: NaN never equals itself.)
  const OpCase wide_finite{"one_hot", wide.kwargs, {Indices(TShape{6}, {0, 36, 9, 33, -1, 37})}};
  testing::CheckWriteModes(wide_finite);
  EXPECT_THAT(testing::ErrorOf([] { ParseAttrs(Op::Get("one_hot"), {{"depth", "0"}}); }),
              HasSubstr("depth"));
}

}  // namespace
}  // namespace ops
