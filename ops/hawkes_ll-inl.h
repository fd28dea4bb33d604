// ops/hawkes_ll-inl.h: MXNet 1.9.1's _contrib_hawkesll, the log likelihood of marked
// self-exciting (Hawkes) processes with exponential kernels, and its backward operator, written
// once for every device.
//
// Sample i's events come a lag apart (lags (N, T)), event j with mark marks[i, j] in [0, K),
// its first valid_length[i] events counting. Mark k's intensity is mu[i, k] + alpha[k] beta[k]
// s_k(t), its state s_k decaying as exp(-beta[k] dt) from state[i, k] at time 0 and growing by
// 1 at each of its events. The log likelihood adds, per event, the log of its mark's intensity
// then and subtracts every mark's compensator (the intensity's integral) up to max_time[i]; the
// second output is the states decayed to max_time[i]. An item a sample, its events in order.
//
// The gradient is the exact derivative of both outputs in mu, alpha, beta and the starting
// states: each sample's scan carries the states' derivatives in beta and in the starting
// states forward. MXNet's is the log likelihood's in mu, alpha and beta only; it leaves the
// starting states' unwritten and ignores the states output's gradient. lags, marks,
// valid_length and max_time get zeros (MXNet refuses to differentiate them).
//
// Marks within a sample's valid events outside [0, K), and valid lengths that are not whole
// numbers in [0, T], are a dmlc::Error naming the first (MXNet reads outside its arrays).
// hawkes_ll.cc registers it with FCompute<cpu> and inference; hawkes_ll.cu adds FCompute<gpu>.
#ifndef OPS_HAWKES_LL_INL_H_
#define OPS_HAWKES_LL_INL_H_

#include <cmath>
#include <sstream>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace hawkes_ll {

// The inputs in order.
enum Input { kMu, kAlpha, kBeta, kState, kLags, kMarks, kValidLength, kMaxTime, kNumInputs };

struct Extents {
  index_t samples, marks, steps;  // N, K, T
};

// What a sample's scan reads.
template <typename DType>
struct Process {
  const DType *mu, *alpha, *beta, *state, *lags;
  const int32_t* marks;
  const DType *valid_length, *max_time;
  Extents e;
};

template <typename DType>
Process<DType> ProcessOf(const TBlob* inputs) {
  const TShape& lags = inputs[kLags].shape_;
  return {inputs[kMu].dptr<DType>(),
          inputs[kAlpha].dptr<DType>(),
          inputs[kBeta].dptr<DType>(),
          inputs[kState].dptr<DType>(),
          inputs[kLags].dptr<DType>(),
          inputs[kMarks].dptr<int32_t>(),
          inputs[kValidLength].dptr<DType>(),
          inputs[kMaxTime].dptr<DType>(),
          {lags[0], inputs[kMu].shape_[1], lags[1]}};
}

// Item (both devices): sample i's log likelihood and final states; `work` holds 2K values a
// sample (each mark's last event time and state).
struct hawkes_forward {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, Process<DType> p, DType* work, DType* loglike,
                                  OpReqType loglike_req, DType* states, OpReqType states_req) {
    const index_t K = p.e.marks;
    DType *last = work + i * 2 * K, *s = last + K;
    const DType* mu = p.mu + i * K;
    for (index_t k = 0; k < K; ++k) last[k] = DType(0), s[k] = p.state[i * K + k];
    DType t = DType(0), ll = DType(0);
    const index_t events = static_cast<index_t>(p.valid_length[i]);
    for (index_t j = 0; j < events; ++j) {
      const index_t c = p.marks[i * p.e.steps + j];
      t += p.lags[i * p.e.steps + j];
      const DType d = t - last[c], ed = std::exp(-p.beta[c] * d);
      const DType intensity = mu[c] + p.alpha[c] * p.beta[c] * s[c] * ed;
      ll += std::log(intensity) - (mu[c] * d + p.alpha[c] * s[c] * (DType(1) - ed));
      s[c] = DType(1) + s[c] * ed;
      last[c] = t;
    }
    for (index_t k = 0; k < K; ++k) {  // the compensators to max_time
      const DType d = p.max_time[i] - last[k], ed = std::exp(-p.beta[k] * d);
      ll -= mu[k] * d + p.alpha[k] * s[k] * (DType(1) - ed);
      AssignReq(states + i * K + k, ed * s[k], states_req);
    }
    AssignReq(loglike + i, ll, loglike_req);
  }
};

