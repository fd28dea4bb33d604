// ops/ctc_loss-inl.h: CTCLoss (connectionist temporal classification) and its backward
// operator, written once for every device. ctc_loss.cc registers them with FCompute<cpu>,
// ctc_loss.cu adds FCompute<gpu>.
//
// The forward pass runs the alpha-beta recursions in log space, a sample per item, over the
// log-softmax of the activations (data (T, N, C)), and writes the loss (N) and, to a hidden
// second output, the gradient of each sample's loss with respect to the activations:
// softmax - (posterior of each class). The backward operator scales that by the loss's
// gradient. Labels and lengths are read on the host first (a GPU's are copied there), so a
// label outside the alphabet or a length outside the data is a dmlc::Error naming it before
// any kernel runs.
#ifndef OPS_CTC_LOSS_INL_H_
#define OPS_CTC_LOSS_INL_H_

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace ctc {

enum BlankLabel { kFirst = 0, kLast = 1 };

struct CTCLossParam : public dmlc::Parameter<CTCLossParam> {
  bool use_data_lengths;
  bool use_label_lengths;
  int blank_label;
  DMLC_DECLARE_PARAMETER(CTCLossParam) {
    DMLC_DECLARE_FIELD(use_data_lengths).set_default(false).describe(
        "A data_lengths input (N) gives each sample's number of time steps.");
    DMLC_DECLARE_FIELD(use_label_lengths).set_default(false).describe(
        "A label_lengths input (N) gives each sample's number of labels; otherwise a label "
        "sequence ends at its first padding value (0 with blank_label first, -1 with last).");
    DMLC_DECLARE_FIELD(blank_label)
        .add_enum("first", kFirst)
        .add_enum("last", kLast)
        .set_default(kFirst)
        .describe("first: the blank is class 0, labels are 1..C-1; last: the blank is class "
                  "C-1, labels are 0..C-2.");
  }
};

// A sample's label sequence, checked, as the kernels read it: `labels` (N, max_labels) of
// class indices, the first label_length[n] of each row used; data_length[n] time steps.
struct Sequences {
  std::vector<int32_t> labels, label_length, data_length;
  index_t max_labels = 0;
};

// a + b in log space (log(exp(a) + exp(b))), -inf the zero.
template <typename DType>
MSHADOW_XINLINE DType LogAdd(DType a, DType b) {
  const DType inf = std::numeric_limits<DType>::infinity();
  if (a == -inf) return b;
  if (b == -inf) return a;
  return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

// lse[t * N + n] = log(sum_c exp(x[t, n, c])): what turns activations into log-probabilities.
struct log_sum_exp_rows {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t row, const DType* x, index_t classes, DType* lse) {
    const DType* v = x + row * classes;
    DType max = v[0];
    for (index_t c = 1; c < classes; ++c) max = v[c] > max ? v[c] : max;
    DType sum = 0;
    for (index_t c = 0; c < classes; ++c) sum += exp(v[c] - max);
    lse[row] = max + log(sum);
  }
};

// Where sample n's tables lie: alpha and beta, (T, S) each, S = 2 * max_labels + 1.
struct Layout {
  index_t T, N, C, max_labels, S;
};

// Sample n: alpha and beta over the extended sequence (blank, l1, blank, l2, ..., blank), the
// loss -log p(labels | x) and the gradient rows of its time steps (zero past its length). A
// sample no alignment fits (too few steps for its labels and repeats) gets loss 0 and a zero
// gradient, as MXNet 1.9.1.
template <int kReq>
struct ctc_sample {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t n, Layout g, const DType* x, const DType* lse,
                                  const int32_t* labels, const int32_t* label_length,
                                  const int32_t* data_length, int32_t blank, DType* alpha,
                                  DType* beta, DType* loss, DType* grad) {
    const DType inf = std::numeric_limits<DType>::infinity();
    const index_t steps = data_length[n], S = 2 * label_length[n] + 1;
    const int32_t* l = labels + n * g.max_labels;
    DType* a = alpha + n * g.T * g.S;
    DType* b = beta + n * g.T * g.S;
    // Class of extended position s, and its log-probability at step t.
    auto ext = [&](index_t s) { return s % 2 == 0 ? blank : l[s / 2]; };
    auto log_p = [&](index_t t, index_t s) {
      return x[(t * g.N + n) * g.C + ext(s)] - lse[t * g.N + n];
    };
    // A label may be skipped to from two places back unless it repeats the one there.
    auto can_skip = [&](index_t s) { return s % 2 == 1 && s >= 2 && ext(s) != ext(s - 2); };
    DType log_likelihood = -inf;
    if (steps > 0) {
      for (index_t s = 0; s < S; ++s) a[s] = s < 2 ? log_p(0, s) : -inf;
      for (index_t t = 1; t < steps; ++t) {
        DType* prev = a + (t - 1) * g.S;
        for (index_t s = 0; s < S; ++s) {
          DType sum = prev[s];
          if (s >= 1) sum = LogAdd(sum, prev[s - 1]);
          if (can_skip(s)) sum = LogAdd(sum, prev[s - 2]);
          a[t * g.S + s] = sum == -inf ? -inf : sum + log_p(t, s);
        }
      }
      const DType* last = a + (steps - 1) * g.S;
      log_likelihood = S >= 2 ? LogAdd(last[S - 1], last[S - 2]) : last[S - 1];
    }
    if (!(log_likelihood > -inf)) {  // nothing fits (or no steps): MXNet's 0
      AssignReq<kReq>(loss + n, DType(0));
      for (index_t t = 0; t < g.T; ++t) {
        for (index_t c = 0; c < g.C; ++c) grad[(t * g.N + n) * g.C + c] = DType(0);
      }
      return;
    }
    AssignReq<kReq>(loss + n, -log_likelihood);
    for (index_t s = 0; s < S; ++s) {
      b[(steps - 1) * g.S + s] = s >= S - 2 ? log_p(steps - 1, s) : -inf;
    }
    for (index_t t = steps - 1; t-- > 0;) {
      const DType* next = b + (t + 1) * g.S;
      for (index_t s = 0; s < S; ++s) {
        DType sum = next[s];
        if (s + 1 < S) sum = LogAdd(sum, next[s + 1]);
        if (s + 2 < S && can_skip(s + 2)) sum = LogAdd(sum, next[s + 2]);
        b[t * g.S + s] = sum == -inf ? -inf : sum + log_p(t, s);
      }
    }
    // d loss / d x[t, n, c] = softmax(x)[c] - sum over s of class c of exp(alpha + beta -
    // log_p - log_likelihood): alpha and beta both count step t's probability.
    for (index_t t = 0; t < g.T; ++t) {
      DType* row = grad + (t * g.N + n) * g.C;
      if (t >= steps) {
        for (index_t c = 0; c < g.C; ++c) row[c] = DType(0);
        continue;
      }
      const DType* xt = x + (t * g.N + n) * g.C;
      for (index_t c = 0; c < g.C; ++c) row[c] = exp(xt[c] - lse[t * g.N + n]);
      for (index_t s = 0; s < S; ++s) {
        const DType both = a[t * g.S + s] + b[t * g.S + s];
        if (both == -inf) continue;
        row[ext(s)] -= exp(both - log_p(t, s) - log_likelihood);
      }
    }
  }
};

