// ops/rnn-inl.h: RNN(mode, state_size, num_layers, bidirectional, state_outputs, ...), MXNet's
// fused recurrent layer (vanilla ReLU/tanh, LSTM, GRU; stacked; bidirectional), and its
// backward operator, written once for every device.
//
// Each layer and direction is two gemms and one elementwise kernel per step: the input
// projection of every step at once (x * Wx^T + bx, one gemm over T * N rows), then per step
// the recurrent product h_{t-1} * Wh^T (a gemm over N rows) and a kernel that applies the
// gates and writes h_t and the cell. The backward pass is the same in reverse: per step a
// kernel for the gate gradients and one gemm for dh_{t-1}; the weight and input gradients
// are single gemms over all steps afterwards. On the CPU the gemms are register-tiled
// (ops/register_gemm.h; Wx and Wh transposed once per call for the forward products), which
// run these shapes, a step's few rows included, faster than OpenBLAS (docs/benchmarks.md);
// on the GPU they are cuBLAS's. With two CPU threads or more, the steps go to the threads by
// runs of samples, each run through every step (SampleRuns): a sample's recurrence reads
// only its own rows, so the threads meet once a pass instead of twice a step.
//
// The forward operator's hidden last output, `reserve`, records the forward pass (every
// layer's output, the gates and cells of every step), as MXNet's reserve space does; the
// backward operator reads it among the forward outputs instead of running the forward pass
// again (which had taken a third of its time). Operators stay stateless: the record travels
// as an output, nothing is held between the calls.
//
// The flat `parameters` input is MXNet's layout: all weights, layer by layer, and within a
// layer direction by direction [Wx (G*H, in), Wh (G*H, H)]; then all biases in the same
// order [bx (G*H), bh (G*H)]. Gates in rows: LSTM i, f, g, o; GRU r, z, n.
// rnn.cc registers the operators with FCompute<cpu>, rnn.cu adds FCompute<gpu>.
#ifndef OPS_RNN_INL_H_
#define OPS_RNN_INL_H_

#include <algorithm>
#include <sstream>
#include <type_traits>
#include <utility>
#include <vector>

#include "mshadow/extension/broadcast.h"
#include "mshadow/extension/reduceto1d.h"
#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/matrix_product.h"
#include "ops/transpose_block.h"
#include "ops/vector_loop.h"

namespace ops {
namespace rnn {

using mshadow::expr::dot;

enum RNNMode { kRnnRelu, kRnnTanh, kLstm, kGru };

struct RNNParam : public dmlc::Parameter<RNNParam> {
  int state_size;
  int num_layers;
  bool bidirectional;
  int mode;
  float p;
  bool state_outputs;
  dmlc::optional<int> projection_size;
  dmlc::optional<double> lstm_state_clip_min;
  dmlc::optional<double> lstm_state_clip_max;
  bool lstm_state_clip_nan;
  bool use_sequence_length;
  DMLC_DECLARE_PARAMETER(RNNParam) {
    DMLC_DECLARE_FIELD(state_size).set_lower_bound(1).describe("Size of each layer's state.");
    DMLC_DECLARE_FIELD(num_layers).set_lower_bound(1).describe("Number of stacked layers.");
    DMLC_DECLARE_FIELD(bidirectional).set_default(false).describe(
        "Whether each layer also runs backwards in time (outputs concatenated).");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("rnn_relu", kRnnRelu)
        .add_enum("rnn_tanh", kRnnTanh)
        .add_enum("lstm", kLstm)
        .add_enum("gru", kGru)
        .describe("The recurrent cell.");
    DMLC_DECLARE_FIELD(p).set_default(0.0f).set_range(0.0f, 1.0f).describe(
        "Dropout rate on each layer's output but the last's (training only).");
    DMLC_DECLARE_FIELD(state_outputs).set_default(false).describe(
        "Whether the final states are outputs too.");
    DMLC_DECLARE_FIELD(projection_size).set_default(dmlc::optional<int>()).describe(
        "LSTM projection size (not supported: MXNet runs it with cuDNN only).");
    DMLC_DECLARE_FIELD(lstm_state_clip_min).set_default(dmlc::optional<double>()).describe(
        "Lower clip of the LSTM cell state; needs lstm_state_clip_max.");
    DMLC_DECLARE_FIELD(lstm_state_clip_max).set_default(dmlc::optional<double>()).describe(
        "Upper clip of the LSTM cell state; needs lstm_state_clip_min.");
    DMLC_DECLARE_FIELD(lstm_state_clip_nan).set_default(false).describe(
        "Whether a NaN cell state becomes lstm_state_clip_min instead of staying NaN.");
    DMLC_DECLARE_FIELD(use_sequence_length).set_default(false).describe(
        "Per-sample lengths as an extra input (not supported: MXNet runs it with cuDNN only).");
  }
};

inline int GatesOf(int mode) { return mode == kLstm ? 4 : mode == kGru ? 3 : 1; }
inline int NumStateInputs(const RNNParam& param) { return param.mode == kLstm ? 2 : 1; }
inline int NumOutputs(const RNNParam& param) {
  return param.state_outputs ? 1 + NumStateInputs(param) : 1;
}

// The sizes of one call: data (steps, batch, input); every state (layers * directions,
// batch, hidden).
struct RNNDims {
  index_t steps, batch, input, hidden, layers, directions, gates;

  RNNDims(const RNNParam& param, const TShape& data)
      : steps(data[0]), batch(data[1]), input(data[2]), hidden(param.state_size),
        layers(param.num_layers), directions(param.bidirectional ? 2 : 1),
        gates(GatesOf(param.mode)) {}
  index_t GateWidth() const { return gates * hidden; }
  index_t OutputWidth() const { return directions * hidden; }
  index_t Rows() const { return steps * batch; }
  index_t LayerInput(index_t layer) const { return layer == 0 ? input : OutputWidth(); }
  // Wx and Wh of one direction of `layer`.
  index_t DirectionWeights(index_t layer) const {
    return GateWidth() * (LayerInput(layer) + hidden);
  }
  index_t WeightOffset(index_t layer, index_t direction) const {
    index_t offset = 0;
    for (index_t l = 0; l < layer; ++l) offset += directions * DirectionWeights(l);
    return offset + direction * DirectionWeights(layer);
  }
  index_t BiasOffset(index_t layer, index_t direction) const {
    return WeightOffset(layers, 0) + (layer * directions + direction) * 2 * GateWidth();
  }
  index_t NumParams() const { return BiasOffset(layers, 0); }
};

// The errors RNN reports, shared by inference and compute: data must be (steps, batch,
// input) with no empty extent; the clip bounds come together and in order; the options MXNet
// runs with cuDNN only are refused with what is valid.
inline void CheckRNNCall(const RNNParam& param, const TShape& data) {
  std::ostringstream os;
  os << "RNN: ";
  if (data.ndim() != 3 || data.Size() == 0) {
    os << "data " << data << " must be (steps, batch, input) with every extent at least 1";
  } else if (param.projection_size.has_value()) {
    os << "projection_size=" << param.projection_size.value()
       << " is not supported; valid: None (MXNet runs LSTM projection with cuDNN only)";
  } else if (param.use_sequence_length) {
    os << "use_sequence_length=True is not supported; valid: False (MXNet runs it with cuDNN "
          "only): pad the sequences and mask the output with SequenceMask";
  } else if (param.lstm_state_clip_min.has_value() != param.lstm_state_clip_max.has_value()) {
    os << "lstm_state_clip_min and lstm_state_clip_max must be given together";
  } else if (param.lstm_state_clip_min.has_value() &&
             !(param.lstm_state_clip_min.value() <= param.lstm_state_clip_max.value())) {
    os << "lstm_state_clip_min=" << param.lstm_state_clip_min.value()
       << " must not exceed lstm_state_clip_max=" << param.lstm_state_clip_max.value();
  } else {
    return;
  }
  throw dmlc::Error(os.str());
}

// One direction of one layer's parameters (or of their gradients) in the flat vector.
template <typename xpu, typename DType>
struct DirectionParams {
  Tensor<xpu, 2, DType> wx, wh;
  Tensor<xpu, 1, DType> bx, bh;