// Where the backward item writes: mu's and the starting states' gradients (N, K) directly,
// alpha's and beta's per sample into rows (N, K) summed afterwards.
template <typename DType>
struct HawkesGradients {
  DType *mu, *state, *alpha_rows, *beta_rows;
  OpReqType mu_req, state_req;
};

// Item (both devices): sample i's scan again, carrying each mark's state s, its derivatives
// in beta (ds) and in the starting state (ps: the product of the decays so far); `work` holds
// 8K values a sample.
struct hawkes_backward {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, Process<DType> p, const DType* og_loglike,
                                  const DType* og_states, DType* work, HawkesGradients<DType> g) {
    const index_t K = p.e.marks;
    DType *last = work + i * 8 * K, *s = last + K, *ds = s + K, *ps = ds + K;
    // The log likelihood's derivatives.
    DType *d_mu = ps + K, *d_alpha = d_mu + K, *d_beta = d_alpha + K, *d_state = d_beta + K;
    const DType *mu = p.mu + i * K, *alpha = p.alpha, *beta = p.beta;
    for (index_t k = 0; k < K; ++k) {
      last[k] = ds[k] = d_mu[k] = d_alpha[k] = d_beta[k] = d_state[k] = DType(0);
      s[k] = p.state[i * K + k], ps[k] = DType(1);
    }
    DType t = DType(0);
    const index_t events = static_cast<index_t>(p.valid_length[i]);
    for (index_t j = 0; j < events; ++j) {
      const index_t c = p.marks[i * p.e.steps + j];
      t += p.lags[i * p.e.steps + j];
      const DType d = t - last[c], ed = std::exp(-beta[c] * d);
      const DType intensity = mu[c] + alpha[c] * beta[c] * s[c] * ed;
      d_mu[c] += DType(1) / intensity - d;
      d_alpha[c] += beta[c] * s[c] * ed / intensity - s[c] * (DType(1) - ed);
      d_beta[c] += alpha[c] * ed * (s[c] * (DType(1) - beta[c] * d) + beta[c] * ds[c]) / intensity -
                   alpha[c] * (ds[c] * (DType(1) - ed) + s[c] * d * ed);
      d_state[c] += ps[c] * alpha[c] * (beta[c] * ed / intensity - (DType(1) - ed));
      ds[c] = ed * (ds[c] - d * s[c]);
      ps[c] *= ed;
      s[c] = DType(1) + s[c] * ed;
      last[c] = t;
    }
    const DType og = og_loglike[i];
    for (index_t k = 0; k < K; ++k) {
      const DType d = p.max_time[i] - last[k], ed = std::exp(-beta[k] * d);
      const DType og_state = og_states[i * K + k];  // the final state is ed * s
      const DType state_grad =
          og * (d_state[k] - alpha[k] * (DType(1) - ed) * ps[k]) + og_state * ed * ps[k];
      AssignReq(g.mu + i * K + k, og * (d_mu[k] - d), g.mu_req);
      AssignReq(g.state + i * K + k, state_grad, g.state_req);
      g.alpha_rows[i * K + k] = og * (d_alpha[k] - s[k] * (DType(1) - ed));
      g.beta_rows[i * K + k] =
          og * (d_beta[k] - alpha[k] * (ds[k] * (DType(1) - ed) + s[k] * d * ed)) +
          og_state * ed * (ds[k] - d * s[k]);
    }
  }
};

