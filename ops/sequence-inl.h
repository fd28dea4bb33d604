// ops/sequence-inl.h: SequenceMask, SequenceLast and SequenceReverse and their backward
// operators, written once for every device, with MXNet 1.9.1's semantics. The data is
// (T, B, ...) with the sequence along axis 0, or (B, T, ...) along axis 1 (SequenceReverse:
// axis 0 only, as MXNet); with use_sequence_length, sequence b has the length
// sequence_length[b] (float32/float64/int32/int64), else T.
// - SequenceMask: steps t >= length[b] become `value`.
// - SequenceLast: step length[b] - 1 of each sequence, shaped (B, ...).
// - SequenceReverse: the first length[b] steps reversed, the rest kept.
// Lengths are data, not parameters, so a bad one cannot be refused before the kernel runs:
// each is truncated and clamped to [0, T] (SequenceLast: [1, T]; NaN as 0), so that no
// kernel reads outside the data. Every gradient is a gather (no atomics); the lengths get
// none (zeros, as MXNet's).
// sequence.cc registers the CPU, sequence.cu adds FCompute<gpu>.
#ifndef OPS_SEQUENCE_INL_H_
#define OPS_SEQUENCE_INL_H_

#include <vector>

#include "mshadow/tensor.h"
#include "ops/index_type.h"
#include "ops/infer_util.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace sequence {

struct SequenceMaskParam : public dmlc::Parameter<SequenceMaskParam> {
  bool use_sequence_length;
  float value;
  int axis;
  DMLC_DECLARE_PARAMETER(SequenceMaskParam) {
    DMLC_DECLARE_FIELD(use_sequence_length)
        .set_default(false)
        .describe("Take a second input, sequence_length (B,), with each sequence's length.");
    DMLC_DECLARE_FIELD(value).set_default(0.0f).describe("What the masked steps become.");
    DMLC_DECLARE_FIELD(axis).set_default(0).set_range(0, 1).describe(
        "The sequence axis: 0 for (T, B, ...), 1 for (B, T, ...).");
  }
};

struct SequenceLastParam : public dmlc::Parameter<SequenceLastParam> {
  bool use_sequence_length;
  int axis;
  DMLC_DECLARE_PARAMETER(SequenceLastParam) {
    DMLC_DECLARE_FIELD(use_sequence_length)
        .set_default(false)
        .describe("Take a second input, sequence_length (B,), with each sequence's length.");
    DMLC_DECLARE_FIELD(axis).set_default(0).set_range(0, 1).describe(
        "The sequence axis: 0 for (T, B, ...), 1 for (B, T, ...).");
  }
};

struct SequenceReverseParam : public dmlc::Parameter<SequenceReverseParam> {
  bool use_sequence_length;
  int axis;
  DMLC_DECLARE_PARAMETER(SequenceReverseParam) {
    DMLC_DECLARE_FIELD(use_sequence_length)
        .set_default(false)
        .describe("Take a second input, sequence_length (B,), with each sequence's length.");
    DMLC_DECLARE_FIELD(axis).set_default(0).set_range(0, 0).describe(
        "The sequence axis; only 0, (T, B, ...), as in MXNet 1.9.1.");
  }
};

// The data as steps T, sequences B and R elements a step; where element (t, b, r) lies.
struct SequenceView {
  index_t steps, batch, rest;
  int axis;
  MSHADOW_XINLINE index_t At(index_t t, index_t b, index_t r) const {
    return (axis == 0 ? t * batch + b : b * steps + t) * rest + r;
  }
  MSHADOW_XINLINE index_t StepOf(index_t e) const {
    return axis == 0 ? e / (batch * rest) : e / rest % steps;
  }
  MSHADOW_XINLINE index_t SequenceOf(index_t e) const {
    return axis == 0 ? e / rest % batch : e / (steps * rest);
  }
};

inline SequenceView ViewOf(const TShape& data, int axis) {
  const index_t steps = data[axis], batch = data[1 - axis];
  return {steps, batch, data.ProdShape(2, data.ndim()), axis};
}

// Sequence b's length, truncated and clamped to [lowest, T]; T without lengths.
template <typename LType>
MSHADOW_XINLINE index_t LengthOf(const LType* lengths, index_t b, index_t steps, index_t lowest) {
  if (lengths == nullptr) return steps;
  const double v = static_cast<double>(lengths[b]);
  if (!(v > static_cast<double>(lowest))) return lowest;  // NaN too
  if (v >= static_cast<double>(steps)) return steps;
  return static_cast<index_t>(v);
}