  DirectionParams(const RNNDims& dims, DType* flat, index_t layer, index_t direction,
                  mshadow::Stream<xpu>* stream) {
    const index_t gw = dims.GateWidth(), in = dims.LayerInput(layer);
    DType* w = flat + dims.WeightOffset(layer, direction);
    DType* b = flat + dims.BiasOffset(layer, direction);
    wx = Tensor<xpu, 2, DType>(w, mshadow::Shape2(gw, in), in, stream);
    wh = Tensor<xpu, 2, DType>(w + gw * in, mshadow::Shape2(gw, dims.hidden), dims.hidden,
                               stream);
    bx = Tensor<xpu, 1, DType>(b, mshadow::Shape1(gw), stream);
    bh = Tensor<xpu, 1, DType>(b + gw, mshadow::Shape1(gw), stream);
  }
};

// The LSTM cell-state clip: [lo, hi] when `on`; a NaN becomes lo when `nan_to_lo`.
template <typename DType>
struct CellClip {
  bool on = false, nan_to_lo = false;
  DType lo = 0, hi = 0;

  MSHADOW_XINLINE DType Apply(DType c) const {
    if (!on) return c;
    if (c != c) return nan_to_lo ? lo : c;
    return c < lo ? lo : (c > hi ? hi : c);
  }
  // Whether the gradient passes the clip (it stops where the state sits on a bound).
  MSHADOW_XINLINE bool Passes(DType c) const { return !on || (c > lo && c < hi); }
};

template <typename DType>
CellClip<DType> CellClipOf(const RNNParam& param) {
  CellClip<DType> clip;
  if (param.lstm_state_clip_min.has_value()) {
    clip.on = true;
    clip.nan_to_lo = param.lstm_state_clip_nan;
    clip.lo = static_cast<DType>(param.lstm_state_clip_min.value());
    clip.hi = static_cast<DType>(param.lstm_state_clip_max.value());
  }
  return clip;
}

// ---- One step's kernels. Unit (sample n, hidden unit j); `gates` holds the step's input
// projection on entry and the activated gates on exit; `hh` is h_{t-1} * Wh^T; h_prev and h
// have row strides (they are columns of a layer's output).
//
// The forward cells are written once over a value type: one unit (a GPU thread, or the CPU
// where the LSTM cell clip is on) or a SIMD packet of consecutive units (the CPU otherwise,
// where the gates' exp and tanh would cost as much as the gemms one lane at a time).

struct StepPointers {
  index_t hidden, h_prev_stride, h_stride;
};

template <typename DType>
struct ScalarLanes {
  using V = DType;
  MSHADOW_XINLINE static V Load(const DType* p) { return *p; }
  MSHADOW_XINLINE static void Store(DType* p, V v) { *p = v; }
  MSHADOW_XINLINE static V Fill(DType v) { return v; }
  MSHADOW_XINLINE static V Sigmoid(V a) { return mshadow::op::sigmoid::Map(a); }
  MSHADOW_XINLINE static V Tanh(V a) { return mshadow::op::tanh::Map(a); }
  MSHADOW_XINLINE static V Relu(V a) { return mshadow::op::relu::Map(a); }
  MSHADOW_XINLINE static V Clip(V c, const CellClip<DType>& clip) { return clip.Apply(c); }
  // g where the clip passed the cell c, else 0 (a clipped cell passes no gradient).
  MSHADOW_XINLINE static V PassedByClip(V g, V c, const CellClip<DType>& clip) {
    return clip.Passes(c) ? g : DType(0);
  }
};

// A packet of units; the cell clip is never on here (the CPU takes ScalarLanes for it).
template <typename P>
struct PacketLanes {
  using V = P;
  template <typename DType>
  MSHADOW_CINLINE static V Load(const DType* p) { return P::LoadUnAligned(p); }
  template <typename DType>
  MSHADOW_CINLINE static void Store(DType* p, V v) { v.StoreUnAligned(p); }
  template <typename DType>
  MSHADOW_CINLINE static V Fill(DType v) { return P::Fill(v); }
  MSHADOW_CINLINE static V Sigmoid(V a) { return mshadow::packet::Sigmoid(a); }
  MSHADOW_CINLINE static V Tanh(V a) { return mshadow::packet::Tanh(a); }
  MSHADOW_CINLINE static V Relu(V a) { return mshadow::packet::Max(a, P::Fill(0)); }
  template <typename DType>
  MSHADOW_CINLINE static V Clip(V c, const CellClip<DType>&) { return c; }
  template <typename DType>
  MSHADOW_CINLINE static V PassedByClip(V g, V, const CellClip<DType>&) {
    return g;
  }
};

// The pre-activation of gate k: input projection + recurrent product + recurrent bias.
template <typename L, typename DType>
MSHADOW_XINLINE typename L::V GateInput(const DType* g, const DType* hh, const DType* bh,
                                        index_t at) {
  return L::Load(g + at) + L::Load(hh + at) + L::Load(bh + at);
}

template <int kMode, typename L, typename DType>
MSHADOW_XINLINE void SimpleCell(StepPointers s, index_t n, index_t j, const DType* gates,
                                const DType* hh, const DType* bh, DType* h) {
  const auto a = GateInput<L>(gates + n * s.hidden, hh + n * s.hidden, bh, j);
  L::Store(h + n * s.h_stride + j, kMode == kRnnRelu ? L::Relu(a) : L::Tanh(a));
}

template <typename L, typename DType>
MSHADOW_XINLINE void LstmCell(StepPointers s, index_t n, index_t j, DType* gates,
                              const DType* hh, const DType* bh, const DType* c_prev, DType* c,
                              DType* h, const CellClip<DType>& clip) {
  const index_t H = s.hidden;
  DType* g = gates + n * 4 * H;
  const DType* r = hh + n * 4 * H;
  const auto in = L::Sigmoid(GateInput<L>(g, r, bh, j));
  const auto forget = L::Sigmoid(GateInput<L>(g, r, bh, H + j));
  const auto cand = L::Tanh(GateInput<L>(g, r, bh, 2 * H + j));
  const auto out = L::Sigmoid(GateInput<L>(g, r, bh, 3 * H + j));
  const auto cell = L::Clip(forget * L::Load(c_prev + n * H + j) + in * cand, clip);
  L::Store(g + j, in);
  L::Store(g + H + j, forget);
  L::Store(g + 2 * H + j, cand);
  L::Store(g + 3 * H + j, out);
  L::Store(c + n * H + j, cell);
  L::Store(h + n * s.h_stride + j, out * L::Tanh(cell));
}

// `hn` keeps W_hn h_{t-1} + b_hn, which the reset gate scales (the backward pass needs it).
template <typename L, typename DType>
MSHADOW_XINLINE void GruCell(StepPointers s, index_t n, index_t j, DType* gates, const DType* hh,
                             const DType* bh, const DType* h_prev, DType* hn, DType* h) {
  const index_t H = s.hidden;
  DType* g = gates + n * 3 * H;
  const DType* r = hh + n * 3 * H;
  const auto reset = L::Sigmoid(GateInput<L>(g, r, bh, j));
  const auto update = L::Sigmoid(GateInput<L>(g, r, bh, H + j));
  const auto hidden_n = L::Load(r + 2 * H + j) + L::Load(bh + 2 * H + j);
  const auto cand = L::Tanh(L::Load(g + 2 * H + j) + reset * hidden_n);
  const auto prev = L::Load(h_prev + n * s.h_prev_stride + j);
  L::Store(g + j, reset);
  L::Store(g + H + j, update);
  L::Store(g + 2 * H + j, cand);
  L::Store(hn + n * H + j, hidden_n);
  L::Store(h + n * s.h_stride + j, cand + update * (prev - cand));
}

// The cells as kernels over units i = n * hidden + j.
template <int kMode>
struct SimpleStepForward {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, StepPointers s, const DType* gates, const DType* hh,
                                  const DType* bh, DType* h) {
    SimpleCell<kMode, ScalarLanes<DType>>(s, i / s.hidden, i % s.hidden, gates, hh, bh, h);
  }
};

struct LstmStepForward {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, StepPointers s, DType* gates, const DType* hh,
                                  const DType* bh, const DType* c_prev, DType* c, DType* h,
                                  CellClip<DType> clip) {
    LstmCell<ScalarLanes<DType>>(s, i / s.hidden, i % s.hidden, gates, hh, bh, c_prev, c, h,
                                 clip);
  }
};

