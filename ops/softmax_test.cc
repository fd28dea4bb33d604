// softmax, log_softmax, softmin, softmax_cross_entropy.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
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

// Softmax along `axis` of a (2, 3, 4) input, written out.
std::vector<Values> SoftmaxReference(const Values& x, int axis, double t, bool log) {
  const index_t dims[3] = {2, 3, 4};
  const index_t strides[3] = {12, 4, 1};
  Values out(x.size());
  for (index_t i = 0; i < 24; ++i) {
    const index_t coordinate = (i / strides[axis]) % dims[axis];
    const index_t base = i - coordinate * strides[axis];
    double sum = 0;
    for (index_t j = 0; j < dims[axis]; ++j) sum += std::exp(x[base + j * strides[axis]] / t);
    out[i] = log ? x[i] / t - std::log(sum) : std::exp(x[i] / t) / sum;
  }
  return {out};
}

TEST(SoftmaxTest, EveryAxisWithAndWithoutTemperature) {
  for (const bool log : {false, true}) {
    for (const int axis : {0, 1, 2, -1}) {
      for (const std::string temperature : {"None", "2.5"}) {
        const std::string name = log ? "log_softmax" : "softmax";
        SCOPED_TRACE(name + " axis " + std::to_string(axis) + " T " + temperature);
        const OpCase c{name,
                       {{"axis", std::to_string(axis)}, {"temperature", temperature}},
                       {InputSpec{TShape{2, 3, 4}}}};
        const double t = temperature == "None" ? 1.0 : 2.5;
        testing::CheckForward(
            c,
            [&](const std::vector<Values>& in) {
              return SoftmaxReference(in[0], axis < 0 ? axis + 3 : axis, t, log);
            },
            1e-13, 1e-5);
        testing::CheckWriteModes(c);
        testing::CheckGradient(c);
      }
    }
  }
}

// Softmax along `axis` of any shape, in double.
Values SoftmaxAlong(const Values& x, const TShape& shape, int axis, double t, bool log) {
  const mshadow::Shape<3> v = shape.FlatTo3D(axis);
  Values out(x.size());
  for (index_t o = 0; o < v[0]; ++o) {
    for (index_t k = 0; k < v[2]; ++k) {
      const index_t base = o * v[1] * v[2] + k;
      double max = -INFINITY, sum = 0;
      for (index_t j = 0; j < v[1]; ++j) max = std::max(max, x[base + j * v[2]]);
      for (index_t j = 0; j < v[1]; ++j) sum += std::exp((x[base + j * v[2]] - max) / t);
      for (index_t j = 0; j < v[1]; ++j) {
        const double shifted = (x[base + j * v[2]] - max) / t;
        out[base + j * v[2]] = log ? shifted - std::log(sum) : std::exp(shifted) / sum;
      }
    }
  }
  return out;
}

// Shapes that take every path of the vectorized kernels: rows of whole packets plus a tail,
// several column blocks along an inner axis, and enough work to be split over threads.
TEST(SoftmaxTest, VectorTailColumnBlockAndThreadedPaths) {
  mshadow::SetNumThreads(2);
  const std::vector<std::pair<TShape, int>> cases = {
      {TShape{3, 37, 19}, 1}, {TShape{3, 37, 19}, 2}, {TShape{2, 5, 1100}, 1},
      {TShape{64, 1030}, 1},  {TShape{300, 130}, 0},
  };
  for (const bool log : {false, true}) {
    for (const auto& [shape, axis] : cases) {
      const std::string name = log ? "log_softmax" : "softmax";
      std::ostringstream trace;
      trace << name << " " << shape << " axis " << axis;
      SCOPED_TRACE(trace.str());
      const OpCase c{
          name, {{"axis", std::to_string(axis)}, {"temperature", "0.7"}}, {InputSpec{shape}}};
      testing::CheckForward(
          c,
          [&](const std::vector<Values>& in) {
            return std::vector<Values>{SoftmaxAlong(in[0], shape, axis, 0.7, log)};
          },
          1e-13, 1e-5);
      testing::CheckWriteModes(c);
    }
    // Gradients on a shape small enough for central differences, past one packet a row.
    for (const int axis : {1, 2}) {
      testing::CheckGradient(OpCase{log ? "log_softmax" : "softmax",
                                    {{"axis", std::to_string(axis)}},
                                    {InputSpec{TShape{2, 11, 13}}}});
    }
  }
  mshadow::SetNumThreads(0);
}