// Row r = t * N + n of the data's gradient: out_grad[n] * grad[t, n, :].
template <int kReq>
struct ctc_scale_gradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t r, index_t N, index_t C, const DType* out_grad,
                                  const DType* grad, DType* data_grad) {
    const DType scale = out_grad[r % N];
    for (index_t c = r * C; c < (r + 1) * C; ++c) {
      AssignReq<kReq>(data_grad + c, scale * grad[c]);
    }
  }
};

// The label sequences and lengths of a call, read on the host and checked: every label used
// a class of the alphabet other than the blank, every length within the data.
template <typename xpu>
Sequences ReadSequences(const CTCLossParam& param, const std::vector<TBlob>& in,
                        mshadow::Stream<xpu>* s) {
  const index_t T = in[0].shape_[0], N = in[0].shape_[1], C = in[0].shape_[2];
  Sequences q;
  q.max_labels = in[1].shape_[1];
  q.labels.resize(static_cast<size_t>(N * q.max_labels));
  q.label_length.assign(static_cast<size_t>(N), static_cast<int32_t>(q.max_labels));
  q.data_length.assign(static_cast<size_t>(N), static_cast<int32_t>(T));
  auto fail = [](const std::string& message) { throw dmlc::Error(message); };
  // A length input's values as whole numbers in [0, limit].
  auto read_lengths = [&](const TBlob& blob, const char* what, index_t limit,
                          std::vector<int32_t>* lengths) {
    WithIndexType(blob.type_flag_, [&](auto tag) {
      using IType = typename decltype(tag)::type;
      const std::vector<IType> host = IndicesOnHost<xpu, IType>(blob, s);
      for (index_t n = 0; n < N; ++n) {
        const double v = static_cast<double>(host[n]);
        if (!(v >= 0 && v <= static_cast<double>(limit)) || v != std::floor(v)) {
          std::ostringstream os;
          os << what << "[" << n << "] is " << v << "; valid: whole numbers in [0, " << limit
             << "]";
          fail(os.str());
        }
        (*lengths)[n] = static_cast<int32_t>(v);
      }
    });
  };
  size_t next = 2;
  if (param.use_data_lengths) read_lengths(in[next++], "data_lengths", T, &q.data_length);
  if (param.use_label_lengths) {
    read_lengths(in[next++], "label_lengths", q.max_labels, &q.label_length);
  }
  const double padding = param.blank_label == kFirst ? 0 : -1;
  const int32_t first_class = param.blank_label == kFirst ? 1 : 0;
  const int32_t end_class = param.blank_label == kFirst ? static_cast<int32_t>(C)
                                                        : static_cast<int32_t>(C - 1);
  WithIndexType(in[1].type_flag_, [&](auto tag) {
    using IType = typename decltype(tag)::type;
    const std::vector<IType> host = IndicesOnHost<xpu, IType>(in[1], s);
    for (index_t n = 0; n < N; ++n) {
      for (index_t k = 0; k < q.label_length[n]; ++k) {
        const double v = static_cast<double>(host[n * q.max_labels + k]);
        if (!param.use_label_lengths && v == padding) {  // the sequence ends here
          q.label_length[n] = static_cast<int32_t>(k);
          break;
        }
        if (!(v >= first_class && v < end_class) || v != std::floor(v)) {
          std::ostringstream os;
          os << "label[" << n << ", " << k << "] is " << v << "; valid: the classes "
             << first_class << ".." << end_class - 1 << " (blank_label "
             << (param.blank_label == kFirst ? "first" : "last") << ")";
          if (!param.use_label_lengths) os << ", or the padding " << padding;
          fail(os.str());
        }
        q.labels[n * q.max_labels + k] = static_cast<int32_t>(v);
      }
    }
  });
  return q;
}