struct GruStepForward {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, StepPointers s, DType* gates, const DType* hh,
                                  const DType* bh, const DType* h_prev, DType* hn, DType* h) {
    GruCell<ScalarLanes<DType>>(s, i / s.hidden, i % s.hidden, gates, hh, bh, h_prev, hn, h);
  }
};

// The backward kernels read dh = dy_t + dh_next and write the gate gradients: `dgx` for the
// input side (Wx, bx, data), `dgh` for the recurrent side (Wh, bh; the GRU's differs in its
// candidate gate). LSTM and the vanilla cell leave dh_next to the gemm that follows; the
// GRU writes its direct part, dh * z, which the gemm adds to.

template <int kMode>
struct SimpleStepBackward {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, StepPointers s, const DType* h, const DType* dy,
                                  index_t dy_stride, const DType* dh_next, DType* dgx) {
    const index_t n = i / s.hidden, j = i % s.hidden;
    const DType out = h[n * s.h_stride + j];
    const DType dh = dy[n * dy_stride + j] + dh_next[i];
    dgx[i] = kMode == kRnnRelu ? (out > DType(0) ? dh : DType(0)) : dh * (DType(1) - out * out);
  }
};

// The LSTM's gate gradients for unit (n, j), or a packet of units: dh = dy + dh_next, the
// cell gradient dc (carried to the step before through dc_next), then each gate's.
template <typename L, typename DType>
MSHADOW_XINLINE void LstmCellBackward(StepPointers s, index_t n, index_t j, const DType* gates,
                                      const DType* c, const DType* c_prev, const DType* dy,
                                      index_t dy_stride, const DType* dh_next, DType* dc_next,
                                      DType* dgx, const CellClip<DType>& clip) {
  const index_t H = s.hidden, at = n * H + j;
  const DType* g = gates + n * 4 * H;
  const auto one = L::Fill(DType(1));
  const auto in = L::Load(g + j), forget = L::Load(g + H + j);
  const auto cand = L::Load(g + 2 * H + j), out = L::Load(g + 3 * H + j);
  const auto dh = L::Load(dy + n * dy_stride + j) + L::Load(dh_next + at);
  const auto cell = L::Load(c + at);
  const auto tc = L::Tanh(cell);
  const auto dc = L::PassedByClip(L::Load(dc_next + at) + dh * out * (one - tc * tc), cell, clip);
  DType* d = dgx + n * 4 * H;
  L::Store(d + j, dc * cand * in * (one - in));
  L::Store(d + H + j, dc * L::Load(c_prev + at) * forget * (one - forget));
  L::Store(d + 2 * H + j, dc * in * (one - cand * cand));
  L::Store(d + 3 * H + j, dh * tc * out * (one - out));
  L::Store(dc_next + at, dc * forget);
}

struct LstmStepBackward {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, StepPointers s, const DType* gates, const DType* c,
                                  const DType* c_prev, const DType* dy, index_t dy_stride,
                                  const DType* dh_next, DType* dc_next, DType* dgx,
                                  CellClip<DType> clip) {
    LstmCellBackward<ScalarLanes<DType>>(s, i / s.hidden, i % s.hidden, gates, c, c_prev, dy,
                                         dy_stride, dh_next, dc_next, dgx, clip);
  }
};

// The GRU's gate gradients for unit (n, j), or a packet of units; dh_next gets the direct
// part of dh_{t-1}, dh * z.
template <typename L, typename DType>
MSHADOW_XINLINE void GruCellBackward(StepPointers s, index_t n, index_t j, const DType* gates,
                                     const DType* hn, const DType* h_prev, const DType* dy,
                                     index_t dy_stride, DType* dh_next, DType* dgx, DType* dgh) {
  const index_t H = s.hidden, at = n * H + j;
  const DType* g = gates + n * 3 * H;
  const auto one = L::Fill(DType(1));
  const auto reset = L::Load(g + j), update = L::Load(g + H + j), cand = L::Load(g + 2 * H + j);
  const auto dh = L::Load(dy + n * dy_stride + j) + L::Load(dh_next + at);
  const auto d_cand = dh * (one - update) * (one - cand * cand);
  const auto d_reset = d_cand * L::Load(hn + at) * reset * (one - reset);
  const auto d_update =
      dh * (L::Load(h_prev + n * s.h_prev_stride + j) - cand) * update * (one - update);
  DType* dx = dgx + n * 3 * H;
  DType* dr = dgh + n * 3 * H;
  L::Store(dx + j, d_reset);
  L::Store(dr + j, d_reset);
  L::Store(dx + H + j, d_update);
  L::Store(dr + H + j, d_update);
  L::Store(dx + 2 * H + j, d_cand);
  L::Store(dr + 2 * H + j, d_cand * reset);
  L::Store(dh_next + at, dh * update);
}

struct GruStepBackward {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, StepPointers s, const DType* gates, const DType* hn,
                                  const DType* h_prev, const DType* dy, index_t dy_stride,
                                  DType* dh_next, DType* dgx, DType* dgh) {
    GruCellBackward<ScalarLanes<DType>>(s, i / s.hidden, i % s.hidden, gates, hn, h_prev, dy,
                                        dy_stride, dh_next, dgx, dgh);
  }
};

// ---- The call's buffers. The forward pass's record (every layer's output, every layer and
// direction's gates and cells) is the RNN operator's hidden last output, `reserve`, which
// the backward operator reads instead of running the forward pass again (as MXNet's reserve
// space); the rest is carved from one temporary allocation.

// Hands out 64-byte aligned pieces of a buffer from `base`; with base null, only counts.
template <typename DType>
struct Carver {
  DType* base;
  size_t used = 0;

  DType* Take(index_t elements) {
    DType* at = base == nullptr ? nullptr : base + used;
    used += (static_cast<size_t>(elements) + 15) / 16 * 16;
    return at;
  }
};