// The marks of every sample's valid events in [0, K) and the valid lengths whole numbers in
// [0, T], or a dmlc::Error naming the first that is not (read on the host).
template <typename xpu, typename DType>
void CheckEvents(const TBlob* inputs, mshadow::Stream<xpu>* s) {
  const TShape& lags = inputs[kLags].shape_;
  const index_t N = lags[0], T = lags[1], K = inputs[kMu].shape_[1];
  WithIndicesOnHost<xpu, DType>(inputs[kValidLength], s, [&](const DType* lengths, index_t) {
    WithIndicesOnHost<xpu, int32_t>(inputs[kMarks], s, [&](const int32_t* marks, index_t) {
      std::ostringstream os;
      os << "_contrib_hawkesll: ";
      for (index_t i = 0; i < N; ++i) {
        const double length = static_cast<double>(lengths[i]);
        if (!(length >= 0 && length <= static_cast<double>(T) && length == std::floor(length))) {
          os << "valid_length " << length << " of sample " << i
             << "; valid: whole numbers 0 to " << T;
          throw dmlc::Error(os.str());
        }
        const index_t events = static_cast<index_t>(length);
        const index_t j = FirstOutside(marks + i * T, events, -1.0, static_cast<double>(K));
        if (j < events) {
          os << "mark " << marks[i * T + j] << " of event " << j << " of sample " << i
             << "; valid: 0 to " << K - 1;
          throw dmlc::Error(os.str());
        }
      }
    });
  });
}

// Inputs: mu (N, K), alpha (K), beta (K), state (N, K), lags (N, T), marks (N, T) int32,
// valid_length (N), max_time (N); outputs: the log likelihoods (N) and the states (N, K).
template <typename xpu>
void HawkesLLCompute(const NodeAttrs& /*attrs*/, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    CheckEvents<xpu, DType>(in.data(), s);
    const Process<DType> p = ProcessOf<DType>(in.data());
    DType* work =
        ctx.requested[0]
            .get_space_typed<xpu, 1, DType>(mshadow::Shape1(2 * p.e.samples * p.e.marks), s)
            .dptr_;
    Kernel<hawkes_forward, xpu>::LaunchItems(s, p.e.samples, p.e.steps * 8 + p.e.marks * 8, p, work,
                                             out[0].dptr<DType>(), req[0], out[1].dptr<DType>(),
                                             req[1]);
  });
}

// Inputs: the gradients of the log likelihoods and the states, then the forward's inputs;
// outputs: the inputs' gradients.
template <typename xpu>
void HawkesLLBackward(const NodeAttrs& /*attrs*/, const OpContext& ctx,
                      const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                      const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TBlob* inputs = in.data() + 2;
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    CheckEvents<xpu, DType>(inputs, s);
    const Process<DType> p = ProcessOf<DType>(inputs);
    const index_t N = p.e.samples, K = p.e.marks;
    // 8K values of work a sample, then alpha's and beta's rows.
    auto space = ctx.requested[0].get_space_typed<xpu, 1, DType>(mshadow::Shape1(10 * N * K), s);
    const HawkesGradients<DType> g{out[kMu].dptr<DType>(),
                                   out[kState].dptr<DType>(),
                                   space.dptr_ + 8 * N * K,
                                   space.dptr_ + 9 * N * K,
                                   req[kMu],
                                   req[kState]};
    Kernel<hawkes_backward, xpu>::LaunchItems(s, N, p.e.steps * 16 + K * 16, p, in[0].dptr<DType>(),
                                              in[1].dptr<DType>(), space.dptr_, g);
    Tensor<xpu, 2, DType> alpha_rows(g.alpha_rows, mshadow::Shape2(N, K), s);
    Tensor<xpu, 2, DType> beta_rows(g.beta_rows, mshadow::Shape2(N, K), s);
    Assign(out[kAlpha].get_with_shape<xpu, 1, DType>(mshadow::Shape1(K), s), req[kAlpha],
           mshadow::expr::sumall_except_dim<1>(alpha_rows));
    Assign(out[kBeta].get_with_shape<xpu, 1, DType>(mshadow::Shape1(K), s), req[kBeta],
           mshadow::expr::sumall_except_dim<1>(beta_rows));
    for (const int i : {kLags, kValidLength, kMaxTime}) {
      WriteZeroGradient<xpu, DType>(out[i], req[i], s);
    }
  });
  WriteZeroGradient<xpu, int32_t>(out[kMarks], req[kMarks], s);
}

// Adds FCompute<xpu> to _contrib_hawkesll and its backward operator.
template <typename xpu>
void SetHawkesLLCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_hawkesll").set_attr<FCompute>(attr_name, FCompute(HawkesLLCompute<xpu>));
  RegisterOp("_backward_contrib_hawkesll")
      .set_attr<FCompute>(attr_name, FCompute(HawkesLLBackward<xpu>));
}

}  // namespace hawkes_ll
}  // namespace ops

#endif  // OPS_HAWKES_LL_INL_H_
