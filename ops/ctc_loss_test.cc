// CTCLoss against the sum over every alignment written out (every path of T steps over C
// classes, collapsed), for blank first and last, repeated labels, empty and unreachable label
// sequences, data and label lengths; gradients by central differences; bad labels and lengths.
#include <cmath>
#include <functional>
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

// -log p(labels | x) of one sample by brute force: x (steps, C) activations of its first
// `steps` time steps; 0 when no path collapses to the labels (MXNet's convention).
double BruteForceLoss(const std::vector<Values>& x, const std::vector<int>& labels, int blank) {
  if (x.empty()) return 0.0;  // no steps: MXNet's 0 too
  const int steps = static_cast<int>(x.size()), C = static_cast<int>(x[0].size());
  std::vector<Values> p(steps, Values(C));
  for (int t = 0; t < steps; ++t) {
    double sum = 0;
    for (int c = 0; c < C; ++c) sum += std::exp(x[t][c]);
    for (int c = 0; c < C; ++c) p[t][c] = std::exp(x[t][c]) / sum;
  }
  double total = 0;
  std::vector<int> path(steps, 0);
  std::function<void(int, double)> walk = [&](int t, double prob) {
    if (t == steps) {
      std::vector<int> collapsed;
      for (int k = 0; k < steps; ++k) {
        if (path[k] != blank && (k == 0 || path[k] != path[k - 1])) collapsed.push_back(path[k]);
      }
      if (collapsed == labels) total += prob;
      return;
    }
    for (int c = 0; c < C; ++c) {
      path[t] = c;
      walk(t + 1, prob * p[t][c]);
    }
  };
  walk(0, 1.0);
  return total > 0 ? -std::log(total) : 0.0;
}

struct Sample {
  std::vector<int> labels;  // as the label row holds them, padding included
  int steps;
  int label_length;  // with use_label_lengths
};

// Runs CTCLoss on (T, N, C) random activations and compares each sample's loss.
void ExpectBruteForce(int T, int C, const std::vector<Sample>& samples, const std::string& blank,
                      bool data_lengths, bool label_lengths) {
  const int N = static_cast<int>(samples.size());
  const int L = static_cast<int>(samples[0].labels.size());
  Values label_values, steps, lengths;
  for (const Sample& s : samples) {
    label_values.insert(label_values.end(), s.labels.begin(), s.labels.end());
    steps.push_back(s.steps);
    lengths.push_back(s.label_length);
  }
  OpCase c{"CTCLoss",
           {{"blank_label", blank},
            {"use_data_lengths", data_lengths ? "True" : "False"},
            {"use_label_lengths", label_lengths ? "True" : "False"}},
           {InputSpec{TShape{T, N, C}, -2, 2},
            InputSpec::WithValues(TShape{N, L}, label_values)}};
  if (data_lengths) c.inputs.push_back(InputSpec::WithValues(TShape{N}, steps));
  if (label_lengths) c.inputs.push_back(InputSpec::WithValues(TShape{N}, lengths));
  for (size_t i = 1; i < c.inputs.size(); ++i) c.inputs[i].differentiable = false;
  const int blank_class = blank == "first" ? 0 : C - 1;
  const int padding = blank == "first" ? 0 : -1;
  testing::CheckForward(c, [&](const std::vector<Values>& in) {
    Values loss(N);
    for (int n = 0; n < N; ++n) {
      const int used_steps = data_lengths ? samples[n].steps : T;
      std::vector<int> labels;
      for (int k = 0; k < L; ++k) {
        const int v = samples[n].labels[k];
        if (label_lengths ? k >= samples[n].label_length : v == padding) break;
        labels.push_back(v);
      }
      std::vector<Values> x(used_steps, Values(C));
      for (int t = 0; t < used_steps; ++t) {
        for (int k = 0; k < C; ++k) x[t][k] = in[0][(t * N + n) * C + k];
      }
      loss[n] = BruteForceLoss(x, labels, blank_class);
    }
    return std::vector<Values>{loss};  // the hidden gradient: through CheckGradient below
  }, 1e-10, 1e-5);
  testing::CheckGradient(c, 1e-5, 1e-8);
}