template <typename DType>
struct Workspace {
  // The record.
  std::vector<DType*> layer_out;  // per layer: (steps * batch, directions * hidden)
  std::vector<DType*> gates;      // per layer and direction: (steps * batch, gates * hidden)
  std::vector<DType*> cells;      // the same, (steps * batch, hidden): LSTM c_t, GRU hn_t
  // Temporary.
  DType* hh = nullptr;            // (batch, gates * hidden)
  DType* wx_t = nullptr;          // the CPU's Wx^T (widest layer input, gates * hidden)
  DType* wh_t = nullptr;          // the CPU's Wh^T (hidden, gates * hidden)
  DType* final_h = nullptr;       // (layers * directions, batch, hidden)
  DType* final_c = nullptr;
  // Backward only.
  DType* dgx = nullptr;  // (steps * batch, gates * hidden)
  DType* dgh = nullptr;  // the GRU's recurrent side; dgx for the others
  DType* dy[2] = {nullptr, nullptr};  // layer output gradients, ping-pong
  DType* dh = nullptr;                // (batch, hidden)
  DType* dc = nullptr;
  // The second direction's own temporary buffers (hh, Wx^T and Wh^T; and backward, dgx, dgh,
  // dh and dc), where a bidirectional layer's two directions run at once (PlanTemporary's
  // parallel_directions).
  struct {
    DType *hh = nullptr, *wx_t = nullptr, *wh_t = nullptr;
    DType *dgx = nullptr, *dgh = nullptr, *dh = nullptr, *dc = nullptr;
  } second;

  // The workspace of a layer's direction d: the same record; for d = 1 of a parallel plan,
  // the second direction's temporary buffers.
  Workspace ForDirection(index_t d) const {
    Workspace w = *this;
    if (d == 1 && second.hh != nullptr) {
      w.hh = second.hh;
      w.wx_t = second.wx_t;
      w.wh_t = second.wh_t;
      w.dgx = second.dgx;
      w.dgh = second.dgh;
      w.dh = second.dh;
      w.dc = second.dc;
    }
    return w;
  }

  // Lays the record out from `record` and returns the elements it takes (with record null,
  // only counts: the reserve output's size).
  size_t PlanRecord(const RNNDims& dims, int mode, DType* record) {
    Carver<DType> carve{record};
    const index_t rows = dims.Rows(), units = dims.layers * dims.directions;
    const index_t cell_size = mode == kLstm || mode == kGru ? rows * dims.hidden : 0;
    layer_out.assign(dims.layers, nullptr);
    gates.assign(units, nullptr);
    cells.assign(units, nullptr);
    for (index_t l = 0; l < dims.layers; ++l) layer_out[l] = carve.Take(rows * dims.OutputWidth());
    for (index_t u = 0; u < units; ++u) {
      gates[u] = carve.Take(rows * dims.GateWidth());
      cells[u] = carve.Take(cell_size);
    }
    return carve.used;
  }

  // Lays the temporary buffers out from `base` and returns the elements they take (with base
  // null, only counts); the record too when `with_record`. `transposed_weights`: room for
  // Wx^T and Wh^T (the CPU's products).
  size_t PlanTemporary(const RNNDims& dims, int mode, bool backward, bool transposed_weights,
                       bool with_record, bool parallel_directions, DType* base) {
    Carver<DType> carve{base};
    if (with_record) carve.Take(PlanRecord(dims, mode, base));
    const index_t rows = dims.Rows(), units = dims.layers * dims.directions;
    hh = carve.Take(dims.batch * dims.GateWidth());
    if (transposed_weights) {
      wx_t = carve.Take(std::max(dims.input, dims.OutputWidth()) * dims.GateWidth());
      wh_t = carve.Take(dims.hidden * dims.GateWidth());
    }
    if (parallel_directions) {
      second.hh = carve.Take(dims.batch * dims.GateWidth());
      if (transposed_weights) {
        second.wx_t = carve.Take(std::max(dims.input, dims.OutputWidth()) * dims.GateWidth());
        second.wh_t = carve.Take(dims.hidden * dims.GateWidth());
      }
    }
    final_h = carve.Take(units * dims.batch * dims.hidden);
    final_c = carve.Take(mode == kLstm ? units * dims.batch * dims.hidden : 0);
    if (backward) {
      dgx = carve.Take(rows * dims.GateWidth());
      dgh = mode == kGru ? carve.Take(rows * dims.GateWidth()) : dgx;
      dy[0] = carve.Take(rows * dims.OutputWidth());
      dy[1] = dims.layers > 2 ? carve.Take(rows * dims.OutputWidth()) : nullptr;
      dh = carve.Take(dims.batch * dims.hidden);
      dc = carve.Take(mode == kLstm ? dims.batch * dims.hidden : 0);
      if (parallel_directions) {
        second.dgx = carve.Take(rows * dims.GateWidth());
        second.dgh = mode == kGru ? carve.Take(rows * dims.GateWidth()) : second.dgx;
        second.dh = carve.Take(dims.batch * dims.hidden);
        second.dc = carve.Take(mode == kLstm ? dims.batch * dims.hidden : 0);
      }
    }
    return carve.used;
  }
};

// Elements of the reserve output.
inline index_t ReserveSize(const RNNDims& dims, int mode) {
  return static_cast<index_t>(Workspace<float>().PlanRecord(dims, mode, nullptr));
}

// The step at position `s` of a direction's pass (backwards in time for direction 1), and
// the one before it.
inline index_t StepAt(index_t s, index_t direction, index_t steps) {
  return direction == 0 ? s : steps - 1 - s;
}

// Rows [step * batch, (step + count) * batch) of a (steps * batch, width) matrix with the
// given row stride.
template <typename xpu, typename DType>
Tensor<xpu, 2, DType> StepRows(DType* base, index_t step, index_t count, index_t batch,
                               index_t width, index_t stride, mshadow::Stream<xpu>* stream) {
  return Tensor<xpu, 2, DType>(base + step * batch * stride, mshadow::Shape2(count * batch, width),
                               stride, stream);
}

// What one direction of one layer reads and writes.
template <typename xpu, typename DType>
struct DirectionPass {
  const RNNDims& dims;
  int mode;
  index_t direction;
  CellClip<DType> clip;
  Tensor<xpu, 2, DType> x;  // the layer's input (steps * batch, in)
  DirectionParams<xpu, DType> w;
  DType* h0;                // (batch, hidden)
  DType* c0;                // LSTM only
  DType* y;                 // this direction's columns of the layer output
  DType* gates;
  DType* cells;
  DType* wx_t;  // the CPU's room for Wx^T and Wh^T (null on the GPU)
  DType* wh_t;
  mshadow::Stream<xpu>* stream;

  index_t YStride() const { return dims.OutputWidth(); }
  // h_{t-1} of step position s (h0 at the first).
  DType* HPrev(index_t s) const {
    if (s == 0) return h0;
    const index_t prev = StepAt(s - 1, direction, dims.steps);
    return y + prev * dims.batch * YStride();
  }
  index_t HPrevStride(index_t s) const { return s == 0 ? dims.hidden : YStride(); }
  DType* CPrev(index_t s) const {
    if (s == 0) return c0;
    return cells + StepAt(s - 1, direction, dims.steps) * dims.batch * dims.hidden;
  }
  StepPointers Pointers(index_t s) const {
    return StepPointers{dims.hidden, HPrevStride(s), YStride()};
  }
};

// Samples [n0, n1) of step position s's cells on the calling thread, a SIMD packet of units
// at a time (the CPU where the LSTM cell clip is off).
template <typename DType>
void CellRowsForward(const DirectionPass<cpu, DType>& p, index_t s, DType* g, const DType* hh,
                     DType* y, DType* cell, index_t n0, index_t n1) {
  const StepPointers ptrs = p.Pointers(s);
  const DType* bh = p.w.bh.dptr_;
  const DType* c_prev = p.mode == kLstm ? p.CPrev(s) : nullptr;
  const DType* h_prev = p.HPrev(s);
  for (index_t n = n0; n < n1; ++n) {
    vec::ForEach<DType>(p.dims.hidden, [&](index_t j, auto tag) {
      using L = PacketLanes<vec::PacketOf<decltype(tag)>>;
      switch (p.mode) {
        case kRnnRelu:
          return SimpleCell<kRnnRelu, L>(ptrs, n, j, g, hh, bh, y);
        case kRnnTanh:
          return SimpleCell<kRnnTanh, L>(ptrs, n, j, g, hh, bh, y);
        case kLstm:
          return LstmCell<L>(ptrs, n, j, g, hh, bh, c_prev, cell, y, p.clip);
        default:
          return GruCell<L>(ptrs, n, j, g, hh, bh, h_prev, cell, y);
      }
    });
  }
}