// Item e of the data: masked (forward: x or `value`; backward: dy or 0).
struct sequence_mask {
  template <typename DType, typename LType>
  MSHADOW_XINLINE static void Map(index_t e, OpReqType req, SequenceView v, const DType* x,
                                  const LType* lengths, DType value, DType* out) {
    const bool kept = v.StepOf(e) < LengthOf(lengths, v.SequenceOf(e), v.steps, index_t{0});
    AssignReq(out + e, kept ? x[e] : value, req);
  }
};

// Item (b, r) of the output: step length[b] - 1 of sequence b.
struct sequence_last {
  template <typename DType, typename LType>
  MSHADOW_XINLINE static void Map(index_t i, OpReqType req, SequenceView v, const DType* x,
                                  const LType* lengths, DType* out) {
    const index_t b = i / v.rest, r = i % v.rest;
    const index_t t = LengthOf(lengths, b, v.steps, index_t{1}) - 1;
    AssignReq(out + i, x[v.At(t, b, r)], req);
  }
};

// Item e of the data: its gradient, dy of (b, r) at the last step, else 0.
struct sequence_last_grad {
  template <typename DType, typename LType>
  MSHADOW_XINLINE static void Map(index_t e, OpReqType req, SequenceView v, const DType* dy,
                                  const LType* lengths, DType* dx) {
    const index_t b = v.SequenceOf(e);
    const bool last = v.StepOf(e) == LengthOf(lengths, b, v.steps, index_t{1}) - 1;
    AssignReq(dx + e, last ? dy[b * v.rest + e % v.rest] : DType(0), req);
  }
};

// Item e: step t of the first length[b] reversed (its own inverse, so also the gradient).
struct sequence_reverse {
  template <typename DType, typename LType>
  MSHADOW_XINLINE static void Map(index_t e, OpReqType req, SequenceView v, const DType* x,
                                  const LType* lengths, DType* out) {
    const index_t t = v.StepOf(e), b = v.SequenceOf(e);
    const index_t n = LengthOf(lengths, b, v.steps, index_t{0});
    AssignReq(out + e, t < n ? x[v.At(n - 1 - t, b, e % v.rest)] : x[e], req);
  }
};

// The CPU's form of OP: a run of `rest` elements at a time (a step of a sequence; for
// SequenceLast's forward, an output row), its length read once and the run copied or filled
// whole, rather than an element at a time with the step and sequence divided out of each.
// `value`: what a masked run becomes (sequence_mask only).
template <typename OP, typename DType, typename LType>
void SequenceRunsCpu(OpReqType req, const SequenceView& v, const DType* x, const LType* lengths,
                     DType value, DType* out) {
  constexpr bool kLastForward = std::is_same_v<OP, sequence_last>;
  const index_t rest = v.rest, rows = kLastForward ? v.batch : v.steps * v.batch;
  vec::WithReq(req, [&](auto add) {
    constexpr bool kAdd = decltype(add)::value;
    ParallelRows(rows, rest, [&](index_t begin, index_t end) {
      for (index_t q = begin; q < end; ++q) {
        DType* to = out + q * rest;
        if constexpr (kLastForward) {
          const index_t t = LengthOf(lengths, q, v.steps, index_t{1}) - 1;
          CopyRun<kAdd>(to, x + v.At(t, q, 0), rest);
        } else {
          const index_t t = v.axis == 0 ? q / v.batch : q % v.steps;
          const index_t b = v.axis == 0 ? q % v.batch : q / v.steps;
          if constexpr (std::is_same_v<OP, sequence_mask>) {
            if (t < LengthOf(lengths, b, v.steps, index_t{0})) {
              CopyRun<kAdd>(to, x + q * rest, rest);
            } else {
              FillRun<kAdd>(to, value, rest);
            }
          } else if constexpr (std::is_same_v<OP, sequence_reverse>) {
            const index_t n = LengthOf(lengths, b, v.steps, index_t{0});
            CopyRun<kAdd>(to, t < n ? x + v.At(n - 1 - t, b, 0) : x + q * rest, rest);
          } else {
            static_assert(std::is_same_v<OP, sequence_last_grad>);
            if (t == LengthOf(lengths, b, v.steps, index_t{1}) - 1) {
              CopyRun<kAdd>(to, x + b * rest, rest);
            } else {
              FillRun<kAdd>(to, DType(0), rest);
            }
          }
        }
      }
    });
  });
}

template <typename Param>
uint32_t NumInputs(const NodeAttrs& attrs) {
  return GetParam<Param>(attrs).use_sequence_length ? 2 : 1;
}

// fn(DType(), lengths pointer or null) for the data's type and the lengths' type.
template <typename Param, typename Fn>
void WithTypes(const NodeAttrs& attrs, const TBlob& data, const TBlob* lengths, Fn&& fn) {
  MSHADOW_SGL_DBL_TYPE_SWITCH(data.type_flag_, DType, {
    if (!GetParam<Param>(attrs).use_sequence_length) {
      fn(DType(), static_cast<const float*>(nullptr));
      return;
    }
    WithIndexType(lengths->type_flag_, [&](auto length_tag) {
      fn(DType(), lengths->dptr<typename decltype(length_tag)::type>());
    });
  });
}

