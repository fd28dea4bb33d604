// RNN against a direct float64 recurrence (every mode; one and several layers; one and two
// directions; final states as outputs; the LSTM cell clip), write modes, numerical gradients
// of every input, and its errors.
#include <algorithm>
#include <cmath>
#include <ostream>
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

struct RNNCase {
  std::string mode;
  int layers;
  bool bidirectional;
  bool state_outputs;
  index_t steps, batch, input, hidden;
  double clip = 0;  // LSTM cell clip [-clip, clip] when positive
};

void PrintTo(const RNNCase& rc, std::ostream* os) {
  *os << rc.mode << " layers=" << rc.layers << " bidirectional=" << rc.bidirectional
      << " state_outputs=" << rc.state_outputs << " (T,N,I,H)=(" << rc.steps << ","
      << rc.batch << "," << rc.input << "," << rc.hidden << ") clip=" << rc.clip;
}

int GatesOf(const std::string& mode) { return mode == "lstm" ? 4 : mode == "gru" ? 3 : 1; }

double Sigmoid(double a) { return 1 / (1 + std::exp(-a)); }

// The recurrence as MXNet documents it, one unit at a time. Inputs: data, parameters,
// state [, state_cell]; outputs: out [, hy [, cy]].
std::vector<Values> Reference(const RNNCase& rc, const std::vector<Values>& in) {
  const index_t T = rc.steps, N = rc.batch, H = rc.hidden, D = rc.bidirectional ? 2 : 1;
  const index_t G = GatesOf(rc.mode);
  const bool lstm = rc.mode == "lstm";
  const Values& params = in[1];
  Values x = in[0];
  index_t width = rc.input;
  Values hy(rc.layers * D * N * H), cy(hy.size());
  // Where the weights of (layer, direction) start, and the biases.
  std::vector<index_t> weight_at, bias_at;
  index_t offset = 0;
  for (int l = 0; l < rc.layers; ++l) {
    const index_t in_width = l == 0 ? rc.input : D * H;
    for (index_t d = 0; d < D; ++d) {
      weight_at.push_back(offset);
      offset += G * H * (in_width + H);
    }
  }
  for (int u = 0; u < rc.layers * D; ++u) bias_at.push_back(offset + u * 2 * G * H);

  for (int l = 0; l < rc.layers; ++l) {
    Values y(T * N * D * H);
    for (index_t d = 0; d < D; ++d) {
      const index_t unit = l * D + d;
      const double* wx = &params[weight_at[unit]];
      const double* wh = wx + G * H * width;
      const double* bx = &params[bias_at[unit]];
      const double* bh = bx + G * H;
      std::vector<double> h(in[2].begin() + unit * N * H, in[2].begin() + (unit + 1) * N * H);
      std::vector<double> c(N * H, 0.0);
      if (lstm) {
        std::copy(in[3].begin() + unit * N * H, in[3].begin() + (unit + 1) * N * H, c.begin());
      }
      for (index_t s = 0; s < T; ++s) {
        const index_t t = d == 0 ? s : T - 1 - s;
        std::vector<double> h_next(N * H), c_next(N * H);
        for (index_t n = 0; n < N; ++n) {
          // ax[g * H + k] = Wx x + bx, ah = Wh h + bh.
          std::vector<double> ax(G * H), ah(G * H);
          for (index_t r = 0; r < G * H; ++r) {
            ax[r] = bx[r];
            for (index_t m = 0; m < width; ++m) {
              ax[r] += wx[r * width + m] * x[(t * N + n) * width + m];
            }
            ah[r] = bh[r];
            for (index_t m = 0; m < H; ++m) ah[r] += wh[r * H + m] * h[n * H + m];
          }
          for (index_t k = 0; k < H; ++k) {
            const index_t i = n * H + k;
            if (rc.mode == "rnn_relu") {
              h_next[i] = std::max(0.0, ax[k] + ah[k]);
            } else if (rc.mode == "rnn_tanh") {
              h_next[i] = std::tanh(ax[k] + ah[k]);
            } else if (lstm) {
              const double ig = Sigmoid(ax[k] + ah[k]), fg = Sigmoid(ax[H + k] + ah[H + k]);
              const double gg = std::tanh(ax[2 * H + k] + ah[2 * H + k]);
              const double og = Sigmoid(ax[3 * H + k] + ah[3 * H + k]);
              c_next[i] = fg * c[i] + ig * gg;
              if (rc.clip > 0) c_next[i] = std::min(rc.clip, std::max(-rc.clip, c_next[i]));
              h_next[i] = og * std::tanh(c_next[i]);
            } else {  // gru
              const double r = Sigmoid(ax[k] + ah[k]), z = Sigmoid(ax[H + k] + ah[H + k]);
              const double cand = std::tanh(ax[2 * H + k] + r * ah[2 * H + k]);
              h_next[i] = (1 - z) * cand + z * h[i];
            }
            y[(t * N + n) * D * H + d * H + k] = h_next[i];
          }
        }
        h = h_next;
        c = c_next;
      }
      std::copy(h.begin(), h.end(), hy.begin() + unit * N * H);
      std::copy(c.begin(), c.end(), cy.begin() + unit * N * H);
    }
    x = y;
    width = D * H;
  }
  std::vector<Values> out{x};
  if (rc.state_outputs) {
    out.push_back(hy);
    if (lstm) out.push_back(cy);
  }
  return out;
}