// Step position s's cells: on the CPU a SIMD packet of units at a time, each sample's row on
// the library's threads (one unit at a time with the LSTM cell clip on); on the GPU a thread
// per unit.
template <typename xpu, typename DType>
void StepForward(const DirectionPass<xpu, DType>& p, index_t s, DType* g, const DType* hh,
                 DType* y, DType* cell) {
  const index_t N = p.dims.batch, H = p.dims.hidden;
  if constexpr (std::is_same_v<xpu, cpu>) {
    if (!(p.mode == kLstm && p.clip.on)) {
      ParallelRows(N, p.dims.GateWidth(), [&](index_t begin, index_t end) {
        CellRowsForward(p, s, g, hh, y, cell, begin, end);
      });
      return;
    }
  }
  const StepPointers ptrs = p.Pointers(s);
  const DType* bh = p.w.bh.dptr_;
  switch (p.mode) {
    case kRnnRelu:
      return Kernel<SimpleStepForward<kRnnRelu>, xpu>::Launch(
          p.stream, N * H, ptrs, static_cast<const DType*>(g), hh, bh, y);
    case kRnnTanh:
      return Kernel<SimpleStepForward<kRnnTanh>, xpu>::Launch(
          p.stream, N * H, ptrs, static_cast<const DType*>(g), hh, bh, y);
    case kLstm:
      return Kernel<LstmStepForward, xpu>::Launch(p.stream, N * H, ptrs, g, hh, bh,
                                                  static_cast<const DType*>(p.CPrev(s)), cell, y,
                                                  p.clip);
    default:
      return Kernel<GruStepForward, xpu>::Launch(p.stream, N * H, ptrs, g, hh, bh,
                                                 static_cast<const DType*>(p.HPrev(s)), cell, y);
  }
}

// dst (as req says) = a * w^T: on the CPU through w_t, which holds w transposed (the
// register tiles read their right operand by rows), elsewhere dot.
template <typename xpu, typename DType>
void ProductWithTransposed(Tensor<xpu, 2, DType> dst, OpReqType req, const Tensor<xpu, 2, DType>& a,
                           const Tensor<xpu, 2, DType>& w, const DType* w_t) {
  if constexpr (std::is_same_v<xpu, cpu>) {
    Product(dst, req, a, false,
            Tensor<xpu, 2, DType>(const_cast<DType*>(w_t), mshadow::Shape2(w.size(1), w.size(0)),
                                  w.size(0), a.stream_));
  } else {
    Assign(dst, req, dot(a, w.T()));
  }
}

// Whether a bidirectional layer's two directions run at once, a thread each, with their own
// temporary buffers: on the CPU with two threads or more (a step's products are too small to
// share out well: a bidirectional GRU ran 0.81x MXNet's backward at 2 threads, its forward no
// faster than on one). The backward's input gradients follow, on all threads.
template <typename xpu>
bool ParallelDirections(const RNNDims& dims) {
  return std::is_same_v<xpu, cpu> && dims.directions == 2 && mshadow::GetNumThreads() >= 2;
}

// Runs of the batch's samples that a recurrent pass gives a thread each, through all its
// steps: on the CPU with two threads or more, where the steps' products read Wh packed
// (`packed_wh`), the cells take SIMD packets (the LSTM cell clip off), each run has a
// register tile's rows (register_gemm::kTileRows) and the directions do not run at once
// already. A sample's recurrence reads only its own rows, so the runs need no hand-off between
// steps (two a step otherwise: the step's product and its cells, each shared out). 1: one
// pass over the batch, each step shared out.
template <typename xpu, typename DType>
index_t SampleRuns(const DirectionPass<xpu, DType>& p, bool packed_wh) {
  const RNNDims& dims = p.dims;
  if (!std::is_same_v<xpu, cpu> || !packed_wh || (p.mode == kLstm && p.clip.on) ||
      ParallelDirections<xpu>(dims)) {
    return 1;
  }
  const index_t work = dims.steps * dims.batch * dims.GateWidth() * dims.hidden;
  return std::max<index_t>(
      1, std::min<index_t>({mshadow::GetNumThreads(), dims.batch / register_gemm::kTileRows,
                            work / register_gemm::kMultiplyAddsPerThread}));
}

// Samples [n0, n1) of `runs` even runs of the batch, run r.
inline std::pair<index_t, index_t> SampleRun(index_t batch, index_t runs, index_t r) {
  return {batch * r / runs, batch * (r + 1) / runs};
}

// The forward steps of one direction on the CPU, each of `runs` runs of samples on a thread
// of its own (SampleRuns): its rows of each step's product (Wh^T packed in p.wh_t) and cells.
template <typename DType>
void ForwardStepsBySamples(const DirectionPass<cpu, DType>& p, DType* hh, index_t runs) {
  const index_t N = p.dims.batch, H = p.dims.hidden, gw = p.dims.GateWidth();
  mshadow::ParallelFor(runs, runs, [&](index_t r) {
    const auto [n0, n1] = SampleRun(N, runs, r);
    const Tensor<cpu, 2, DType> hh_rows(hh + n0 * gw, mshadow::Shape2(n1 - n0, gw), gw, p.stream);
    for (index_t s = 0; s < p.dims.steps; ++s) {
      const index_t t = StepAt(s, p.direction, p.dims.steps);
      const Tensor<cpu, 2, DType> h_prev(p.HPrev(s) + n0 * p.HPrevStride(s),
                                         mshadow::Shape2(n1 - n0, H), p.HPrevStride(s), p.stream);
      ProductPacked(hh_rows, kWriteTo, h_prev, false, static_cast<const DType*>(p.wh_t));
      CellRowsForward(p, s, p.gates + t * N * gw, static_cast<const DType*>(hh),
                      p.y + t * N * p.YStride(), p.cells + t * N * H, n0, n1);
    }
  });
}