// Forward: inputs data [, sequence_length]; output the masked, last or reversed data.
template <typename Param, typename OP, typename xpu>
void SequenceCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Param& param = GetParam<Param>(attrs);
  const SequenceView v = ViewOf(in[0].shape_, param.axis);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const TBlob* lengths = in.size() > 1 ? &in[1] : nullptr;
  WithTypes<Param>(attrs, in[0], lengths, [&](auto dtype, const auto* length_ptr) {
    using DType = decltype(dtype);
    const index_t n = out[0].shape_.Size();
    if constexpr (std::is_same_v<xpu, cpu>) {
      DType value(0);
      if constexpr (std::is_same_v<Param, SequenceMaskParam>) value = DType(param.value);
      return SequenceRunsCpu<OP>(req[0], v, in[0].dptr<DType>(), length_ptr, value,
                                 out[0].dptr<DType>());
    }
    if constexpr (std::is_same_v<Param, SequenceMaskParam>) {
      Kernel<OP, xpu>::Launch(stream, n, req[0], v, in[0].dptr<DType>(), length_ptr,
                              static_cast<DType>(param.value), out[0].dptr<DType>());
    } else {
      Kernel<OP, xpu>::Launch(stream, n, req[0], v, in[0].dptr<DType>(), length_ptr,
                              out[0].dptr<DType>());
    }
  });
}

// Backward: inputs dy, data [, sequence_length]; outputs the gradients of data [and lengths,
// zeros]. OP maps dy to dx as the forward maps the data (mask with 0, reverse, last's gather).
template <typename Param, typename OP, typename xpu>
void SequenceBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                             const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                             const std::vector<TBlob>& out) {
  const Param& param = GetParam<Param>(attrs);
  const SequenceView v = ViewOf(in[1].shape_, param.axis);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const TBlob* lengths = in.size() > 2 ? &in[2] : nullptr;
  WithTypes<Param>(attrs, in[1], lengths, [&](auto dtype, const auto* length_ptr) {
    using DType = decltype(dtype);
    const index_t n = out[0].shape_.Size();
    if constexpr (std::is_same_v<xpu, cpu>) {
      return SequenceRunsCpu<OP>(req[0], v, in[0].dptr<DType>(), length_ptr, DType(0),
                                 out[0].dptr<DType>());
    }
    if constexpr (std::is_same_v<Param, SequenceMaskParam>) {
      Kernel<OP, xpu>::Launch(stream, n, req[0], v, in[0].dptr<DType>(), length_ptr, DType(0),
                              out[0].dptr<DType>());
    } else {
      Kernel<OP, xpu>::Launch(stream, n, req[0], v, in[0].dptr<DType>(), length_ptr,
                              out[0].dptr<DType>());
    }
  });
  if (lengths == nullptr) return;
  WithIndexType(out[1].type_flag_, [&](auto length_tag) {
    using LType = typename decltype(length_tag)::type;
    Assign(out[1].FlatTo2D<xpu, LType>(stream), req[1], mshadow::expr::scalar<LType>(0));
  });
}

// Adds FCompute<xpu> to the three operators and their backward operators.
template <typename xpu>
void SetSequenceCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("SequenceMask")
      .set_attr<FCompute>(attr_name,
                          FCompute(SequenceCompute<SequenceMaskParam, sequence_mask, xpu>));
  RegisterOp("_backward_SequenceMask")
      .set_attr<FCompute>(attr_name,
                          FCompute(SequenceBackwardCompute<SequenceMaskParam, sequence_mask, xpu>));
  RegisterOp("SequenceLast")
      .set_attr<FCompute>(attr_name,
                          FCompute(SequenceCompute<SequenceLastParam, sequence_last, xpu>));
  RegisterOp("_backward_SequenceLast")
      .set_attr<FCompute>(
          attr_name, FCompute(SequenceBackwardCompute<SequenceLastParam, sequence_last_grad, xpu>));
  RegisterOp("SequenceReverse")
      .set_attr<FCompute>(attr_name,
                          FCompute(SequenceCompute<SequenceReverseParam, sequence_reverse, xpu>));
  RegisterOp("_backward_SequenceReverse")
      .set_attr<FCompute>(
          attr_name,
          FCompute(SequenceBackwardCompute<SequenceReverseParam, sequence_reverse, xpu>));
}

}  // namespace sequence
}  // namespace ops

#endif  // OPS_SEQUENCE_INL_H_