// Rows longer than a block of the row kernels (8 KiB) whose shift moves from block to block:
// rising (every block moves the maximum, and the sums so far are rescaled), falling (the
// first block holds it) and random, with a tail; at a positive and a negative temperature
// (whose shift is the minimum).
TEST(SoftmaxTest, LongRowsWhoseShiftMovesBetweenBlocks) {
  const index_t n = 2 * 2048 + 1000 + 3;
  Values values(3 * n);
  for (index_t k = 0; k < n; ++k) {
    values[k] = 60.0 * k / n;
    values[n + k] = 30.0 - 60.0 * k / n;
    values[2 * n + k] = std::sin(0.37 * k) * 25.0;
  }
  const TShape shape{3, n};
  for (const std::string op : {"softmax", "log_softmax"}) {
    for (const double t : {1.0, -0.5}) {
      SCOPED_TRACE(op + " temperature " + std::to_string(t));
      const OpCase c{op,
                     {{"axis", "-1"}, {"temperature", std::to_string(t)}},
                     {InputSpec::WithValues(shape, values)}};
      testing::CheckForward(c, [&](const std::vector<Values>& in) {
        return std::vector<Values>{SoftmaxAlong(in[0], shape, 1, t, op == "log_softmax")};
      });
      testing::CheckWriteModes(c);
    }
  }
}

// A row whose first block is all -inf (masked out) and whose others are not: the masked
// elements get probability 0 and the others their softmax among themselves.
TEST(SoftmaxTest, LongRowMaskedByInfinities) {
  const index_t n = 3 * 2048;
  Values values(n);
  for (index_t k = 0; k < n; ++k) {
    values[k] = k < 2048 + 5 ? -std::numeric_limits<double>::infinity() : std::cos(0.1 * k);
  }
  const OpCase c{"softmax", {{"axis", "-1"}}, {InputSpec::WithValues(TShape{1, n}, values)}};
  const auto out = testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32));
  const Values p = testing::ToValues(out[0].blob());
  double sum = 0;
  for (index_t k = 2048 + 5; k < n; ++k) sum += std::exp(values[k]);
  for (index_t k = 0; k < n; ++k) {
    const double expected = k < 2048 + 5 ? 0.0 : std::exp(values[k]) / sum;
    ASSERT_NEAR(p[k], expected, 1e-6 * expected + 1e-12) << "element " << k;
  }
}

TEST(SoftmaxTest, LargeInputsDoNotOverflow) {
  InputSpec big{TShape{1, 3}};
  big.values = {1000, 1001, 1002};
  const auto out =
      testing::Forward(OpCase{"softmax", {}, {big}},
                       testing::MakeInputs(OpCase{"softmax", {}, {big}}, mshadow::kFloat32));
  const Values p = testing::ToValues(out[0].blob());
  EXPECT_NEAR(p[2], 0.66524096, 1e-6);
  EXPECT_NEAR(p[0] + p[1] + p[2], 1.0, 1e-6);
}

// use_length: each line's first length elements normalized, the rest 0; lengths past the
// axis are the whole line, negative ones none. Along the last axis and another, with a
// negative temperature too; gradients with the lengths held.
TEST(SoftmaxTest, UseLengthMasksEachLine) {
  const TShape shape{3, 5, 4};
  for (const int axis : {1, 2, -1}) {
    for (const char* temperature : {"1", "-0.5"}) {
      const int a = axis < 0 ? axis + 3 : axis;
      const index_t n = shape[a];
      const TShape length_shape = a == 1 ? TShape{3, 4} : TShape{3, 5};
      std::ostringstream trace;
      trace << "axis " << axis << " temperature " << temperature;
      SCOPED_TRACE(trace.str());
      Values lengths(length_shape.Size());
      for (size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<double>(i % 8) - 1;
      InputSpec length = InputSpec::WithValues(length_shape, lengths);
      length.differentiable = false;
      const OpCase c{
          "softmax",
          {{"axis", std::to_string(axis)}, {"temperature", temperature}, {"use_length", "True"}},
          {InputSpec{shape, -3, 3}, length}};
      EXPECT_EQ(testing::InferOutputShapes(c)[0], shape);
      testing::CheckForward(
          c,
          [&](const std::vector<Values>& in) {
            const index_t inner = a == 1 ? 4 : 1, outer = shape.Size() / (n * inner);
            const double t = std::stod(temperature);
            Values out(in[0].size(), 0.0);
            for (index_t o = 0; o < outer; ++o) {
              for (index_t k = 0; k < inner; ++k) {
                const index_t l = o * inner + k, start = o * n * inner + k;
                const index_t valid = std::clamp<index_t>(static_cast<index_t>(in[1][l]), 0, n);
                double shift = -1e300, sum = 0;
                for (index_t j = 0; j < valid; ++j)
                  shift = std::max(shift, in[0][start + j * inner] / t);
                for (index_t j = 0; j < valid; ++j)
                  sum += std::exp(in[0][start + j * inner] / t - shift);
                for (index_t j = 0; j < valid; ++j) {
                  out[start + j * inner] = std::exp(in[0][start + j * inner] / t - shift) / sum;
                }
              }
            }
            return std::vector<Values>{out};
          },
          1e-13, 1e-5);
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
  const OpCase bad_length{
      "softmax", {{"use_length", "True"}}, {InputSpec{TShape{3, 5}}, InputSpec{TShape{5}}}};
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(bad_length); }),
              ::testing::HasSubstr("length"));
  EXPECT_EQ(testing::ErrorOf([] {
              ParseAttrs(Op::Get("log_softmax"), {{"use_length", "True"}});
            }),
            "Invalid parameter of operator log_softmax: use_length is softmax's alone (as in "
            "MXNet 1.9.1); log_softmax has no length input");
}

