// topk, sort and argsort against a stable sort written out (every ret_typ, both orders, axes
// first, middle, last and none, k below 1 and k = n, every index dtype), ties and NaN,
// gradients of the values through the positions the forward call kept (and zeros for indices
// and masks), hidden outputs, write modes, errors.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/backward.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

// The reference: each line of (outer, n, inner) stably sorted (NaN last, descending reversing
// the values only), its first k values and positions as (outer, k, inner); the mask.
struct Expected {
  Values values, indices, mask;
};

Expected ReferenceTopK(const Values& x, int outer, int n, int inner, int k, bool ascend) {
  Expected e{Values(outer * k * inner), Values(outer * k * inner), Values(x.size(), 0)};
  for (int o = 0; o < outer; ++o) {
    for (int in = 0; in < inner; ++in) {
      auto at = [&](int j) { return (o * n + j) * inner + in; };
      std::vector<int> order(n);
      std::iota(order.begin(), order.end(), 0);
      auto key_less = [](double a, double b) { return a < b || (std::isnan(b) && !std::isnan(a)); };
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return ascend ? key_less(x[at(a)], x[at(b)]) : key_less(x[at(b)], x[at(a)]);
      });
      for (int r = 0; r < k; ++r) {
        e.values[(o * k + r) * inner + in] = x[at(order[r])];
        e.indices[(o * k + r) * inner + in] = order[r];
        e.mask[at(order[r])] = 1;
      }
    }
  }
  return e;
}

struct TopKCase {
  std::string name;
  TShape data;
  std::string axis;  // "None" flattens
  int outer, n, inner;
};

class TopKTest : public ::testing::TestWithParam<TopKCase> {};

TEST_P(TopKTest, EveryReturnTypeOrderAndIndexType) {
  const TopKCase& tc = GetParam();
  for (const int k : {1, 3, 0, tc.n}) {
    for (const bool ascend : {false, true}) {
      for (const std::string ret : {"value", "indices", "mask", "both"}) {
        for (const std::string dtype : {"float32", "float64", "int32", "int64"}) {
          for (const int type : {mshadow::kFloat32, mshadow::kFloat64}) {
            SCOPED_TRACE("k=" + std::to_string(k) + " ascend=" + std::to_string(ascend) +
                         " ret=" + ret + " dtype=" + dtype + " " + mshadow::TypeFlagName(type));
            const OpCase c{"topk",
                           {{"axis", tc.axis},
                            {"k", std::to_string(k)},
                            {"is_ascend", ascend ? "True" : "False"},
                            {"ret_typ", ret},
                            {"dtype", dtype}},
                           {InputSpec{tc.data}}};
            const std::vector<CpuTensor> in = testing::MakeInputs(c, type);
            const std::vector<CpuTensor> out = testing::Forward(c, in);
            const Expected e = ReferenceTopK(testing::ToValues(in[0].blob()), tc.outer, tc.n,
                                             tc.inner, k < 1 ? tc.n : k, ascend);
            const int index_type = std::map<std::string, int>{
                {"float32", mshadow::kFloat32},
                {"float64", mshadow::kFloat64},
                {"int32", mshadow::kInt32},
                {"int64",
                 mshadow::kInt64}}.at(dtype);
            if (ret == "value" || ret == "both") {
              EXPECT_EQ(out[0].type_flag(), type);
              EXPECT_THAT(testing::ToValues(out[0].blob()), ElementsAreArray(e.values));
            }
            if (ret == "value") {  // the positions, hidden, for the gradient
              ASSERT_EQ(out.size(), 2u);
              EXPECT_EQ(out[1].type_flag(), mshadow::kInt64);
              EXPECT_THAT(testing::ToValues(out[1].blob()), ElementsAreArray(e.indices));
            }
            if (ret == "indices" || ret == "both") {
              const CpuTensor& indices = out[ret == "both" ? 1 : 0];
              EXPECT_EQ(indices.type_flag(), index_type);
              EXPECT_THAT(testing::ToValues(indices.blob()), ElementsAreArray(e.indices));
            }
            if (ret == "mask") {
              EXPECT_EQ(out[0].type_flag(), type);
              EXPECT_EQ(out[0].shape(), tc.data);
              EXPECT_THAT(testing::ToValues(out[0].blob()), ElementsAreArray(e.mask));
            }
          }
        }
      }
    }
  }
}

