#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <sstream>
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

using mshadow::index_t;

// NumPy broadcasting, written out: the offset in an array of `shape` that output element
// `flat` (of `out_shape`) reads.
index_t AtIndex(const TShape& shape, const TShape& out_shape, index_t flat) {
  index_t offset = 0, stride = 1;
  index_t rest = flat;
  for (index_t d = out_shape.ndim() - 1; d >= 0; --d) {
    const index_t coordinate = rest % out_shape[d];
    rest /= out_shape[d];
    const index_t s = d - (out_shape.ndim() - shape.ndim());
    if (s < 0) continue;
    offset += (shape[s] == 1 ? 0 : coordinate) * stride;
    stride *= shape[s];
  }
  return offset;
}

double At(const Values& v, const TShape& shape, const TShape& out_shape, index_t flat) {
  return v[AtIndex(shape, out_shape, flat)];
}

TEST(BroadcastTest, ForwardWriteModesAndGradientsOverManyShapePairs) {
  const std::vector<std::pair<TShape, TShape>> pairs = {
      {TShape{3, 4}, TShape{3, 4}}, {TShape{3, 4}, TShape{4}},       {TShape{3, 1}, TShape{1, 4}},
      {TShape{2, 3, 4}, TShape{3, 1}}, {TShape{1}, TShape{2, 2, 3}}, {TShape{2, 1, 3}, TShape{4, 1}}};
  const std::vector<std::pair<std::string, std::function<double(double, double)>>> ops = {
      {"broadcast_add", [](double a, double b) { return a + b; }},
      {"broadcast_sub", [](double a, double b) { return a - b; }},
      {"broadcast_mul", [](double a, double b) { return a * b; }},
      {"broadcast_div", [](double a, double b) { return a / b; }}};
  for (const auto& [name, f] : ops) {
    for (const auto& [lhs, rhs] : pairs) {
      SCOPED_TRACE(name);
      const OpCase c{name, {}, {InputSpec{lhs}, InputSpec(rhs, 0.5, 2.0)}};
      const TShape out_shape = testing::InferOutputShapes(c)[0];
      testing::CheckForward(c, [&](const std::vector<Values>& in) {
        Values out(static_cast<size_t>(out_shape.Size()));
        for (index_t i = 0; i < out_shape.Size(); ++i) {
          out[i] = f(At(in[0], lhs, out_shape, i), At(in[1], rhs, out_shape, i));
        }
        return std::vector<Values>{out};
      });
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
}

// Shapes large enough for the threads, one for each way a gradient is summed: along rows
// (row), within rows (column), over a middle axis (channel), both operands broadcast (outer),
// everything into one element (several fixed chunks), and equal shapes; on 1, 2 and 3
// threads, float32 results the same bits on each.
TEST(BroadcastTest, LargeShapesOnThreadsMatchTheWrittenOutSums) {
  const std::vector<std::pair<TShape, TShape>> pairs = {
      {TShape{300, 2500}, TShape{1, 2500}},   {TShape{3000, 70}, TShape{3000, 1}},
      {TShape{3, 50, 700}, TShape{1, 50, 1}}, {TShape{500, 1}, TShape{1, 300}},
      {TShape{1}, TShape{2, 70001}},          {TShape{400, 500}, TShape{400, 500}}};
  struct Operation {
    std::string name;
    std::function<double(double, double)> f, df_da, df_db;
  };
  const std::vector<Operation> operations = {
      {"broadcast_sub", [](double a, double b) { return a - b; },
       [](double, double) { return 1.0; }, [](double, double) { return -1.0; }},
      {"broadcast_div", [](double a, double b) { return a / b; },
       [](double, double b) { return 1 / b; }, [](double a, double b) { return -a / (b * b); }},
      {"broadcast_maximum", [](double a, double b) { return std::max(a, b); },
       [](double a, double b) { return a >= b ? 1.0 : 0.0; },
       [](double a, double b) { return a >= b ? 0.0 : 1.0; }}};
  for (const Operation& op : operations) {
    for (const auto& [lhs, rhs] : pairs) {
      std::ostringstream trace;
      trace << op.name << " " << lhs << " " << rhs;
      SCOPED_TRACE(trace.str());
      const OpCase c{op.name, {}, {InputSpec{lhs}, InputSpec(rhs, 0.5, 2.0)}};
      const TShape out_shape = testing::InferOutputShapes(c)[0];
      const index_t n = out_shape.Size();
      std::mt19937_64 rng(7);
      const Values og = testing::RandomValues(n, -1, 1, &rng);
      const std::vector<CpuTensor> in64 = testing::MakeInputs(c, mshadow::kFloat64);
      const Values a = testing::ToValues(in64[0].blob()), b = testing::ToValues(in64[1].blob());
      // The reference: each output element's gradient added where its operands came from.
      Values expected[2] = {Values(a.size(), 0.0), Values(b.size(), 0.0)};
      Values expected_out(n);
      for (index_t i = 0; i < n; ++i) {
        const index_t ia = AtIndex(lhs, out_shape, i), ib = AtIndex(rhs, out_shape, i);
        expected_out[i] = op.f(a[ia], b[ib]);
        expected[0][ia] += og[i] * op.df_da(a[ia], b[ib]);
        expected[1][ib] += og[i] * op.df_db(a[ia], b[ib]);
      }
      std::vector<Values> first32;
      for (const int threads : {1, 2, 3}) {
        SCOPED_TRACE("threads=" + std::to_string(threads));
        mshadow::SetNumThreads(threads);
        testing::ExpectClose(expected_out, testing::ToValues(testing::Forward(c, in64)[0].blob()),
                             1e-12, 0, "output");
        const std::vector<CpuTensor> grads = testing::Backward(c, in64, {og});
        testing::ExpectClose(expected[0], testing::ToValues(grads[0].blob()), 1e-9, 1e-9,
                             "lhs grad");
        testing::ExpectClose(expected[1], testing::ToValues(grads[1].blob()), 1e-9, 1e-9,
                             "rhs grad");
        const std::vector<CpuTensor> in32 = testing::MakeInputs(c, mshadow::kFloat32);
        const std::vector<CpuTensor> grads32 = testing::Backward(c, in32, {og});
        std::vector<Values> now32 = {testing::ToValues(testing::Forward(c, in32)[0].blob()),
                                     testing::ToValues(grads32[0].blob()),
                                     testing::ToValues(grads32[1].blob())};
        if (first32.empty()) {
          first32 = now32;
        } else {
          EXPECT_EQ(now32, first32);
        }
      }
      mshadow::SetNumThreads(0);
    }
  }
}

// Comparisons and logical operations give 1 or 0 in the operands' type, and no gradient.
TEST(BroadcastTest, ComparisonsAndLogicalOperations) {
  const std::vector<double> a = {-1, 0, 2, 2, 0, 3}, b = {0, 2};  // (3,2) against (2,)
  const std::vector<std::pair<std::string, Values>> expected = {
      {"broadcast_equal", {0, 0, 0, 1, 1, 0}},       {"broadcast_not_equal", {1, 1, 1, 0, 0, 1}},
      {"broadcast_greater", {0, 0, 1, 0, 0, 1}},     {"broadcast_greater_equal", {0, 0, 1, 1, 1, 1}},
      {"broadcast_lesser", {1, 1, 0, 0, 0, 0}},      {"broadcast_lesser_equal", {1, 1, 0, 1, 1, 0}},
      {"broadcast_logical_and", {0, 0, 0, 1, 0, 1}}, {"broadcast_logical_or", {1, 1, 1, 1, 0, 1}},
      {"broadcast_logical_xor", {1, 1, 1, 0, 0, 0}}};
  for (const auto& [name, values] : expected) {
    SCOPED_TRACE(name);
    const OpCase c{name, {}, {InputSpec::WithValues(TShape{3, 2}, a), InputSpec::WithValues(TShape{2}, b)}};
    for (int type : {mshadow::kFloat32, mshadow::kFloat64}) {
      const std::vector<CpuTensor> out = testing::Forward(c, testing::MakeInputs(c, type));
      EXPECT_EQ(testing::ToValues(out[0].blob()), values);
    }
    // Zero, as are central differences of a step away from its edges (random operands).
    testing::CheckGradient(OpCase{name, {}, {InputSpec(TShape{3, 2}), InputSpec(TShape{2})}});
  }
}

// Ties send the gradient of maximum and minimum to lhs, as MXNet 1.9.1 does.
TEST(BroadcastTest, MaximumAndMinimumTiesGoToLhs) {
  for (const std::string name : {"broadcast_maximum", "broadcast_minimum"}) {
    const OpCase c{name, {}, {InputSpec::WithValues(TShape{2}, {1, 2}), InputSpec::WithValues(TShape{1}, {2})}};
    const std::vector<CpuTensor> grads =
        testing::Backward(c, testing::MakeInputs(c, mshadow::kFloat64), {{1.0, 1.0}});
    EXPECT_EQ(testing::ToValues(grads[0].blob()), (name == "broadcast_maximum" ? Values{0, 1} : Values{1, 1}));
    EXPECT_EQ(testing::ToValues(grads[1].blob()), (name == "broadcast_maximum" ? Values{1} : Values{0}));
  }
}

TEST(BroadcastTest, ShapesFollowNumPyAndIncompatibleOnesAreNamed) {
  const OpCase c{"broadcast_add", {}, {InputSpec{TShape{8, 1, 6, 1}}, InputSpec{TShape{7, 1, 5}}}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{8, 7, 6, 5}));
  const OpCase bad{"broadcast_mul", {}, {InputSpec{TShape{2, 3}}, InputSpec{TShape{4}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(bad); }),
            "broadcast_mul: operands could not be broadcast together with shapes (2,3) (4,)");
}

}  // namespace
}  // namespace ops