TEST(SoftmaxTest, BadAxisAndTemperature) {
  const OpCase c{"softmax", {{"axis", "3"}}, {InputSpec{TShape{2, 3}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(c); }),
            "softmax: axis 3 is out of range for a 2-d input; valid: [-2, 2)");
  EXPECT_EQ(testing::ErrorOf([] {
              ParseAttrs(Op::Get("softmax"), {{"temperature", "0"}});
            }),
            "Invalid parameter of operator softmax: temperature must be nonzero (negative "
            "reverses the order), got 0");
}

// MXNet 1.9.1 takes a negative temperature: softmax(x / T). Values up to 80 / |T| would
// overflow exp without the right shift (the minimum, not the maximum).
TEST(SoftmaxTest, NegativeTemperature) {
  for (const std::string op : {"softmax", "log_softmax"}) {
    for (const std::string axis : {"-1", "0"}) {  // rows and columns
      SCOPED_TRACE(op + " axis " + axis);
      const OpCase c{
          op, {{"axis", axis}, {"temperature", "-0.5"}}, {InputSpec{TShape{7, 9}, -40, 40}}};
      const int ax = axis == "-1" ? 1 : 0;
      testing::CheckForward(
          c,
          [&](const std::vector<Values>& in) {
            Values out(in[0].size());
            for (int line = 0; line < (ax == 1 ? 7 : 9); ++line) {
              auto at = [&](int k) { return ax == 1 ? line * 9 + k : k * 9 + line; };
              const int n = ax == 1 ? 9 : 7;
              double lo = in[0][at(0)];
              for (int k = 0; k < n; ++k) lo = std::min(lo, in[0][at(k)]);
              double sum = 0;
              for (int k = 0; k < n; ++k) sum += std::exp((in[0][at(k)] - lo) / -0.5);
              for (int k = 0; k < n; ++k) {
                const double log_p = (in[0][at(k)] - lo) / -0.5 - std::log(sum);
                out[at(k)] = op == "softmax" ? std::exp(log_p) : log_p;
              }
            }
            return std::vector<Values>{out};
          },
          1e-12, 1e-5);
      testing::CheckGradient(OpCase{op, c.kwargs, {InputSpec{TShape{3, 4}}}});
    }
  }
}

// softmin(x) = exp(-x / T) / sum(exp(-x / T)) (MXNet 1.9.1's values: softmin([1, 2, 3]) is
// [0.66524094, 0.24472848, 0.09003057]); a negative T gives softmax at |T|. Its gradient is
// softmax's at -T; it has no length input.
TEST(SoftmaxTest, Softmin) {
  const OpCase printed{"softmin", {}, {InputSpec::WithValues(TShape{1, 3}, {1, 2, 3})}};
  const Values y = testing::ToValues(
      testing::Forward(printed, testing::MakeInputs(printed, mshadow::kFloat64))[0].blob());
  EXPECT_NEAR(y[0], 0.66524094, 1e-7);
  EXPECT_NEAR(y[1], 0.24472848, 1e-7);
  EXPECT_NEAR(y[2], 0.09003057, 1e-7);
  const TShape shape{5, 17};
  for (const std::string axis : {"-1", "0"}) {
    for (const double t : {1.0, 0.5, -2.0}) {
      SCOPED_TRACE("axis " + axis + " T " + std::to_string(t));
      const OpCase c{"softmin",
                     {{"axis", axis}, {"temperature", t == 1.0 ? "None" : std::to_string(t)}},
                     {InputSpec{shape, -20, 20}}};
      testing::CheckForward(
          c,
          [&](const std::vector<Values>& in) {
            return std::vector<Values>{SoftmaxAlong(in[0], shape, axis == "-1" ? 1 : 0, -t, false)};
          },
          1e-12, 1e-5);
      testing::CheckWriteModes(c);
      testing::CheckGradient(OpCase{"softmin", c.kwargs, {InputSpec{TShape{3, 4}}}});
    }
  }
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("softmin"), {{"use_length", "True"}});
              }),
              HasSubstr("use_length is softmax's alone"));
}