TEST_P(TopKTest, ValueGradientsAndWriteModes) {
  const TopKCase& tc = GetParam();
  for (const std::string op : {"sort", "topk"}) {
    for (const bool ascend : {false, true}) {
      SCOPED_TRACE(op + (ascend ? " ascending" : " descending"));
      OpCase c{
          op, {{"axis", tc.axis}, {"is_ascend", ascend ? "True" : "False"}}, {InputSpec{tc.data}}};
      if (op == "topk") {
        c.kwargs["k"] = "2";
        c.kwargs["ret_typ"] = "value";
      }
      const int k = op == "topk" ? 2 : tc.n;
      testing::CheckForward(c, [&](const std::vector<Values>& in) {
        return std::vector<Values>{
            ReferenceTopK(in[0], tc.outer, tc.n, tc.inner, k, ascend).values};
      });
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Axes, TopKTest,
                         ::testing::Values(TopKCase{"last_axis", TShape{3, 7}, "-1", 3, 7, 1},
                                           TopKCase{"middle_axis", TShape{2, 5, 3}, "1", 2, 5, 3},
                                           TopKCase{"first_axis", TShape{6, 4}, "0", 1, 6, 4},
                                           TopKCase{"flattened", TShape{2, 3, 2}, "None", 1, 12, 1},
                                           TopKCase{"long_line", TShape{2, 300}, "-1", 2, 300, 1}),
                         [](const ::testing::TestParamInfo<TopKCase>& info) {
                           return info.param.name;
                         });

std::vector<double> Output(const std::string& op, std::map<std::string, std::string> kwargs,
                           const std::vector<double>& x, size_t output = 0) {
  const OpCase c{op, kwargs, {InputSpec::WithValues(TShape{static_cast<index_t>(x.size())}, x)}};
  const std::vector<CpuTensor> out = testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32));
  return testing::ToValues(out[output].blob());
}

TEST(SortTest, TiesKeepTheirOrderAndNanGoesLast) {
  const std::vector<double> ties = {1, 2, 2, 1, 2};  // MXNet 1.9.1's answers
  EXPECT_THAT(Output("argsort", {}, ties), ElementsAreArray({0, 3, 1, 2, 4}));
  EXPECT_THAT(Output("argsort", {{"is_ascend", "False"}}, ties), ElementsAreArray({1, 2, 4, 0, 3}));
  EXPECT_THAT(Output("topk", {{"k", "3"}}, ties), ElementsAreArray({1, 2, 4}));
  const double nan = std::nan("");
  const std::vector<double> sorted = Output("sort", {}, {1, nan, 3, 2});
  EXPECT_THAT(std::vector<double>(sorted.begin(), sorted.begin() + 3), ElementsAreArray({1, 2, 3}));
  EXPECT_TRUE(std::isnan(sorted[3]));
  EXPECT_THAT(Output("topk", {{"k", "2"}}, {1, nan, 3, 2}), ElementsAreArray({1, 2}));
}

// A few values of a long line come from one selecting pass, not a sort: with ties and NaN,
// its values and positions are the first k of the full (stable) order, in both orders.
TEST(SortTest, SelectingAFewOfALongLineMatchesTheFullOrder) {
  const double nan = std::nan("");
  std::vector<double> x;
  for (int i = 0; i < 96; ++i) x.push_back(i % 7 == 3 ? nan : static_cast<double>((i * 5) % 4));
  for (const std::string ascend : {"False", "True"}) {
    SCOPED_TRACE(ascend);
    const auto all = Output("argsort", {{"is_ascend", ascend}, {"dtype", "int32"}}, x);
    for (const int k : {1, 4}) {
      const auto indices =
          Output("topk", {{"k", std::to_string(k)}, {"is_ascend", ascend}, {"dtype", "int32"}}, x);
      EXPECT_THAT(indices, ElementsAreArray(all.begin(), all.begin() + k)) << "k=" << k;
    }
  }
}

TEST(SortTest, IndicesAndMasksPassNoGradient) {
  for (const std::string ret : {"indices", "mask", "both"}) {
    SCOPED_TRACE(ret);
    const OpCase c{"topk", {{"k", "2"}, {"ret_typ", ret}}, {InputSpec{TShape{3, 5}}}};
    const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
    const std::vector<CpuTensor> out = testing::Forward(c, in);
    std::vector<Values> heads;
    for (const CpuTensor& y : out) heads.push_back(Values(y.shape().Size(), 1.0));
    const Values grad = testing::ToValues(testing::Backward(c, in, heads)[0].blob());
    // Both: each of the 2 kept values per row passes its 1 back; else nothing.
    const double expected = ret == "both" ? 6 : 0;
    EXPECT_EQ(std::accumulate(grad.begin(), grad.end(), 0.0), expected);
  }
}