// The forward pass of one direction: gates, cells and this direction's columns of y.
template <typename xpu, typename DType>
void ForwardDirection(const DirectionPass<xpu, DType>& p, DType* hh) {
  const RNNDims& dims = p.dims;
  const index_t N = dims.batch, H = dims.hidden, gw = dims.GateWidth();
  // The CPU's step products read Wh^T packed (register_gemm::PackRightOperand) where its
  // width allows, transposed into Wx^T's room once the input projection is done.
  const bool packed_wh = std::is_same_v<xpu, cpu> && register_gemm::PacksColumns<DType>(gw);
  auto transpose_into = [](const Tensor<xpu, 2, DType>& w, DType* w_t) {
    transpose::Transpose2D<false>(w.dptr_, w.stride_, w_t, w.size(0), w.size(0), w.size(1));
  };
  if constexpr (std::is_same_v<xpu, cpu>) transpose_into(p.w.wx, p.wx_t);
  Tensor<xpu, 2, DType> gates(p.gates, mshadow::Shape2(dims.Rows(), gw), gw, p.stream);
  gates = mshadow::expr::repmat(p.w.bx, dims.Rows());
  ProductWithTransposed(gates, kAddTo, p.x, p.w.wx, p.wx_t);
  if constexpr (std::is_same_v<xpu, cpu>) {
    if (packed_wh) {
      transpose_into(p.w.wh, p.wx_t);
      register_gemm::PackRightOperand(H, gw, static_cast<const DType*>(p.wx_t), gw, p.wh_t);
    } else {
      transpose_into(p.w.wh, p.wh_t);
    }
  }
  Tensor<xpu, 2, DType> hh_t(hh, mshadow::Shape2(N, gw), gw, p.stream);
  if constexpr (std::is_same_v<xpu, cpu>) {
    const index_t runs = SampleRuns(p, packed_wh);
    if (runs > 1) return ForwardStepsBySamples(p, hh, runs);
  }
  for (index_t s = 0; s < dims.steps; ++s) {
    const index_t t = StepAt(s, p.direction, dims.steps);
    const Tensor<xpu, 2, DType> h_prev(p.HPrev(s), mshadow::Shape2(N, H), p.HPrevStride(s),
                                       p.stream);
    bool product_done = false;
    if constexpr (std::is_same_v<xpu, cpu>) {
      if (packed_wh) {
        ProductPacked(hh_t, kWriteTo, h_prev, false, static_cast<const DType*>(p.wh_t));
        product_done = true;
      }
    }
    if (!product_done) ProductWithTransposed(hh_t, kWriteTo, h_prev, p.w.wh, p.wh_t);
    StepForward(p, s, p.gates + t * N * gw, static_cast<const DType*>(hh),
                p.y + t * N * p.YStride(), p.cells + t * N * H);
  }
}

// Samples [n0, n1) of step position s's gate gradients on the calling thread (the CPU where
// the LSTM cell clip is off): the LSTM's and GRU's a SIMD packet of units at a time, the
// vanilla cells' a unit at a time.
template <typename DType>
void StepRowsBackward(const DirectionPass<cpu, DType>& p, index_t s, const DType* g,
                      const DType* dy_t, index_t dy_stride, Workspace<DType>* ws, DType* dgx,
                      DType* dgh, index_t n0, index_t n1) {
  const index_t N = p.dims.batch, H = p.dims.hidden, t = StepAt(s, p.direction, p.dims.steps);
  const StepPointers ptrs = p.Pointers(s);
  if (p.mode == kRnnRelu || p.mode == kRnnTanh) {
    const DType* h = p.y + t * N * p.YStride();
    for (index_t i = n0 * H; i < n1 * H; ++i) {
      if (p.mode == kRnnRelu) {
        SimpleStepBackward<kRnnRelu>::Map(i, ptrs, h, dy_t, dy_stride, ws->dh, dgx);
      } else {
        SimpleStepBackward<kRnnTanh>::Map(i, ptrs, h, dy_t, dy_stride, ws->dh, dgx);
      }
    }
    return;
  }
  const DType* cells = p.cells + t * N * H;  // LSTM c_t, GRU hn_t
  const DType* c_prev = p.mode == kLstm ? p.CPrev(s) : nullptr;
  const DType* h_prev = p.HPrev(s);
  for (index_t n = n0; n < n1; ++n) {
    vec::ForEach<DType>(H, [&](index_t j, auto tag) {
      using L = PacketLanes<vec::PacketOf<decltype(tag)>>;
      if (p.mode == kLstm) {
        LstmCellBackward<L>(ptrs, n, j, g, cells, c_prev, dy_t, dy_stride, ws->dh, ws->dc, dgx,
                            p.clip);
      } else {
        GruCellBackward<L>(ptrs, n, j, g, cells, h_prev, dy_t, dy_stride, ws->dh, dgx, dgh);
      }
    });
  }
}

// Step position s's LSTM or GRU gate gradients: on the CPU a SIMD packet of units at a time,
// each sample's row on the library's threads (one unit at a time with the LSTM cell clip
// on); on the GPU a thread per unit.
template <typename xpu, typename DType>
void GatedStepBackward(const DirectionPass<xpu, DType>& p, index_t s, const DType* g,
                       const DType* dy_t, index_t dy_stride, Workspace<DType>* ws, DType* dgx,
                       DType* dgh) {
  const index_t N = p.dims.batch, H = p.dims.hidden;
  if constexpr (std::is_same_v<xpu, cpu>) {
    if (!(p.mode == kLstm && p.clip.on)) {
      ParallelRows(N, p.dims.GateWidth(), [&](index_t begin, index_t end) {
        StepRowsBackward(p, s, g, dy_t, dy_stride, ws, dgx, dgh, begin, end);
      });
      return;
    }
  }
  const index_t t = StepAt(s, p.direction, p.dims.steps);
  const StepPointers ptrs = p.Pointers(s);
  const DType* cells = p.cells + t * N * H;  // LSTM c_t, GRU hn_t
  const DType* c_prev = p.mode == kLstm ? p.CPrev(s) : nullptr;
  const DType* h_prev = p.HPrev(s);
  if (p.mode == kLstm) {
    Kernel<LstmStepBackward, xpu>::Launch(p.stream, N * H, ptrs, g, cells, c_prev, dy_t, dy_stride,
                                          static_cast<const DType*>(ws->dh), ws->dc, dgx, p.clip);
  } else {
    Kernel<GruStepBackward, xpu>::Launch(p.stream, N * H, ptrs, g, cells, h_prev, dy_t, dy_stride,
                                         ws->dh, dgx, dgh);
  }
}

// How a step's product writes dh_{t-1}: the GRU's adds to the direct part its cells wrote.
inline OpReqType DhRequest(int mode) { return mode == kGru ? kAddTo : kWriteTo; }

// The backward steps of one direction on the CPU, each of `runs` runs of samples on a thread
// of its own (SampleRuns): its rows of each step's gate gradients and of dh_{t-1}'s product
// (Wh packed in p.wh_t).
template <typename DType>
void BackwardStepsBySamples(const DirectionPass<cpu, DType>& p, const DType* dy, index_t dy_stride,
                            Workspace<DType>* ws, index_t runs) {
  const index_t N = p.dims.batch, H = p.dims.hidden, width = p.dims.GateWidth();
  mshadow::ParallelFor(runs, runs, [&](index_t r) {
    const auto [n0, n1] = SampleRun(N, runs, r);
    const Tensor<cpu, 2, DType> dh_rows(ws->dh + n0 * H, mshadow::Shape2(n1 - n0, H), H, p.stream);
    for (index_t s = p.dims.steps; s-- > 0;) {
      const index_t t = StepAt(s, p.direction, p.dims.steps);
      DType* dgh = ws->dgh + t * N * width;
      StepRowsBackward(p, s, p.gates + t * N * width, dy + t * N * dy_stride, dy_stride, ws,
                       ws->dgx + t * N * width, dgh, n0, n1);
      const Tensor<cpu, 2, DType> dgh_rows(dgh + n0 * width, mshadow::Shape2(n1 - n0, width), width,
                                           p.stream);
      ProductPacked(dh_rows, DhRequest(p.mode), dgh_rows, false, static_cast<const DType*>(p.wh_t));
    }
  });
}