// dtype and 16-bit data: the kernels run in float32 or float64 on converted copies. Every
// pairing of data and output types, along the last axis and another, forward (kWriteTo and
// kAddTo) and backward against double-precision formulas on the values the types hold.
TEST(SoftmaxTest, DtypeAndSixteenBitData) {
  const TShape shape{4, 37};
  const int types[] = {mshadow::kFloat16, mshadow::kBfloat16, mshadow::kFloat32, mshadow::kFloat64};
  auto tolerance = [](int type) {
    switch (type) {
      case mshadow::kFloat16:
        return 2e-3;
      case mshadow::kBfloat16:
        return 1.6e-2;  // 8 bits of mantissa: 2^-7 relative, twice
      case mshadow::kFloat32:
        return 2e-6;
      default:
        return 1e-12;
    }
  };
  for (const bool log : {false, true}) {
    for (const int axis : {-1, 0}) {
      for (const int data_type : types) {
        for (const int out_type : types) {
          const std::string name = log ? "log_softmax" : "softmax";
          SCOPED_TRACE(name + " axis " + std::to_string(axis) + " " +
                       mshadow::TypeFlagName(data_type) + " -> " + mshadow::TypeFlagName(out_type));
          const OpCase c{
              name,
              {{"axis", std::to_string(axis)}, {"dtype", mshadow::TypeFlagName(out_type)}},
              {InputSpec{shape, -3, 3}}};
          const std::vector<CpuTensor> x = testing::MakeInputs(c, data_type);
          const Values held = testing::ToValues(x[0].blob());  // as the data type rounds them
          const Values expected = SoftmaxAlong(held, shape, axis < 0 ? 1 : 0, 1.0, log);
          const double tol = std::max(tolerance(data_type), tolerance(out_type));
          const std::vector<CpuTensor> y = testing::Forward(c, x);
          ASSERT_EQ(y[0].type_flag(), out_type);
          testing::ExpectClose(expected, testing::ToValues(y[0].blob()), tol, tol, "forward");
          // kAddTo converts into the output with its request.
          const NodeAttrs attrs = ParseAttrs(Op::Get(name), c.kwargs);
          CpuTensor sum(shape, out_type);
          testing::SetValues(sum.blob(), Values(shape.Size(), 1.0));
          Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs), Blobs(x), {kAddTo}, {sum.blob()});
          Values plus_one = expected;
          for (double& v : plus_one) v += 1;
          testing::ExpectClose(plus_one, testing::ToValues(sum.blob()), tol, tol, "kAddTo");
          // Backward: out_grad and y in the output's type, the data's gradient in its type.
          Values g(shape.Size());
          for (size_t i = 0; i < g.size(); ++i) g[i] = std::sin(0.7 * i);
          const std::vector<CpuTensor> dx = testing::Backward(c, x, {g});
          ASSERT_EQ(dx[0].type_flag(), data_type);
          const Values y_held = testing::ToValues(y[0].blob());
          CpuTensor g_tensor(shape, out_type);
          testing::SetValues(g_tensor.blob(), g);
          const Values g_held = testing::ToValues(g_tensor.blob());
          Values expected_dx(g.size());
          const mshadow::Shape<3> v = shape.FlatTo3D(axis < 0 ? 1 : 0);
          for (index_t o = 0; o < v[0]; ++o) {
            for (index_t k = 0; k < v[2]; ++k) {
              const index_t base = o * v[1] * v[2] + k;
              double dot = 0;
              for (index_t j = 0; j < v[1]; ++j) {
                const index_t at = base + j * v[2];
                dot += log ? g_held[at] : g_held[at] * y_held[at];
              }
              for (index_t j = 0; j < v[1]; ++j) {
                const index_t at = base + j * v[2];
                expected_dx[at] =
                    log ? g_held[at] - std::exp(y_held[at]) * dot : y_held[at] * (g_held[at] - dot);
              }
            }
          }
          testing::ExpectClose(expected_dx, testing::ToValues(dx[0].blob()), tol, tol, "backward");
        }
      }
    }
  }
  EXPECT_THAT(
      testing::ErrorOf([] {
        ParseAttrs(Op::Get("softmax"), {{"dtype", "int32"}});
      }),
      ::testing::HasSubstr("valid values are: {'bfloat16', 'float16', 'float32', 'float64'}"));
  const OpCase int_data{"softmax", {}, {InputSpec{TShape{2, 3}}}};
  EXPECT_THAT(testing::ErrorOf([&] {
                RunCpu(ParseAttrs(Op::Get("softmax"), {}),
                       Blobs(testing::MakeInputs(int_data, mshadow::kInt32)));
              }),
              ::testing::HasSubstr("data type int32 is not supported; valid: float16, bfloat16, "
                                   "float32, float64"));
}

