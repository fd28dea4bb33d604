// _contrib_hawkesll(lda, alpha, beta, state, lags, marks, valid_length, max_time): the log
// likelihood of marked Hawkes processes, and its backward operator. Shapes and types here; the
// computation, for every device: hawkes_ll-inl.h; FCompute<gpu>: hawkes_ll.cu.
#include <vector>

#include "ops/hawkes_ll-inl.h"
#include "ops/infer_util.h"

namespace ops {
namespace hawkes_ll {
namespace {

// lda (N, K), alpha (K), beta (K), state (N, K), lags (N, T), marks (N, T), valid_length (N),
// max_time (N) -> (N), (N, K). N and K come from lda, T from lags.
bool HawkesLLShape(const NodeAttrs& /*attrs*/, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &mu = (*in)[kMu], &lags = (*in)[kLags];
  if (!ShapeIsKnown(mu) || !ShapeIsKnown(lags)) return false;
  if (mu.ndim() != 2 || lags.ndim() != 2 || mu[0] != lags[0]) {
    std::ostringstream os;
    os << "_contrib_hawkesll: lda " << mu << " and lags " << lags << " must be (samples, marks) "
       << "and (samples, events) with the same samples";
    throw dmlc::Error(os.str());
  }
  const index_t N = mu[0], K = mu[1], T = lags[1];
  AssignInputShape(in, kAlpha, TShape{K});
  AssignInputShape(in, kBeta, TShape{K});
  AssignInputShape(in, kState, TShape{N, K});
  AssignInputShape(in, kMarks, TShape{N, T});
  AssignInputShape(in, kValidLength, TShape{N});
  AssignInputShape(in, kMaxTime, TShape{N});
  AssignOutputShape(out, 0, TShape{N});
  AssignOutputShape(out, 1, TShape{N, K});
  return true;
}

// One real type for every input and output but marks, int32.
bool HawkesLLType(const NodeAttrs& /*attrs*/, std::vector<int>* in, std::vector<int>* out) {
  AssignInputType(in, kMarks, mshadow::kInt32);
  int known = -1;
  for (size_t i = 0; i < in->size(); ++i) {
    if (known == -1 && i != kMarks) known = (*in)[i];
  }
  for (int t : *out) {
    if (known == -1) known = t;
  }
  if (known == -1) return false;
  CheckRealType(known);
  for (size_t i = 0; i < in->size(); ++i) {
    if (i != kMarks) AssignInputType(in, static_cast<int>(i), known);
  }
  AssignOutputType(out, 0, known);
  AssignOutputType(out, 1, known);
  return true;
}

const bool kRegistered = [] {
  SetHawkesLLCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(_contrib_hawkesll)
    .describe(
        "Log likelihood of marked self-exciting (Hawkes) processes with exponential kernels: "
        "sample i's first valid_length[i] events, lags[i, j] apart with marks marks[i, j] "
        "(int32, in [0, K)), under intensities lda[i, k] + alpha[k] beta[k] s_k(t), each "
        "state s_k decaying as exp(-beta[k] dt) from state[i, k] and growing by 1 at its "
        "mark's events, observed to max_time[i]. Outputs: the log likelihoods (N,) and the "
        "states at max_time (N, K).")
    .set_num_inputs(kNumInputs)
    .set_num_outputs(2)
    .add_argument("lda", "NDArray-or-Symbol", "Background intensities (N, K).")
    .add_argument("alpha", "NDArray-or-Symbol", "Branching ratios (K,).")
    .add_argument("beta", "NDArray-or-Symbol", "Decay rates (K,).")
    .add_argument("state", "NDArray-or-Symbol", "Starting states (N, K).")
    .add_argument("lags", "NDArray-or-Symbol", "Interarrival times (N, T).")
    .add_argument("marks", "NDArray-or-Symbol", "Event marks (N, T), int32.")
    .add_argument("valid_length", "NDArray-or-Symbol", "Events per sample (N,).")
    .add_argument("max_time", "NDArray-or-Symbol", "Observation ends (N,).")
    .set_attr<FInferShape>("FInferShape", HawkesLLShape)
    .set_attr<FInferType>("FInferType", HawkesLLType)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)  // the scans' state
    .set_attr<FGradient>("FGradient", FGradient{"_backward_contrib_hawkesll", true, false});

OPS_REGISTER_OP(_backward_contrib_hawkesll)
    .describe(
        "Gradient of _contrib_hawkesll in lda, alpha, beta and state (of both outputs); zeros "
        "for lags, marks, valid_length and max_time.")
    .set_num_inputs(2 + kNumInputs)
    .set_num_outputs(kNumInputs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

}  // namespace hawkes_ll
}  // namespace ops