// Gradients of one direction, given dy (this direction's columns of the layer output's
// gradient) and dh/dc holding the final states' gradients: writes the parameter gradients
// `gw` (as `req_w` says), the input gradient dx (as `req_x`) and leaves dh/dc holding
// the initial states' gradients.
template <typename xpu, typename DType>
void BackwardDirection(const DirectionPass<xpu, DType>& p, const DType* dy, index_t dy_stride,
                       Workspace<DType>* ws, DirectionParams<xpu, DType> gw,
                       OpReqType req_w, Tensor<xpu, 2, DType> dx, OpReqType req_x) {
  const RNNDims& dims = p.dims;
  const index_t N = dims.batch, H = dims.hidden, width = dims.GateWidth(), T = dims.steps;
  Tensor<xpu, 2, DType> dh(ws->dh, mshadow::Shape2(N, H), H, p.stream);
  // The CPU's step products read Wh packed (register_gemm::PackRightOperand), in Wh^T's room,
  // where its width allows.
  const bool packed_wh = std::is_same_v<xpu, cpu> && register_gemm::PacksColumns<DType>(H);
  const OpReqType dh_req = DhRequest(p.mode);
  index_t runs = 1;
  if constexpr (std::is_same_v<xpu, cpu>) {
    if (packed_wh) {
      register_gemm::PackRightOperand(width, H, static_cast<const DType*>(p.w.wh.dptr_),
                                      p.w.wh.stride_, p.wh_t);
    }
    runs = SampleRuns(p, packed_wh);
    if (runs > 1) BackwardStepsBySamples(p, dy, dy_stride, ws, runs);
  }
  // The steps over the whole batch, where no runs of samples took them.
  for (index_t s = T; runs == 1 && s-- > 0;) {
    const index_t t = StepAt(s, p.direction, T);
    const DType* g = p.gates + t * N * width;
    const DType* dy_t = dy + t * N * dy_stride;
    DType* dgx = ws->dgx + t * N * width;
    DType* dgh = ws->dgh + t * N * width;
    switch (p.mode) {
      case kRnnRelu:
        Kernel<SimpleStepBackward<kRnnRelu>, xpu>::Launch(
            p.stream, N * H, p.Pointers(s), static_cast<const DType*>(p.y + t * N * p.YStride()),
            dy_t, dy_stride, static_cast<const DType*>(ws->dh), dgx);
        break;
      case kRnnTanh:
        Kernel<SimpleStepBackward<kRnnTanh>, xpu>::Launch(
            p.stream, N * H, p.Pointers(s), static_cast<const DType*>(p.y + t * N * p.YStride()),
            dy_t, dy_stride, static_cast<const DType*>(ws->dh), dgx);
        break;
      default:
        GatedStepBackward(p, s, g, dy_t, dy_stride, ws, dgx, dgh);
    }
    Tensor<xpu, 2, DType> dgh_t(dgh, mshadow::Shape2(N, width), width, p.stream);
    if constexpr (std::is_same_v<xpu, cpu>) {
      if (packed_wh) {
        ProductPacked(dh, dh_req, dgh_t, false, static_cast<const DType*>(p.wh_t));
        continue;
      }
    }
    Product(dh, dh_req, dgh_t, false, p.w.wh);
  }
  const index_t rows = dims.Rows();
  Tensor<xpu, 2, DType> dgx(ws->dgx, mshadow::Shape2(rows, width), width, p.stream);
  Tensor<xpu, 2, DType> dgh(ws->dgh, mshadow::Shape2(rows, width), width, p.stream);
  if (req_w != kNullOp) {
    Product(gw.wx, req_w, dgx, true, p.x);
    // dWh = sum over steps of dgh_t^T h_{t-1}: the steps after the first read h_{t-1} from
    // the layer output (one gemm over shifted rows), the first reads h0.
    const index_t first = StepAt(0, p.direction, T);
    Tensor<xpu, 2, DType> h0(p.h0, mshadow::Shape2(N, H), H, p.stream);
    Product(gw.wh, req_w, StepRows(ws->dgh, first, 1, N, width, width, p.stream), true, h0);
    if (T > 1) {
      const index_t dgh_from = p.direction == 0 ? 1 : 0, y_from = p.direction == 0 ? 0 : 1;
      Product(gw.wh, kAddTo, StepRows(ws->dgh, dgh_from, T - 1, N, width, width, p.stream), true,
              StepRows(p.y, y_from, T - 1, N, H, p.YStride(), p.stream));
    }
    Assign(gw.bx, req_w, mshadow::expr::sum_rows(dgx));
    Assign(gw.bh, req_w, mshadow::expr::sum_rows(dgh));
  }
  Product(dx, req_x, dgx, false, p.w.wx);
}

// Direction d of layer l of the call with inputs data, parameters, state [, state_cell]:
// its input is the data or the layer below's output in `ws`.
template <typename xpu, typename DType>
DirectionPass<xpu, DType> PassOf(const RNNParam& param, const RNNDims& dims,
                                 const std::vector<TBlob>& in, const Workspace<DType>& ws,
                                 index_t l, index_t d, mshadow::Stream<xpu>* stream) {
  const index_t unit = l * dims.directions + d, state_at = unit * dims.batch * dims.hidden;
  const index_t in_width = dims.LayerInput(l);
  DType* x = l == 0 ? in[0].dptr<DType>() : ws.layer_out[l - 1];
  return DirectionPass<xpu, DType>{
      dims,
      param.mode,
      d,
      CellClipOf<DType>(param),
      Tensor<xpu, 2, DType>(x, mshadow::Shape2(dims.Rows(), in_width), in_width, stream),
      DirectionParams<xpu, DType>(dims, in[1].dptr<DType>(), l, d, stream),
      in[2].dptr<DType>() + state_at,
      param.mode == kLstm ? in[3].dptr<DType>() + state_at : nullptr,
      ws.layer_out[l] + d * dims.hidden,
      ws.gates[unit],
      ws.cells[unit],
      ws.wx_t,
      ws.wh_t,
      stream};
}

// The workspace of a forward (or backward) call: the record in `record` (the reserve), or,
// with record null, in the call's temporary space with the rest.
template <typename xpu, typename DType>
Workspace<DType> PlanWorkspace(const OpContext& ctx, const RNNDims& dims, int mode, bool backward,
                               bool parallel_directions, DType* record,
                               mshadow::Stream<xpu>* stream) {
  constexpr bool kTransposedWeights = std::is_same_v<xpu, cpu>;
  const bool with_record = record == nullptr;
  Workspace<DType> ws;
  const size_t elements = ws.PlanTemporary(dims, mode, backward, kTransposedWeights, with_record,
                                           parallel_directions, nullptr);
  auto space = ctx.requested[0].get_space_typed<xpu, 1, DType>(
      mshadow::Shape1(static_cast<index_t>(elements)), stream);
  ws.PlanTemporary(dims, mode, backward, kTransposedWeights, with_record, parallel_directions,
                   space.dptr_);
  if (!with_record) ws.PlanRecord(dims, mode, record);
  return ws;
}

// Inputs: data, parameters, state [, state_cell]. Outputs: out [, hy [, cy]]. Fills `ws`
// (planned for the call) with the forward pass.
template <typename xpu, typename DType>
void RunForward(const RNNParam& param, const RNNDims& dims, const std::vector<TBlob>& in,
                Workspace<DType>* ws, mshadow::Stream<xpu>* stream) {
  const index_t N = dims.batch, H = dims.hidden, D = dims.directions;
  for (index_t l = 0; l < dims.layers; ++l) {
    auto forward_direction = [&](index_t d) {
      const index_t unit = l * D + d;
      const Workspace<DType> w = ws->ForDirection(d);
      const DirectionPass<xpu, DType> pass = PassOf<xpu, DType>(param, dims, in, w, l, d, stream);
      ForwardDirection(pass, w.hh);
      const index_t last = StepAt(dims.steps - 1, d, dims.steps);
      Tensor<xpu, 2, DType> final_h(ws->final_h + unit * N * H, mshadow::Shape2(N, H), H, stream);
      final_h = mshadow::expr::F<mshadow::op::identity>(
          StepRows(pass.y, last, 1, N, H, dims.OutputWidth(), stream));
      if (param.mode == kLstm) {
        Tensor<xpu, 2, DType> final_c(ws->final_c + unit * N * H, mshadow::Shape2(N, H), H,
                                      stream);
        final_c = mshadow::expr::F<mshadow::op::identity>(
            StepRows(pass.cells, last, 1, N, H, H, stream));
      }
    };
    if (D == 2 && ws->second.hh != nullptr) {  // planned for both directions at once
      mshadow::ParallelFor(2, 2, forward_direction);
    } else {
      for (index_t d = 0; d < D; ++d) forward_direction(d);
    }
  }
}