TEST(SoftmaxCrossEntropyTest, ForwardGradientAndLabels) {
  InputSpec label{TShape{4}};
  label.values = {0, 2, 1, 2};
  label.differentiable = false;
  const OpCase c{"softmax_cross_entropy", {}, {InputSpec{TShape{4, 3}}, label}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{1}));
  testing::CheckForward(
      c,
      [](const std::vector<Values>& in) {
        double loss = 0;
        for (int r = 0; r < 4; ++r) {
          double sum = 0;
          for (int j = 0; j < 3; ++j) sum += std::exp(in[0][r * 3 + j]);
          loss += std::log(sum) - in[0][r * 3 + static_cast<int>(in[1][r])];
        }
        return std::vector<Values>{{loss}};
      },
      1e-13, 1e-5);
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);

  // Rows of whole packets and a tail, labels at both ends and inside: every element of the
  // gradient against g * (softmax - onehot).
  InputSpec wide_label{TShape{5}};
  wide_label.values = {0, 36, 17, 1, 35};
  wide_label.differentiable = false;
  const OpCase wide{"softmax_cross_entropy", {}, {InputSpec{TShape{5, 37}}, wide_label}};
  testing::CheckGradient(wide);
  const std::vector<CpuTensor> inputs = testing::MakeInputs(wide, mshadow::kFloat64);
  const Values x = testing::ToValues(inputs[0].blob());
  const Values dx = testing::ToValues(testing::Backward(wide, inputs, {Values{-1.5}})[0].blob());
  for (int r = 0; r < 5; ++r) {
    double sum = 0;
    for (int j = 0; j < 37; ++j) sum += std::exp(x[r * 37 + j]);
    for (int j = 0; j < 37; ++j) {
      const double onehot = j == static_cast<int>(wide_label.values[r]) ? 1 : 0;
      EXPECT_NEAR(dx[r * 37 + j], -1.5 * (std::exp(x[r * 37 + j]) / sum - onehot), 1e-13)
          << r << " " << j;
    }
  }

  InputSpec bad_label = label;
  bad_label.values = {0, 3, 1, 2};
  const OpCase bad{"softmax_cross_entropy", {}, {InputSpec{TShape{4, 3}}, bad_label}};
  EXPECT_EQ(
      testing::ErrorOf([&] { testing::Forward(bad, testing::MakeInputs(bad, mshadow::kFloat32)); }),
      "softmax_cross_entropy: label 3 of row 1 is not a class index in [0, 3)");
  // Non-finite and huge labels are rejected before any conversion to an integer (which would
  // be undefined behaviour; UBSan in CI sees it).
  const double kInf = std::numeric_limits<double>::infinity();
  for (const double value : {-kInf, kInf, std::nan(""), 1e30, -1e30, 2.5}) {
    InputSpec odd = label;
    odd.values = {0, value, 1, 2};
    const OpCase c_odd{"softmax_cross_entropy", {}, {InputSpec{TShape{4, 3}}, odd}};
    for (const int type : {mshadow::kFloat32, mshadow::kFloat64}) {
      EXPECT_THAT(
          testing::ErrorOf([&] { testing::Forward(c_odd, testing::MakeInputs(c_odd, type)); }),
          ::testing::MatchesRegex("softmax_cross_entropy: label .* of row 1 is not a class "
                                  "index in \\[0, 3\\)"))
          << value;
    }
  }
  const OpCase wrong_rank{"softmax_cross_entropy", {}, {InputSpec{TShape{4}}, label}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(wrong_rank); }),
            "softmax_cross_entropy: data must be 2-d (batch, classes), got (4,)");
}

}  // namespace
}  // namespace ops