TEST(CTCLossTest, BlankFirstMatchesEveryAlignment) {
  ExpectBruteForce(5, 3,
                   {{{1, 2, 0}, 5, 0},    // two labels, padded
                    {{1, 1, 0}, 5, 0},    // a repeat: needs a blank between
                    {{2, 0, 0}, 5, 0},
                    {{0, 0, 0}, 5, 0},    // no labels: all blanks
                    {{2, 1, 2}, 5, 0}},   // no padding
                   "first", false, false);
}

TEST(CTCLossTest, BlankLastMatchesEveryAlignment) {
  ExpectBruteForce(4, 4, {{{0, 2, -1}, 4, 0}, {{1, 1, 1}, 4, 0}, {{-1, -1, -1}, 4, 0}}, "last",
                   false, false);
}

TEST(CTCLossTest, DataAndLabelLengths) {
  // Steps 0..5; label lengths cut the rows (the values past them are not read); a repeated
  // label too long for its steps gets MXNet's 0.
  ExpectBruteForce(5, 3,
                   {{{1, 2, 2}, 5, 2}, {{2, 2, 2}, 3, 3}, {{1, 1, 1}, 2, 1}, {{2, 1, 1}, 4, 3},
                    {{1, 2, 1}, 0, 0}},
                   "first", true, true);
}

TEST(CTCLossTest, BadLabelsLengthsAndShapes) {
  auto error_of = [](const std::map<std::string, std::string>& params, Values labels,
                     std::vector<Values> lengths) {
    OpCase c{"CTCLoss", params,
             {InputSpec{TShape{4, 2, 3}}, InputSpec::WithValues(TShape{2, 2}, std::move(labels))}};
    for (Values& l : lengths) c.inputs.push_back(InputSpec::WithValues(TShape{2}, std::move(l)));
    return testing::ErrorOf([&] { testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32)); });
  };
  EXPECT_EQ(error_of({}, {1, 3, 1, 0}, {}),
            "CTCLoss: label[0, 1] is 3; valid: the classes 1..2 (blank_label first), or the "
            "padding 0");
  EXPECT_EQ(error_of({{"blank_label", "last"}}, {0, 2, 1, -1}, {}),
            "CTCLoss: label[0, 1] is 2; valid: the classes 0..1 (blank_label last), or the "
            "padding -1");
  EXPECT_EQ(error_of({{"use_label_lengths", "True"}}, {1, 0, 1, 2}, {{2, 1}}),
            "CTCLoss: label[0, 1] is 0; valid: the classes 1..2 (blank_label first)");
  EXPECT_EQ(error_of({}, {1.5, 0, 1, 0}, {}),
            "CTCLoss: label[0, 0] is 1.5; valid: the classes 1..2 (blank_label first), or the "
            "padding 0");
  EXPECT_EQ(error_of({{"use_data_lengths", "True"}}, {1, 0, 1, 0}, {{4, 5}}),
            "CTCLoss: data_lengths[1] is 5; valid: whole numbers in [0, 4]");
  EXPECT_EQ(error_of({{"use_label_lengths", "True"}}, {1, 0, 1, 0}, {{-1, 1}}),
            "CTCLoss: label_lengths[0] is -1; valid: whole numbers in [0, 2]");
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    {"CTCLoss", {}, {InputSpec{TShape{3, 2, 4}}, InputSpec{TShape{2, 5}}}});
              }),
              HasSubstr("label must be 2-d (batch, labels) with at most 3 labels"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    {"CTCLoss", {}, {InputSpec{TShape{3, 4}}, InputSpec{TShape{2, 2}}}});
              }),
              HasSubstr("data must be 3-d"));
}

}  // namespace
}  // namespace ops