template <typename xpu>
void RNNCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const RNNParam& param = GetParam<RNNParam>(attrs);
  CheckRNNCall(param, in[0].shape_);
  if (ctx.is_train && param.p > 0 && param.num_layers > 1) {
    std::ostringstream os;
    os << "RNN: dropout between layers (p=" << param.p << ") is not supported in training; "
       << "valid: p=0, or a Dropout operator between single-layer RNNs";
    throw dmlc::Error(os.str());
  }
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const RNNDims dims(param, in[0].shape_);
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    // The record goes straight into the reserve (the last output) unless it is not wanted.
    DType* reserve = req.back() == kNullOp ? nullptr : out.back().dptr<DType>();
    Workspace<DType> ws = PlanWorkspace<xpu, DType>(ctx, dims, param.mode, false,
                                                    ParallelDirections<xpu>(dims), reserve, stream);
    RunForward<xpu, DType>(param, dims, in, &ws, stream);
    const index_t states = dims.layers * dims.directions * dims.batch * dims.hidden;
    // Output k = the buffer at `src`, as req[k] says.
    auto emit = [&](int k, DType* src, index_t n) {
      Assign(Tensor<xpu, 1, DType>(out[k].dptr<DType>(), mshadow::Shape1(n), stream), req[k],
             mshadow::expr::F<mshadow::op::identity>(
                 Tensor<xpu, 1, DType>(src, mshadow::Shape1(n), stream)));
    };
    emit(0, ws.layer_out[dims.layers - 1], dims.Rows() * dims.OutputWidth());
    if (param.state_outputs) {
      emit(1, ws.final_h, states);
      if (param.mode == kLstm) emit(2, ws.final_c, states);
    }
  });
}

// Inputs: the output gradients (out [, hy [, cy]], reserve), then data, parameters, state
// [, state_cell], then the outputs (out [, hy [, cy]], reserve). Outputs: the inputs'
// gradients.
template <typename xpu>
void RNNBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                        const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                        const std::vector<TBlob>& out) {
  const RNNParam& param = GetParam<RNNParam>(attrs);
  const int num_out = NumOutputs(param) + 1;  // and the reserve
  const int num_in = 2 + NumStateInputs(param);
  const std::vector<TBlob> inputs(in.begin() + num_out, in.begin() + num_out + num_in);
  const TBlob& reserve = in.back();
  CheckRNNCall(param, inputs[0].shape_);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const RNNDims dims(param, inputs[0].shape_);
  const index_t N = dims.batch, H = dims.hidden, D = dims.directions;
  const bool parallel_directions = ParallelDirections<xpu>(dims);
  MSHADOW_SGL_DBL_TYPE_SWITCH(inputs[0].type_flag_, DType, {
    const Workspace<DType> ws = PlanWorkspace<xpu, DType>(
        ctx, dims, param.mode, true, parallel_directions, reserve.dptr<DType>(), stream);

    DType* grad_params = out[1].dptr<DType>();
    const DType* dhy = param.state_outputs ? in[1].dptr<DType>() : nullptr;
    const DType* dcy = param.state_outputs && param.mode == kLstm ? in[2].dptr<DType>() : nullptr;
    auto state_rows = [&](const DType* base, index_t unit) {
      return Tensor<xpu, 2, DType>(const_cast<DType*>(base) + unit * N * H, mshadow::Shape2(N, H),
                                   H, stream);
    };
    // A final state's gradient (zero when it is not an output) where the pass starts.
    auto start_from = [&](Tensor<xpu, 2, DType> grad, const DType* final_grad, index_t unit) {
      if (final_grad != nullptr) {
        grad = mshadow::expr::F<mshadow::op::identity>(state_rows(final_grad, unit));
      } else {
        grad = DType(0);
      }
    };
    for (index_t l = dims.layers; l-- > 0;) {
      const index_t in_width = dims.LayerInput(l);
      const bool top = l == dims.layers - 1;
      const DType* dy = top ? in[0].dptr<DType>() : ws.dy[l % 2];
      DType* dx_data = l == 0 ? out[0].dptr<DType>() : ws.dy[(l - 1) % 2];
      const Tensor<xpu, 2, DType> dx(dx_data, mshadow::Shape2(dims.Rows(), in_width), in_width,
                                     stream);
      const OpReqType req_x = l == 0 ? req[0] : kWriteTo;
      // Direction d's pass on its workspace; the input gradient as dx_req says (the second
      // direction's adds to the first's).
      auto backward_direction = [&](index_t d, Workspace<DType>* w, OpReqType dx_req) {
        const index_t unit = l * D + d;
        const DirectionPass<xpu, DType> pass =
            PassOf<xpu, DType>(param, dims, inputs, *w, l, d, stream);
        Tensor<xpu, 2, DType> dh(w->dh, mshadow::Shape2(N, H), H, stream);
        Tensor<xpu, 2, DType> dc(w->dc, mshadow::Shape2(N, H), H, stream);
        start_from(dh, dhy, unit);
        if (param.mode == kLstm) start_from(dc, dcy, unit);
        BackwardDirection(pass, dy + d * H, dims.OutputWidth(), w,
                          DirectionParams<xpu, DType>(dims, grad_params, l, d, stream), req[1], dx,
                          dx_req);
        Assign(state_rows(out[2].dptr<DType>(), unit), req[2],
               mshadow::expr::F<mshadow::op::identity>(dh));
        if (param.mode == kLstm) {
          Assign(state_rows(out[3].dptr<DType>(), unit), req[3],
                 mshadow::expr::F<mshadow::op::identity>(dc));
        }
      };
      const OpReqType second_req = req_x == kNullOp ? kNullOp : kAddTo;
      if (!parallel_directions) {
        for (index_t d = 0; d < D; ++d) {
          Workspace<DType> w = ws.ForDirection(d);
          backward_direction(d, &w, d == 0 ? req_x : second_req);
        }
        continue;
      }
      Workspace<DType> w[2] = {ws.ForDirection(0), ws.ForDirection(1)};
      mshadow::ParallelFor(2, 2, [&](index_t d) { backward_direction(d, &w[d], kNullOp); });
      for (index_t d = 0; d < D; ++d) {
        const Tensor<xpu, 2, DType> dgx(w[d].dgx, mshadow::Shape2(dims.Rows(), dims.GateWidth()),
                                        dims.GateWidth(), stream);
        Product(dx, d == 0 ? req_x : second_req, dgx, false,
                DirectionParams<xpu, DType>(dims, inputs[1].dptr<DType>(), l, d, stream).wx);
      }
    }
  });
}

// Adds FCompute<xpu> to RNN and _backward_RNN.
template <typename xpu>
void SetRNNCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("RNN").set_attr<FCompute>(attr_name, FCompute(RNNCompute<xpu>));
  RegisterOp("_backward_RNN").set_attr<FCompute>(attr_name, FCompute(RNNBackwardCompute<xpu>));
}

}  // namespace rnn
}  // namespace ops

#endif  // OPS_RNN_INL_H_