// The per-sample kernel for the loss's request; kNullOp still writes the hidden gradient.
template <typename Fn>
void WithSampleKernel(OpReqType req, Fn&& fn) {
  if (req == kNullOp) return fn(TypeTag<ctc_sample<kNullOp>>());
  OPS_REQ_SWITCH(req, Req, { fn(TypeTag<ctc_sample<Req>>()); });
}

// Inputs: data (T, N, C), label (N, L), [data_lengths (N)], [label_lengths (N)]. Outputs:
// loss (N), grad (T, N, C; hidden).
template <typename xpu>
void CTCLossCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const CTCLossParam& param = GetParam<CTCLossParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const Sequences q = ReadSequences<xpu>(param, in, s);
  Layout g{in[0].shape_[0], in[0].shape_[1], in[0].shape_[2], q.max_labels,
           2 * q.max_labels + 1};
  if (g.N == 0) return;
  const int32_t blank = param.blank_label == kFirst ? 0 : static_cast<int32_t>(g.C - 1);
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    // Temporary space: lse (T * N), alpha and beta (N * T * S each), then the int32 label
    // table and lengths.
    const index_t reals = g.T * g.N + 2 * g.N * g.T * g.S;
    const index_t ints = g.N * g.max_labels + 2 * g.N;
    const index_t words = reals + (ints * 4 + sizeof(DType) - 1) / sizeof(DType);
    DType* space =
        ctx.requested[0].get_space_typed<xpu, 1, DType>(mshadow::Shape1(words), s).dptr_;
    DType* lse = space;
    DType* alpha = lse + g.T * g.N;
    DType* beta = alpha + g.N * g.T * g.S;
    int32_t* labels = reinterpret_cast<int32_t*>(space + reals);
    int32_t* label_length = labels + g.N * g.max_labels;
    int32_t* data_length = label_length + g.N;
    std::vector<int32_t> table = q.labels;
    table.insert(table.end(), q.label_length.begin(), q.label_length.end());
    table.insert(table.end(), q.data_length.begin(), q.data_length.end());
    mshadow::Copy(mshadow::Tensor<xpu, 1, int32_t>(labels, mshadow::Shape1(ints), s),
                  mshadow::Tensor<mshadow::cpu, 1, int32_t>(table.data(), mshadow::Shape1(ints)),
                  s);
    const DType* x = in[0].dptr<DType>();
    Kernel<log_sum_exp_rows, xpu>::LaunchItems(s, g.T * g.N, g.C, x, g.C, lse);
    WithSampleKernel(req[0], [&](auto kernel) {
      using K = typename decltype(kernel)::type;
      Kernel<K, xpu>::LaunchItems(s, g.N, g.T * g.S * 4, g, x, lse, labels, label_length,
                                  data_length, blank, alpha, beta, out[0].dptr<DType>(),
                                  out[1].dptr<DType>());
    });
    if constexpr (!std::is_same_v<xpu, mshadow::cpu>) s->Wait();  // `table` goes out of scope
  });
}