index_t NumParams(const RNNCase& rc) {
  const index_t D = rc.bidirectional ? 2 : 1, G = GatesOf(rc.mode), H = rc.hidden;
  index_t size = 0;
  for (int l = 0; l < rc.layers; ++l) size += D * G * H * ((l == 0 ? rc.input : D * H) + H + 2);
  return size;
}

OpCase CaseOf(const RNNCase& rc) {
  const index_t D = rc.bidirectional ? 2 : 1;
  const TShape state{rc.layers * D, rc.batch, rc.hidden};
  OpCase c{"RNN",
           {{"mode", rc.mode},
            {"state_size", std::to_string(rc.hidden)},
            {"num_layers", std::to_string(rc.layers)},
            {"bidirectional", rc.bidirectional ? "true" : "false"},
            {"state_outputs", rc.state_outputs ? "true" : "false"}},
           {InputSpec{TShape{rc.steps, rc.batch, rc.input}, -1, 1},
            InputSpec{TShape{NumParams(rc)}, -0.6, 0.6}, InputSpec{state, -1, 1}}};
  if (rc.mode == "lstm") c.inputs.push_back(InputSpec{state, -1, 1});
  if (rc.clip > 0) {
    c.kwargs["lstm_state_clip_min"] = std::to_string(-rc.clip);
    c.kwargs["lstm_state_clip_max"] = std::to_string(rc.clip);
  }
  return c;
}

class RNNTest : public ::testing::TestWithParam<RNNCase> {};