// Values come with their positions: hidden (int64) for ret_typ=value and sort, the visible
// indices for both; none for indices, mask and argsort.
TEST(SortTest, VisibleAndHiddenOutputs) {
  const struct {
    std::string op, ret;
    uint32_t outputs, visible;
  } cases[] = {{"topk", "value", 2, 1}, {"topk", "both", 2, 2}, {"topk", "indices", 1, 1},
               {"topk", "mask", 1, 1},  {"sort", "", 2, 1},     {"argsort", "", 1, 1}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.op + " " + c.ret);
    std::map<std::string, std::string> kwargs;
    if (!c.ret.empty()) kwargs["ret_typ"] = c.ret;
    const NodeAttrs attrs = ParseAttrs(Op::Get(c.op), kwargs);
    EXPECT_EQ(attrs.op->num_outputs(attrs), c.outputs);
    EXPECT_EQ(attrs.op->num_visible_outputs(attrs), c.visible);
  }
  EXPECT_TRUE(Op::Get("topk")->has_variable_visible_outputs());
}

// The backward operator follows the positions it is handed, not the data; one outside the
// axis (negative, past it, NaN) sends its gradient nowhere. Each case: a (2,4) gradient from
// two values per row.
TEST(SortTest, GradientFollowsThePositionsGivenAndSkipsThoseOutsideTheAxis) {
  for (const std::string ret : {"value", "both"}) {
    SCOPED_TRACE(ret);
    const NodeAttrs attrs =
        ParseAttrs(Op::Get("topk"), {{"k", "2"}, {"ret_typ", ret}, {"dtype", "float32"}});
    CpuTensor data(TShape{2, 4}, mshadow::kFloat32);
    testing::SetValues(data.blob(), {1, 2, 3, 4, 5, 6, 7, 8});
    std::vector<CpuTensor> out = RunCpu(attrs, {data.blob()});
    ASSERT_EQ(out.size(), 2u);
    const double outside = ret == "value" ? 4 : std::nan("");
    testing::SetValues(out[1].blob(), {0, -1, outside, 3});
    CpuTensor head(out[0].shape(), mshadow::kFloat32),
        positions_head(out[1].shape(), out[1].type_flag());
    testing::SetValues(head.blob(), {10, 20, 30, 40});
    CpuTensor grad(data.shape(), mshadow::kFloat32);
    testing::SetValues(grad.blob(), Values(8, 100.0));
    const NodeAttrs backward = BackwardAttrs(attrs);
    for (const OpReqType req : {kWriteTo, kAddTo}) {
      Invoke<mshadow::cpu>(
          backward, MakeCpuContext(backward),
          BackwardInputs(attrs, {head.blob(), positions_head.blob()}, {data.blob()}, Blobs(out)),
          {req}, {grad.blob()});
      const double times = req == kAddTo ? 2 : 1;  // kAddTo adds onto kWriteTo's result
      EXPECT_EQ(testing::ToValues(grad.blob()), (Values{10 * times, 0, 0, 0, 0, 0, 0, 40 * times}));
    }
  }
}

TEST(SortTest, ShapesAndErrors) {
  EXPECT_EQ(testing::InferOutputShapes(
                OpCase{"topk", {{"k", "2"}, {"axis", "1"}}, {InputSpec{TShape{4, 6, 3}}}})[0],
            (TShape{4, 2, 3}));
  EXPECT_EQ(testing::InferOutputShapes(OpCase{"topk",
                                              {{"k", "2"}, {"axis", "None"}, {"ret_typ", "mask"}},
                                              {InputSpec{TShape{4, 6}}}})[0],
            (TShape{4, 6}));
  EXPECT_EQ(
      testing::InferOutputShapes(OpCase{"sort", {{"axis", "None"}}, {InputSpec{TShape{4, 6}}}})[0],
      (TShape{24}));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(OpCase{"topk", {{"k", "5"}}, {InputSpec{TShape{2, 4}}}});
              }),
              HasSubstr("topk: k 5 is more than the 4 elements of data (2,4) along the axis"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(OpCase{"argsort", {}, {InputSpec{TShape{20000000}}}});
              }),
              HasSubstr("argsort: dtype float32 cannot hold the positions of 20000000 elements"));
  EXPECT_THAT(
      testing::ErrorOf([] {
        testing::InferOutputShapes(OpCase{"sort", {{"axis", "2"}}, {InputSpec{TShape{2, 4}}}});
      }),
      HasSubstr("axis 2 is out of range"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("topk"), {{"ret_typ", "values"}});
              }),
              HasSubstr("ret_typ"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("argsort"), {{"dtype", "uint8"}});
              }),
              HasSubstr("dtype"));
}

}  // namespace
}  // namespace ops