// Inputs: out_grad (loss), out_grad (hidden grad, unused), loss, grad. Outputs: the data's
// gradient, zeros for the label and length inputs.
template <typename xpu>
void CTCLossBackwardCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t N = out[0].shape_[1], C = out[0].shape_[2];
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    if (out[0].Size() != 0) {
      OPS_REQ_SWITCH(req[0], Req, {
        Kernel<ctc_scale_gradient<Req>, xpu>::LaunchItems(
            s, out[0].Size() / C, C, N, C, in[0].dptr<DType>(), in[3].dptr<DType>(),
            out[0].dptr<DType>());
      });
    }
  });
  for (size_t i = 1; i < out.size(); ++i) {
    WithIndexType(out[i].type_flag_, [&](auto tag) {
      using IType = typename decltype(tag)::type;
      Assign(Flat<xpu, IType>(out[i], s), req[i], mshadow::expr::scalar<IType>(0));
    });
  }
}

// Adds FCompute<xpu> to CTCLoss and _backward_CTCLoss.
template <typename xpu>
void SetCTCLossCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("CTCLoss").set_attr<FCompute>(attr_name, FCompute(CTCLossCompute<xpu>));
  RegisterOp("_backward_CTCLoss")
      .set_attr<FCompute>(attr_name, FCompute(CTCLossBackwardCompute<xpu>));
}

}  // namespace ctc
}  // namespace ops

#endif  // OPS_CTC_LOSS_INL_H_