TEST_P(RNNTest, MatchesReferenceWithGradients) {
  const RNNCase& rc = GetParam();
  const OpCase c = CaseOf(rc);
  const index_t D = rc.bidirectional ? 2 : 1;
  const std::vector<TShape> shapes = testing::InferOutputShapes(c);
  EXPECT_EQ(shapes[0], (TShape{rc.steps, rc.batch, D * rc.hidden}));
  // One thread and two: a bidirectional layer's directions run their backward passes at
  // once where there are two.
  for (const int threads : {1, 2}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    mshadow::SetNumThreads(threads);
    testing::CheckForward(
        c, [&](const std::vector<Values>& in) { return Reference(rc, in); }, 1e-12, 2e-5);
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  mshadow::SetNumThreads(0);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, RNNTest,
    ::testing::Values(
        RNNCase{"lstm", 1, false, true, 4, 3, 5, 4}, RNNCase{"lstm", 2, true, true, 3, 2, 4, 3},
        RNNCase{"lstm", 3, false, false, 3, 2, 3, 2},
        RNNCase{"lstm", 1, true, true, 5, 2, 3, 4, /*clip=*/0.3},
        RNNCase{"gru", 1, false, true, 4, 3, 5, 4}, RNNCase{"gru", 2, true, true, 3, 2, 4, 3},
        RNNCase{"rnn_tanh", 2, true, true, 3, 2, 4, 3},
        RNNCase{"rnn_relu", 2, false, true, 4, 3, 2, 5},
        RNNCase{"rnn_relu", 1, true, false, 1, 1, 1, 1},
        // Units past a whole packet (8 doubles on AVX-512), and a tail.
        RNNCase{"lstm", 1, true, true, 3, 3, 5, 11}, RNNCase{"gru", 1, false, true, 3, 3, 5, 11},
        // Units in whole strips of the CPU's products: its recurrent weights read packed
        // (register_gemm::PackRightOperand), forward and backward.
        RNNCase{"lstm", 1, true, true, 3, 2, 5, 16}, RNNCase{"gru", 1, false, true, 3, 2, 5, 16},
        // Batches and work enough that, at two threads, each half of the samples runs all its
        // steps on a thread of its own (rnn::SampleRuns); 17 samples split 8 and 9.
        RNNCase{"lstm", 2, false, true, 4, 17, 6, 64}, RNNCase{"gru", 1, false, true, 6, 16, 6, 64},
        RNNCase{"rnn_tanh", 1, false, false, 4, 64, 4, 64}),
    [](const ::testing::TestParamInfo<RNNCase>& info) {
      const RNNCase& rc = info.param;
      return rc.mode + "_" + std::to_string(rc.layers) + "layers" +
             (rc.bidirectional ? "_bidirectional" : "") + (rc.state_outputs ? "_states" : "") +
             (rc.clip > 0 ? "_clip" : "") + "_" + std::to_string(info.index);
    });

TEST(RNN, InfersParameterAndStateShapes) {
  const RNNCase rc{"gru", 2, true, true, 3, 2, 4, 3};
  OpCase c = CaseOf(rc);
  const std::vector<TShape> shapes = testing::InferOutputShapes(c);
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_EQ(shapes[1], (TShape{4, 2, 3}));
  // The hidden reserve: 2 layer outputs (6 rows of 6), 4 directions' gates (6 rows of 9) and
  // cells (6 rows of 3), each piece padded to 16 elements.
  EXPECT_EQ(shapes[2], (TShape{2 * 48 + 4 * (64 + 32)}));
  const NodeAttrs attrs = ParseAttrs(Op::Get("RNN"), c.kwargs);
  EXPECT_EQ(attrs.op->num_outputs(attrs), 3u);
  EXPECT_EQ(attrs.op->num_visible_outputs(attrs), 2u);
  // 2 directions * 3 gates * 3 units * (4 + 3 + 2) + the same with 6 inputs.
  EXPECT_EQ(NumParams(rc), 2 * 9 * (4 + 3 + 2) + 2 * 9 * (6 + 3 + 2));
}

TEST(RNN, RejectsBadInput) {
  const RNNCase rc{"lstm", 1, false, false, 2, 2, 3, 2};
  OpCase wrong_params = CaseOf(rc);
  wrong_params.inputs[1] = InputSpec{TShape{NumParams(rc) + 1}};
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(wrong_params); }),
              HasSubstr("parameters"));

  OpCase flat = CaseOf(rc);
  flat.inputs[0] = InputSpec{TShape{6, 3}};
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(flat); }),
              HasSubstr("must be (steps, batch, input)"));

  OpCase empty = CaseOf(rc);
  empty.inputs[0] = InputSpec{TShape{0, 2, 3}};
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(empty); }),
              HasSubstr("every extent at least 1"));

  OpCase projection = CaseOf(rc);
  projection.kwargs["projection_size"] = "2";
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(projection); }),
              HasSubstr("projection_size=2 is not supported"));

  OpCase lengths = CaseOf(rc);
  lengths.kwargs["use_sequence_length"] = "true";
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(lengths); }),
              HasSubstr("use_sequence_length=True is not supported"));

  OpCase half_clip = CaseOf(rc);
  half_clip.kwargs["lstm_state_clip_min"] = "-1";
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(half_clip); }),
              HasSubstr("must be given together"));

  OpCase reversed_clip = CaseOf(rc);
  reversed_clip.kwargs["lstm_state_clip_min"] = "1";
  reversed_clip.kwargs["lstm_state_clip_max"] = "-1";
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(reversed_clip); }),
              HasSubstr("must not exceed"));

  OpCase bad_mode = CaseOf(rc);
  bad_mode.kwargs["mode"] = "lstmp";
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(bad_mode); }), HasSubstr("lstmp"));
}

// Dropout between layers is refused in training (the backward pass recomputes the forward
// and could not redraw the mask) and, as in MXNet, does nothing in inference.
TEST(RNN, DropoutBetweenLayersOnlyInInference) {
  OpCase c = CaseOf(RNNCase{"gru", 2, false, false, 3, 2, 4, 3});
  const std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat32);
  const std::vector<CpuTensor> without = testing::Forward(c, inputs);
  c.kwargs["p"] = "0.5";
  const NodeAttrs attrs = ParseAttrs(Op::Get("RNN"), c.kwargs);
  EXPECT_EQ(testing::ToValues(RunCpu(attrs, Blobs(inputs), false)[0].blob()),
            testing::ToValues(without[0].blob()));
  EXPECT_THAT(testing::ErrorOf([&] { RunCpu(attrs, Blobs(inputs), true); }),
              HasSubstr("dropout between layers (p=0.5"));
}

}  // namespace
}  // namespace ops
